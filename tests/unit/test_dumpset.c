/*
 * test_dumpset.c - several dumps as one dataset (dumpset.h): directories
 * expanded to their ETDumps by content and sorted, glob patterns sorted
 * bytewise, empty matches named in the error; the names of a set (the
 * shortest distinguishing tail), the same file given twice refused.
 * Works in a temporary directory of its own.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "files/dumpset.h"
#include "tap.h"

static char dir[64];

/* Write `n` bytes of `data` to dir/name. */
static void put(const char *name, const char *data, size_t n)
{
    char p[256];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "wb");
    if (!f || fwrite(data, 1, n, f) != n || fclose(f) != 0) {
        fprintf(stderr, "cannot write %s\n", p);
        exit(1);
    }
}

/* The list as "a b c", paths relative to dir. */
static const char *joined(const et_pathlist *l)
{
    static char out[1024];
    size_t at = 0, skip = strlen(dir) + 1;
    out[0] = '\0';
    for (size_t i = 0; i < l->n; i++) {
        const char *s = strncmp(l->v[i], dir, skip - 1) == 0 ? l->v[i] + skip : l->v[i];
        at += (size_t)snprintf(out + at, sizeof out - at, "%s%s", i ? " " : "", s);
    }
    return out;
}

static const char *names_of(const char *const *paths, size_t n, et_error *err)
{
    static char out[1024];
    char **names;
    if (et_dumpset_names(paths, n, &names, err) != 0)
        return NULL;
    size_t at = 0;
    out[0] = '\0';
    for (size_t i = 0; i < n; i++)
        at += (size_t)snprintf(out + at, sizeof out - at, "%s%s", i ? " " : "", names[i]);
    et_dumpset_names_free(names, n);
    return out;
}

int main(void)
{
    snprintf(dir, sizeof dir, "/tmp/et-dumpset-XXXXXX");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    static const char plain[] = "\x10\0\0\0ED00\0\0\0\0";          /* "ED00" at byte 4 */
    static const char prefixed[] = "\x40\0\0\0\x10\0\0\0ED00\0\0"; /* "ED00" at byte 8 */
    char p[256];
    snprintf(p, sizeof p, "%s/runs", dir);
    mkdir(p, 0755);
    snprintf(p, sizeof p, "%s/runs/sub", dir);
    mkdir(p, 0755);
    snprintf(p, sizeof p, "%s/empty", dir);
    mkdir(p, 0755);
    put("runs/b.etdp", plain, sizeof plain);
    put("runs/a.etdp", prefixed, sizeof prefixed);
    put("runs/B.bin", "debug bytes", 11);
    put("runs/.hidden.etdp", plain, sizeof plain);
    put("runs/sub/c.etdp", plain, sizeof plain);
    put("runs/debug.bin", "\0\0\0\0\0\0\0\0\0\0\0\0", 12);
    put("star*.etdp", plain, sizeof plain);

    et_pathlist l = {0};
    et_error err;
    snprintf(p, sizeof p, "%s/runs", dir);
    ok(et_dumpset_expand(p, &l, &err) == 0, "a directory expands");
    is_str(joined(&l), "runs/a.etdp runs/b.etdp",
           "... to its ETDumps by content, sorted; not hidden files, not subdirectories");
    et_pathlist_free(&l);
    snprintf(p, sizeof p, "%s/runs/", dir);
    et_dumpset_expand(p, &l, &err);
    is_str(joined(&l), "runs/a.etdp runs/b.etdp", "a trailing slash: no doubled separator");
    et_pathlist_free(&l);

    snprintf(p, sizeof p, "%s/runs/*", dir);
    ok(et_dumpset_expand(p, &l, &err) == 0, "a pattern expands");
    is_str(joined(&l), "runs/B.bin runs/a.etdp runs/b.etdp runs/debug.bin runs/sub",
           "... to every match, sorted bytewise (upper case first)");
    et_pathlist_free(&l);

    snprintf(p, sizeof p, "%s/empty", dir);
    ok(et_dumpset_expand(p, &l, &err) == -1 && err.kind == ET_ERR_IO,
       "a directory without ETDumps: an error");
    ok(strstr(err.msg, "empty: is a directory with no ETDump in it") != NULL, "... naming it: %s",
       err.msg);
    snprintf(p, sizeof p, "%s/runs/*.none", dir);
    ok(et_dumpset_expand(p, &l, &err) == -1 && err.kind == ET_ERR_IO,
       "a pattern that matches nothing: an error");
    ok(strstr(err.msg, "runs/*.none: no file matches this pattern") != NULL,
       "... naming the pattern: %s", err.msg);
    is_int((long long)l.n, 0, "... and nothing added");

    snprintf(p, sizeof p, "%s/star*.etdp", dir);
    et_dumpset_expand(p, &l, &err);
    is_str(joined(&l), "star*.etdp", "an existing file whose name looks like a pattern: itself");
    et_pathlist_free(&l);
    et_dumpset_expand("no/such.etdp", &l, &err);
    is_str(joined(&l), "no/such.etdp", "a plain path that does not exist: itself (opening says why)");
    et_pathlist_free(&l);

    /* names */
    const char *one[] = {"x/y/model.etdp"};
    is_str(names_of(one, 1, &err), "model.etdp", "one dump: its file name");
    const char *three[] = {"runs/a/model.etdp", "runs/b/model.etdp", "other/c.etdp"};
    is_str(names_of(three, 3, &err), "a/model.etdp b/model.etdp c.etdp",
           "the same file name in two directories: one directory more");
    const char *deep[] = {"x/run1/model.etdp", "y/run1/model.etdp", "./z//model.etdp"};
    is_str(names_of(deep, 3, &err), "x/run1/model.etdp y/run1/model.etdp z/model.etdp",
           "as many directories as it takes; '.' and empty components ignored");
    const char *tail[] = {"model.etdp", "a/model.etdp", "/abs/b/model.etdp"};
    is_str(names_of(tail, 3, &err), "model.etdp a/model.etdp b/model.etdp",
           "a path that is the tail of another keeps its whole name");
    const char *root[] = {"/model.etdp", "a/model.etdp"};
    is_str(names_of(root, 2, &err), "/model.etdp a/model.etdp",
           "an absolute path used whole keeps its '/'");
    const char *twice[] = {"a/m.etdp", "b.etdp", "./a/m.etdp"};
    ok(names_of(twice, 3, &err) == NULL && err.kind == ET_ERR_USAGE,
       "the same path twice: an error");
    is_str(err.msg, "a/m.etdp and ./a/m.etdp are the same file", "... naming both");
    char a[256], b[256];
    snprintf(a, sizeof a, "%s/runs/a.etdp", dir);
    snprintf(b, sizeof b, "%s/runs/sub/../a.etdp", dir);
    const char *same[] = {a, b};
    ok(names_of(same, 2, &err) == NULL && strstr(err.msg, "are the same file"),
       "one file under two spellings: an error (%s)", err.msg);

    /* clean up */
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        diag("could not remove %s", dir);
    return done_testing();
}
