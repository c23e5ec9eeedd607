/* The wall budget of an instance: see ibudget.h. The file holds the budget
 * it was last charged under (for the reader), the seconds each stage spent
 * and their total:
 *   {"budget_s": 600, "spent_s": 41.5, "stages": {"kat": 30.1, "ct": 11.4}}
 * Only "stages" is read back; "spent_s" is their sum. */
#include "rundir/ibudget.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "common/fs.h"
#include "common/json.h"

static int has_budget(const ibudget *b)
{
    return b && b->budget_s > 0;
}

/* A name that may be a path component: not empty, no '/', not . or .. */
static int plain(const char *s)
{
    return s && s[0] && !strchr(s, '/') && strcmp(s, ".") != 0 && strcmp(s, "..") != 0;
}

static int file_of(const ibudget *b, char *out, size_t sz, hb_err *err)
{
    if (!plain(b->candidate) || !plain(b->instance))
        return hb_fail(err, "instance budget: '%s/%s' is not a plain candidate and "
                       "instance name", b->candidate ? b->candidate : "",
                       b->instance ? b->instance : "");
    if (snprintf(out, sz, "%s/%s/%s/%s.json", b->run_dir, IBUDGET_DIR, b->candidate,
                 b->instance) >= (int)sz)
        return hb_fail(err, "%s/%s/%s: path too long", b->run_dir, IBUDGET_DIR, b->candidate);
    return 0;
}

/* The stages object of B's file (new reference; empty when there is no
 * file). */
static int load_stages(const char *path, json_t **stages, hb_err *err)
{
    json_t *doc = NULL;
    *stages = NULL;
    if (access(path, F_OK) != 0) {
        *stages = json_object();
        return *stages ? 0 : hb_fail(err, "out of memory");
    }
    if (hb_json_load(path, &doc, err) != 0)
        return -1;
    json_t *s = json_object_get(doc, "stages");
    const char *key;
    json_t *v;
    if (!json_is_object(s)) {
        json_decref(doc);
        return hb_fail(err, "%s: no \"stages\" object; remove the file to start the "
                       "instance's budget again", path);
    }
    json_object_foreach(s, key, v)
        if (!json_is_number(v) || !(json_number_value(v) >= 0)) {
            json_decref(doc);
            return hb_fail(err, "%s: stages.%s is not a number of seconds; remove the "
                           "file to start the instance's budget again", path, key);
        }
    *stages = json_incref(s);
    json_decref(doc);
    return 0;
}

static double total_of(const json_t *stages)
{
    const char *key;
    json_t *v;
    double sum = 0;
    json_object_foreach((json_t *)stages, key, v)
        sum += json_number_value(v);
    return sum;
}

int ibudget_left(const ibudget *b, double *left, hb_err *err)
{
    char path[PATH_MAX];
    json_t *stages;
    *left = HUGE_VAL;
    if (!has_budget(b))
        return 0;
    if (file_of(b, path, sizeof path, err) != 0 || load_stages(path, &stages, err) != 0)
        return -1;
    *left = b->budget_s - total_of(stages);
    json_decref(stages);
    return 0;
}

int ibudget_spent(const ibudget *b, hb_err *err)
{
    double left;
    if (ibudget_left(b, &left, err) != 0)
        return -1;
    return left < IBUDGET_MIN_STEP_S;
}

int ibudget_step_timeout(const ibudget *b, double step_s, double *timeout_s, int *limited,
                         hb_err *err)
{
    double left;
    if (limited)
        *limited = 0;
    *timeout_s = step_s;
    if (ibudget_left(b, &left, err) != 0)
        return -1;
    if (left < step_s) {
        *timeout_s = left > IBUDGET_MIN_STEP_S ? left : IBUDGET_MIN_STEP_S;
        if (limited)
            *limited = 1;
    }
    return 0;
}

int ibudget_charge(const ibudget *b, const char *stage, double seconds, hb_err *err)
{
    char path[PATH_MAX], lock[PATH_MAX];
    json_t *stages = NULL;
    if (!has_budget(b))
        return 0;
    if (!(seconds >= 0))
        seconds = 0;
    if (file_of(b, path, sizeof path, err) != 0)
        return -1;
    if (snprintf(lock, sizeof lock, "%s/%s/.lock", b->run_dir, IBUDGET_DIR) >= (int)sizeof lock)
        return hb_fail(err, "%s/%s: path too long", b->run_dir, IBUDGET_DIR);
    if (hb_mkdirs_for(path, err) != 0)
        return -1;
    int fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0 || flock(fd, LOCK_EX) != 0) {
        if (fd >= 0)
            close(fd);
        return hb_fail_errno(err, "%s: cannot lock the instance budgets", lock);
    }
    int rc = load_stages(path, &stages, err);
    if (rc == 0) {
        json_t *had = json_object_get(stages, stage);
        json_object_set_new(stages, stage,
                            json_real((had ? json_number_value(had) : 0) + seconds));
        json_t *doc = json_pack("{s:f, s:f, s:O}", "budget_s", b->budget_s, "spent_s",
                                total_of(stages), "stages", stages);
        rc = doc ? hb_json_save(path, doc, err) : hb_fail(err, "out of memory");
        json_decref(doc);
    }
    json_decref(stages);
    close(fd); /* releases the lock */
    return rc;
}

void ibudget_reason(const ibudget *b, char *out, size_t sz)
{
    char path[PATH_MAX], parts[512] = "";
    json_t *stages = NULL;
    hb_err ignored;
    if (has_budget(b) && file_of(b, path, sizeof path, &ignored) == 0 &&
        load_stages(path, &stages, &ignored) == 0) {
        const char *key;
        json_t *v;
        size_t n = 0;
        json_object_foreach(stages, key, v) {
            int w = snprintf(parts + n, sizeof parts - n, "%s%s %.0f s", n ? ", " : "", key,
                             json_number_value(v));
            if (w < 0 || (size_t)w >= sizeof parts - n)
                break;
            n += (size_t)w;
        }
    }
    json_decref(stages);
    snprintf(out, sz, IBUDGET_REASON_START ": %.0f s (--instance-budget) over "
             "all its processes%s%s%s", b ? b->budget_s : 0.0, parts[0] ? " (" : "", parts,
             parts[0] ? ")" : "");
}

int ibudget_stopped(const char *reason)
{
    return reason && strstr(reason, IBUDGET_REASON_START) != NULL;
}
