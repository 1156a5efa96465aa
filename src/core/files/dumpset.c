/* dumpset.c - several ETDumps as one dataset; see dumpset.h. */
#define _POSIX_C_SOURCE 200809L
#include "files/dumpset.h"
#include "files/mapfile.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void et_pathlist_free(et_pathlist *l)
{
    if (!l)
        return;
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
    l->v = NULL;
    l->n = l->cap = 0;
}

/* Append a copy of `a` + `b` (b may be NULL); -1 out of memory. */
static int push2(et_pathlist *l, const char *a, const char *b)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 16;
        char **v = realloc(l->v, cap * sizeof *v);
        if (!v)
            return -1;
        l->v = v;
        l->cap = cap;
    }
    size_t na = strlen(a), nb = b ? strlen(b) : 0;
    char *p = malloc(na + nb + 1);
    if (!p)
        return -1;
    memcpy(p, a, na);
    if (nb)
        memcpy(p + na, b, nb);
    p[na + nb] = '\0';
    l->v[l->n++] = p;
    return 0;
}

int et_pathlist_add(et_pathlist *l, const char *path, et_error *err)
{
    if (push2(l, path, NULL) != 0)
        return et_fail(err, ET_ERR_NOMEM, "out of memory");
    return 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Is the regular file at `path` an ETDump by its identifier ("ED00" at
 * byte 8 when size-prefixed, else at byte 4; spec §2.1)? */
static bool is_etdump(const char *path)
{
    /* opened without blocking and checked again: the file stat() saw may
     * have been replaced by a FIFO, whose open would wait for a writer */
    struct stat st;
    et_error ignored;
    int fd = et_open_regular(path, &st, &ignored);
    if (fd < 0)
        return false;
    unsigned char h[12];
    ssize_t n = pread(fd, h, sizeof h, 0);
    close(fd);
    return (n >= 12 && memcmp(h + 8, "ED00", 4) == 0) || (n >= 8 && memcmp(h + 4, "ED00", 4) == 0);
}

static int too_many(const char *arg, et_error *err)
{
    return et_fail(err, ET_ERR_IO, "%s: names more than %d files", arg, ET_DUMPSET_MAX);
}

static int expand_dir(const char *arg, et_pathlist *out, et_error *err)
{
    DIR *d = opendir(arg);
    if (!d)
        return et_fail(err, ET_ERR_IO, "%s: %s", arg, strerror(errno));
    size_t first = out->n, len = strlen(arg);
    const char *sep = len && arg[len - 1] == '/' ? "" : "/";
    int rc = 0;
    struct dirent *de;
    errno = 0;
    while (rc == 0 && (de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.')
            continue;
        if (out->n - first >= ET_DUMPSET_MAX) {
            rc = too_many(arg, err);
            break;
        }
        /* "ARG/NAME": the directory, a separator, the name */
        size_t nn = strlen(de->d_name);
        char *p = malloc(len + 1 + nn + 1);
        if (!p) {
            rc = et_fail(err, ET_ERR_NOMEM, "out of memory");
            break;
        }
        snprintf(p, len + 1 + nn + 1, "%s%s%s", arg, sep, de->d_name);
        struct stat st;
        bool take = stat(p, &st) == 0 && S_ISREG(st.st_mode) && is_etdump(p);
        if (take && push2(out, p, NULL) != 0)
            rc = et_fail(err, ET_ERR_NOMEM, "out of memory");
        free(p);
        errno = 0;
    }
    if (rc == 0 && errno != 0)
        rc = et_fail(err, ET_ERR_IO, "%s: %s", arg, strerror(errno));
    closedir(d);
    if (rc == 0 && out->n == first)
        rc = et_fail(err, ET_ERR_IO, "%s: is a directory with no ETDump in it", arg);
    if (rc == 0)
        qsort(out->v + first, out->n - first, sizeof *out->v, cmp_str);
    return rc;
}

static int expand_glob(const char *arg, et_pathlist *out, et_error *err)
{
    glob_t g;
    int grc = glob(arg, GLOB_NOSORT, NULL, &g);
    if (grc == GLOB_NOMATCH || (grc == 0 && g.gl_pathc == 0)) {
        if (grc == 0)
            globfree(&g);
        return et_fail(err, ET_ERR_IO, "%s: no file matches this pattern", arg);
    }
    if (grc != 0)
        return et_fail(err, grc == GLOB_NOSPACE ? ET_ERR_NOMEM : ET_ERR_IO,
                       "%s: cannot expand this pattern (%s)", arg,
                       grc == GLOB_NOSPACE ? "out of memory" : "a directory cannot be read");
    int rc = 0;
    if (g.gl_pathc > ET_DUMPSET_MAX)
        rc = too_many(arg, err);
    size_t first = out->n;
    for (size_t i = 0; rc == 0 && i < g.gl_pathc; i++)
        if (push2(out, g.gl_pathv[i], NULL) != 0)
            rc = et_fail(err, ET_ERR_NOMEM, "out of memory");
    globfree(&g);
    if (rc == 0)
        qsort(out->v + first, out->n - first, sizeof *out->v, cmp_str);
    return rc;
}

int et_dumpset_expand(const char *arg, et_pathlist *out, et_error *err)
{
    struct stat st;
    if (stat(arg, &st) == 0 && S_ISDIR(st.st_mode))
        return expand_dir(arg, out, err);
    if (stat(arg, &st) != 0 && strpbrk(arg, "*?["))
        return expand_glob(arg, out, err);
    if (push2(out, arg, NULL) != 0)
        return et_fail(err, ET_ERR_NOMEM, "out of memory");
    return 0;
}

/* ------------------------------------------------------------------ */
/* Names */

typedef struct comp {
    const char *p;
    size_t n;
} comp;

typedef struct dpath {
    size_t index; /* in the caller's array */
    comp *c;      /* components, first to last */
    size_t nc;
    size_t need;  /* components the name takes */
    dev_t dev;
    ino_t ino;
    bool stat_ok;
} dpath;

/* Split `s` at '/' into its components, "" and "." left out. */
static comp *split(const char *s, size_t *nc)
{
    size_t cap = 1;
    for (const char *q = s; *q; q++)
        cap += *q == '/';
    comp *c = malloc(cap * sizeof *c);
    if (!c)
        return NULL;
    size_t n = 0;
    const char *q = s;
    while (*q) {
        const char *e = strchr(q, '/');
        size_t len = e ? (size_t)(e - q) : strlen(q);
        if (len && !(len == 1 && q[0] == '.'))
            c[n++] = (comp){q, len};
        q += len;
        if (*q == '/')
            q++;
    }
    *nc = n;
    return c;
}

/* Compare two paths by their components from the last one back. */
static int cmp_tail(const void *a, const void *b)
{
    const dpath *x = a, *y = b;
    for (size_t k = 1; k <= x->nc && k <= y->nc; k++) {
        const comp *cx = &x->c[x->nc - k], *cy = &y->c[y->nc - k];
        size_t m = cx->n < cy->n ? cx->n : cy->n;
        int r = memcmp(cx->p, cy->p, m);
        if (r == 0 && cx->n != cy->n)
            r = cx->n < cy->n ? -1 : 1;
        if (r != 0)
            return r;
    }
    return (x->nc > y->nc) - (x->nc < y->nc);
}

/* How many last components `x` and `y` have in common. */
static size_t common_tail(const dpath *x, const dpath *y)
{
    size_t k = 0;
    while (k < x->nc && k < y->nc) {
        const comp *cx = &x->c[x->nc - 1 - k], *cy = &y->c[y->nc - 1 - k];
        if (cx->n != cy->n || memcmp(cx->p, cy->p, cx->n) != 0)
            break;
        k++;
    }
    return k;
}

static int cmp_file(const void *a, const void *b)
{
    const dpath *x = a, *y = b;
    if (x->stat_ok != y->stat_ok)
        return x->stat_ok ? -1 : 1;
    if (x->dev != y->dev)
        return x->dev < y->dev ? -1 : 1;
    if (x->ino != y->ino)
        return x->ino < y->ino ? -1 : 1;
    return (x->index > y->index) - (x->index < y->index);
}

static int same_file(const char *const *paths, const dpath *x, const dpath *y, et_error *err)
{
    const dpath *a = x->index < y->index ? x : y, *b = x->index < y->index ? y : x;
    return et_fail(err, ET_ERR_USAGE, "%s and %s are the same file", paths[a->index],
                   paths[b->index]);
}

void et_dumpset_names_free(char **names, size_t n)
{
    if (!names)
        return;
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

int et_dumpset_names(const char *const *paths, size_t n, char ***names, et_error *err)
{
    *names = NULL;
    dpath *d = calloc(n ? n : 1, sizeof *d);
    char **out = calloc(n ? n : 1, sizeof *out);
    int rc = 0;
    if (!d || !out) {
        rc = et_fail(err, ET_ERR_NOMEM, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < n; i++) {
        d[i].index = i;
        d[i].c = split(paths[i], &d[i].nc);
        if (!d[i].c) {
            rc = et_fail(err, ET_ERR_NOMEM, "out of memory");
            goto done;
        }
        struct stat st;
        if (stat(paths[i], &st) == 0) {
            d[i].stat_ok = true;
            d[i].dev = st.st_dev;
            d[i].ino = st.st_ino;
        }
    }
    /* the same file under two spellings ("a.etdp", "x/../a.etdp") */
    qsort(d, n, sizeof *d, cmp_file);
    for (size_t i = 1; i < n; i++)
        if (d[i].stat_ok && d[i - 1].stat_ok && d[i].dev == d[i - 1].dev &&
            d[i].ino == d[i - 1].ino) {
            rc = same_file(paths, &d[i - 1], &d[i], err);
            goto done;
        }
    /* sorted by their tails, a path shares its longest tail with a
     * neighbour: its name is one component more than that */
    qsort(d, n, sizeof *d, cmp_tail);
    for (size_t i = 0; i < n; i++) {
        size_t k = 0;
        if (i > 0) {
            size_t t = common_tail(&d[i - 1], &d[i]);
            if (t == d[i].nc && t == d[i - 1].nc) {
                rc = same_file(paths, &d[i - 1], &d[i], err);
                goto done;
            }
            k = t;
        }
        if (i + 1 < n) {
            size_t t = common_tail(&d[i], &d[i + 1]);
            if (t > k)
                k = t;
        }
        d[i].need = k + 1 > d[i].nc ? d[i].nc : k + 1;
    }
    for (size_t i = 0; i < n; i++) {
        const dpath *p = &d[i];
        const char *path = paths[p->index];
        char *s;
        if (p->nc == 0) {
            s = strdup(path);
        } else {
            bool root = p->need == p->nc && path[0] == '/';
            size_t len = root;
            for (size_t k = p->nc - p->need; k < p->nc; k++)
                len += p->c[k].n + 1;
            s = malloc(len);
            if (s) {
                size_t at = 0;
                if (root)
                    s[at++] = '/';
                for (size_t k = p->nc - p->need; k < p->nc; k++) {
                    memcpy(s + at, p->c[k].p, p->c[k].n);
                    at += p->c[k].n;
                    s[at++] = k + 1 < p->nc ? '/' : '\0';
                }
            }
        }
        if (!s) {
            rc = et_fail(err, ET_ERR_NOMEM, "out of memory");
            goto done;
        }
        out[p->index] = s;
    }
done:
    if (d)
        for (size_t i = 0; i < n; i++)
            free(d[i].c);
    free(d);
    if (rc != 0) {
        et_dumpset_names_free(out, n);
        return rc;
    }
    *names = out;
    return 0;
}
