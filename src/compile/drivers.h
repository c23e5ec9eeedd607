/* Telling drivers (sources with their own main) by their code. Discovery
 * reads sources as text (discover.h) and marks each default source whose
 * text names main as a suspect; here each suspect is compiled on its own
 * into an object (reference flags, the instance's defines and include
 * folders, in the compile sandbox) and its symbol table read with libelf
 * (elfsize.h): a source is a driver exactly when its object defines main.
 * So `//int main()` in a comment or main under `#if 0` keeps a source, and
 * a main spelt through a macro leaves it out. A suspect that does not
 * compile on its own keeps discovery's verdict, read from its text with
 * the comments removed, and its reason says so; so does every suspect of a
 * folder past its first DRIVERS_MAX_COMPILED (each compile may take up to
 * DRIVERS_COMPILE_TIMEOUT_S, and a package must not hold the build for
 * hours with thousands of them). Used by the build stage
 * and by hashbench init before either plans anything. */
#ifndef HB_COMPILE_DRIVERS_H
#define HB_COMPILE_DRIVERS_H

#include "compile/compile.h"
#include "compile/discover.h"
#include "common/err.h"
#include "common/strlist.h"

#define DRIVERS_MAX_COMPILED 16
#define DRIVERS_COMPILE_TIMEOUT_S 60

/* Appends to FLAGS the words that compile one source of IN into an object:
 * the reference profile's (AARCH64: for that target) without -shared, -c,
 * then -D for IN's defines and -I for its include folders. */
int drivers_object_flags(int aarch64, const discover_instance *in, strlist *flags);

/* Settles the suspects of L->v[from..] (see above) with compiler TC, moving
 * each between sources and excluded; objects go to a temporary folder under
 * $TMPDIR (else /tmp), removed before returning. Fails only when the harness
 * itself fails. */
int drivers_settle(discover_list *l, int from, const compile_toolchain *tc,
                   hb_err *err);

#endif
