/* Compiler diagnostics as hashbench states them (compile/diag.h): the
 * location and class of a compiler's, assembler's or linker's line, never
 * its message, and the check validate makes on a published line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>

#include "compile/diag.h"

static void parses(const char *line, const char *want)
{
    char out[200];
    int rc = diag_parse(line, strlen(line), out, sizeof out);
    if (want ? rc != 1 || strcmp(out, want) != 0 : rc != 0 || out[0])
        fail_msg("'%s' gave %d '%s', expected '%s'", line, rc, out, want ? want : "");
}

static void test_location_and_class_only(void **state)
{
    (void)state;
    parses("Impl/x.c:12:5: error: unknown type name 'PUBLEAK3835352e'",
           "Impl/x.c:12:5: error");
    parses("x.h:3:10: fatal error: secret.h: No such file or directory", "x.h:3:10: fatal error");
    parses("In file included from a.c:1: b.h:7:1: warning: text", "b.h:7:1: warning");
    parses("x.c:4: Error: file not found: /etc/shadow", "x.c:4: assembler error");
    parses("weird'name.c:2:1: note: quoted", "weird?name.c:2:1: note");
    parses("x.c:(.text+0x0): multiple definition of `f'", "linker: multiple definition");
    parses("/usr/bin/ld: cannot find -lsecret", "linker: missing library");
    /* no location, or no class: not a diagnostic */
    parses("cc1: error: unrecognized option", NULL);
    parses("   12 |   this is the quoted source line", NULL);
    parses("x.c: In function 'CryptHash':", NULL);
}

static void test_stated_form(void **state)
{
    (void)state;
    const char *good[] = {"Impl/x.c:12:5: error", "<path>/x.h:3:10: fatal error",
                          "x.c:4: assembler error", "linker: multiple definition"};
    const char *bad[] = {"Impl/x.c:12:5: error: unknown type name 'x'", "x.c: error",
                         "free text", "a b.c:1:1: error", "linker: anything",
                         "x.c:1:1: errors"};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
        if (!diag_is_stated(good[i], strlen(good[i])))
            fail_msg("'%s' refused", good[i]);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (diag_is_stated(bad[i], strlen(bad[i])))
            fail_msg("'%s' taken as a stated diagnostic", bad[i]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_location_and_class_only),
        cmocka_unit_test(test_stated_form),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
