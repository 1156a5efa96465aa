/* outfile.c - see outfile.h. */
#define _GNU_SOURCE /* sync_file_range, fopencookie (Linux, glibc), guarded below */
#include "files/outfile.h"

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "files/mapfile.h"

/* ---- temporary files removed on a signal ---------------------------------- */

#define TEMP_SLOTS 64

static char *_Atomic temps[TEMP_SLOTS];
static atomic_flag at_exit = ATOMIC_FLAG_INIT;

int et_temp_track(char *path)
{
    /* a file still registered at exit() was neither committed nor aborted
     * (os.exit in a callback during a write): it goes too */
    if (!atomic_flag_test_and_set(&at_exit))
        atexit(et_temp_remove_all);
    for (int i = 0; i < TEMP_SLOTS; i++) {
        char *expect = NULL;
        if (atomic_compare_exchange_strong(&temps[i], &expect, path))
            return i;
    }
    return -1;
}

void et_temp_untrack(int slot)
{
    if (slot >= 0 && slot < TEMP_SLOTS)
        atomic_store(&temps[slot], NULL);
}

void et_temp_remove_all(void)
{
    for (int i = 0; i < TEMP_SLOTS; i++) {
        char *p = atomic_exchange(&temps[i], NULL);
        if (p)
            unlink(p);
    }
}


/* Write straight into `dest`, which exists and is not a regular file (a
 * terminal, /dev/null, a FIFO): there is nothing to replace and renaming
 * over it would destroy it. */
static int open_direct(et_outfile *of, const char *dest, et_error *err)
{
    of->temp_slot = -1;
    if (!(of->dest = strdup(dest)))
        return et_fail(err, ET_ERR_NOMEM, "out of memory");
    if (!(of->fp = fopen(dest, "w"))) {
        int e = errno;
        free(of->dest);
        of->dest = NULL;
        return et_fail(err, ET_ERR_IO, "%s: %s", dest, strerror(e));
    }
    return 0;
}

/* ---- descriptors named as paths ------------------------------------------- */

/* Is `s` a decimal number of at most 9 digits?  Its value in *n. */
static int all_digits(const char *s, long *n)
{
    if (!*s || strlen(s) > 9)
        return 0;
    for (const char *c = s; *c; c++)
        if (*c < '0' || *c > '9')
            return 0;
    *n = atol(s);
    return 1;
}

/* The descriptor of this process that the path `p` itself (not what it
 * names) stands for: /dev/stdin, /dev/stdout, /dev/stderr, /dev/fd/N, or
 * an entry N of a directory that is /proc/PID/fd or /proc/PID/task/TID/fd
 * once resolved (/proc/self/fd, /proc/thread-self/fd) with PID this
 * process.  Returns N, -2 for another process's descriptor, -1 for none. */
static int descriptor_named(const char *p)
{
    static const char *const std[] = {"/dev/stdin", "/dev/stdout", "/dev/stderr"};
    for (int i = 0; i < 3; i++)
        if (strcmp(p, std[i]) == 0)
            return i;
    long n;
    if (strncmp(p, "/dev/fd/", 8) == 0 && all_digits(p + 8, &n))
        return (int)n;
    const char *slash = strrchr(p, '/');
    if (!slash || !all_digits(slash + 1, &n))
        return -1;
    char *dir = strndup(p, slash == p ? 1 : (size_t)(slash - p));
    char *real = dir ? realpath(dir, NULL) : NULL;
    free(dir);
    if (!real)
        return -1;
    long pid = -1, tid;
    int at = 0;
    if (!(sscanf(real, "/proc/%ld/fd%n", &pid, &at) == 1 && at && !real[at])) {
        at = 0;
        if (!(sscanf(real, "/proc/%ld/task/%ld/fd%n", &pid, &tid, &at) == 2 && at && !real[at]))
            pid = -1;
    }
    free(real);
    if (pid < 0)
        return -1;
    return pid == (long)getpid() ? (int)n : -2;
}

/* Follow the symbolic links `path` is, as et_resolve_links does; with
 * `fd` not NULL, stop at the first path of the chain that names a
 * descriptor (descriptor_named: its result in *fd, else -1). */
static int resolve(const char *path, char **out, int *fd, et_error *err)
{
    char *cur = strdup(path);
    if (fd)
        *fd = -1;
    for (int hops = 0; cur; hops++) {
        struct stat ls;
        if (fd && (*fd = descriptor_named(cur)) != -1) {
            *out = cur;
            return 0;
        }
        if (lstat(cur, &ls) != 0 || !S_ISLNK(ls.st_mode)) {
            *out = cur;
            return 0;
        }
        char buf[4096];
        ssize_t k = readlink(cur, buf, sizeof buf - 1);
        if (k < 0 || hops == 40) {
            int e = errno;
            free(cur);
            return et_fail(err, ET_ERR_IO, "%s: %s", path,
                           k < 0 ? strerror(e) : "too many levels of symbolic links");
        }
        buf[k] = 0;
        char *next;
        const char *slash = strrchr(cur, '/');
        if (buf[0] == '/' || !slash) {
            next = strdup(buf);
        } else { /* relative to the link's directory */
            size_t d = (size_t)(slash - cur) + 1;
            next = malloc(d + (size_t)k + 1);
            if (next) {
                memcpy(next, cur, d);
                memcpy(next + d, buf, (size_t)k + 1);
            }
        }
        free(cur);
        cur = next;
    }
    return et_fail(err, ET_ERR_NOMEM, "out of memory");
}

int et_resolve_links(const char *path, char **out, et_error *err)
{
    return resolve(path, out, NULL, err);
}

int et_outfile_descriptor(const char *path)
{
    char *hop;
    et_error err;
    int fd;
    if (resolve(path, &hop, &fd, &err) != 0)
        return -1;
    free(hop);
    return fd;
}

/* The guard for the file `ds` (stat) that `dest` names. */
static int guard_file(const char *dest, const struct stat *ds, const char *const *inputs,
                      et_error *err)
{
    if (et_input_guard(dest, (uint64_t)ds->st_dev, (uint64_t)ds->st_ino, err))
        return -1;
    for (const char *const *in = inputs; in && *in; in++) {
        struct stat is;
        if (stat(*in, &is) == 0 && is.st_dev == ds->st_dev && is.st_ino == ds->st_ino)
            return et_fail(err, ET_ERR_USAGE,
                           "%s: refusing to overwrite an input file with output (the input %s)",
                           dest, *in);
    }
    return 0;
}

int et_outfile_guard(const char *dest, const char *const *inputs, et_error *err)
{
    struct stat ds;
    if (stat(dest, &ds) != 0)
        return 0; /* nothing there yet: nothing to destroy */
    return guard_file(dest, &ds, inputs, err);
}

/* A regular file with other hard links is not replaced: the new file
 * would take this name only, and the other names would keep the old
 * contents without a word.  0, or -1 with `err` set. */
static int refuse_links(const char *dest, const struct stat *ds, et_error *err)
{
    if (!S_ISREG(ds->st_mode) || ds->st_nlink <= 1)
        return 0;
    return et_fail(err, ET_ERR_IO,
                   "%s: the file has %llu hard links; replacing it would leave the other "
                   "names with the old contents (remove them, or write elsewhere)",
                   dest, (unsigned long long)ds->st_nlink);
}

/* The descriptor `n` that `dest` names, for writing: 0, or -1 with `err`
 * set.  Its stat in *ds. */
static int check_descriptor(const char *dest, int n, struct stat *ds, const char *const *inputs,
                            et_error *err)
{
    int fl = fcntl(n, F_GETFL);
    if (fl < 0 || fstat(n, ds) != 0)
        return et_fail(err, ET_ERR_IO, "%s: descriptor %d is not open", dest, n);
    if ((fl & O_ACCMODE) == O_RDONLY)
        return et_fail(err, ET_ERR_IO, "%s: descriptor %d is not open for writing", dest, n);
    if (S_ISDIR(ds->st_mode))
        return et_fail(err, ET_ERR_IO, "%s: is a directory, expected a file path", dest);
    return guard_file(dest, ds, inputs, err);
}

int et_outfile_check(const char *dest, const char *const *inputs, et_error *err)
{
    if (!*dest)
        return et_fail(err, ET_ERR_USAGE, "the output path is empty");
    struct stat ds;
    int n = et_outfile_descriptor(dest);
    if (n >= 0)
        return check_descriptor(dest, n, &ds, inputs, err);
    if (stat(dest, &ds) != 0)
        return 0; /* nothing there yet (or unreachable: opening says why) */
    if (S_ISDIR(ds.st_mode))
        return et_fail(err, ET_ERR_IO, "%s: is a directory, expected a file path", dest);
    if (guard_file(dest, &ds, inputs, err) != 0)
        return -1;
    return n == -1 ? refuse_links(dest, &ds, err) : 0;
}

/* What `p` names, for et_outfile_clash: 0 with its stat in *st when it
 * exists, else 1 with its canonical path in *canon (free it): the links
 * followed, the directory made absolute.  *stream: written in place. */
static int identity(const char *p, struct stat *st, char **canon, int *stream)
{
    *canon = NULL;
    int n = et_outfile_descriptor(p);
    if (n >= 0 && fstat(n, st) == 0) {
        *stream = 1;
        return 0;
    }
    if (stat(p, st) == 0) {
        *stream = n != -1 || !S_ISREG(st->st_mode);
        return 0;
    }
    *stream = 0;
    char *target;
    et_error err;
    if (et_resolve_links(p, &target, &err) != 0)
        target = strdup(p);
    if (!target)
        return 1;
    const char *slash = strrchr(target, '/');
    char *dir = slash ? strndup(target, slash == target ? 1 : (size_t)(slash - target))
                      : strdup(".");
    char *real = dir ? realpath(dir, NULL) : NULL;
    free(dir);
    if (real) {
        const char *base = slash ? slash + 1 : target;
        size_t nr = strlen(real), nb = strlen(base);
        char *c = malloc(nr + nb + 2);
        if (c) {
            memcpy(c, real, nr);
            c[nr] = '/';
            memcpy(c + nr + 1, base, nb + 1);
            free(target);
            target = c;
        }
        free(real);
    }
    *canon = target;
    return 1;
}

int et_outfile_clash(const char *a, const char *b)
{
    struct stat sa, sb;
    char *ca, *cb;
    int stream_a, stream_b;
    int ka = identity(a, &sa, &ca, &stream_a), kb = identity(b, &sb, &cb, &stream_b);
    int same = 0;
    if (ka == 0 && kb == 0)
        same = sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    else if (ka == 1 && kb == 1)
        same = ca && cb && strcmp(ca, cb) == 0;
    free(ca);
    free(cb);
    /* two streams written in place, one after the other, lose nothing */
    return same && !(stream_a && stream_b);
}

/* Give up on a half-made outfile: free what it holds. */
static void release(et_outfile *of)
{
    et_temp_untrack(of->temp_slot);
    free(of->dest);
    free(of->tmp);
    memset(of, 0, sizeof *of);
    of->temp_slot = -1;
    of->fd = -1;
}

/* ---- a temporary file written back as it is written ---------------------- */

/* Without this, the kernel keeps what a writer writes in the page cache
 * until the commit's fsync, which then waits for all of it: 6 ms for
 * large.etdp's 5.5 MB TSV, 8 ms for its 22 MB of JSON.  The stream below
 * asks for the disk writes of each megabyte as soon as it is written
 * (sync_file_range, SYNC_FILE_RANGE_WRITE: start, do not wait), so they
 * overlap the writer's own work and the fsync finds little left. */
#if defined(__GLIBC__) && defined(SYNC_FILE_RANGE_WRITE)
#define WRITEBACK_SPAN (1u << 20)

/* The stream's cookie is the et_outfile's `wb`: no allocation of its own
 * (a process that exits without closing the stream - os.exit in a
 * callback - leaves nothing behind). */
static ssize_t wb_write(void *cookie, const char *buf, size_t n)
{
    et_outfile *of = cookie;
    size_t done = 0;
    while (done < n) {
        ssize_t k = write(of->fd, buf + done, n - done);
        if (k < 0) {
            if (errno == EINTR)
                continue;
            return (ssize_t)done; /* errno says why */
        }
        done += (size_t)k;
    }
    of->wb.written += done;
    if (of->wb.written - of->wb.kicked >= WRITEBACK_SPAN) {
        (void)sync_file_range(of->fd, (off_t)of->wb.kicked,
                              (off_t)(of->wb.written - of->wb.kicked), SYNC_FILE_RANGE_WRITE);
        of->wb.kicked = of->wb.written;
    }
    return (ssize_t)done;
}

static int wb_close(void *cookie)
{
    et_outfile *of = cookie;
    int rc = close(of->fd);
    of->fd = -1;
    return rc;
}

/* A stream writing to of->fd that starts the disk writes as it goes, or
 * NULL (errno set; the descriptor is left open). */
static FILE *open_stream(et_outfile *of)
{
    of->wb.written = of->wb.kicked = 0;
    cookie_io_functions_t io = {.read = NULL, .write = wb_write, .seek = NULL, .close = wb_close};
    FILE *f = fopencookie(of, "w", io);
    if (f)
        setvbuf(f, NULL, _IOFBF, 64u << 10);
    return f;
}
#else
static FILE *open_stream(et_outfile *of)
{
    return fdopen(of->fd, "w");
}
#endif

/* Write into descriptor `n` of this process, which `dest` names
 * (/dev/stdout, /proc/self/fd/N): through a copy of it, so that what it
 * is - a terminal, a pipe, a file opened for appending (>>) - is written
 * as the shell opened it, in place. */
static int open_descriptor(et_outfile *of, const char *dest, int n, const char *const *inputs,
                           et_error *err)
{
    struct stat ds;
    if (check_descriptor(dest, n, &ds, inputs, err) != 0)
        return -1;
    /* what this process already wrote there comes first */
    if (n == STDOUT_FILENO)
        fflush(stdout);
    else if (n == STDERR_FILENO)
        fflush(stderr);
    of->temp_slot = -1;
    if (!(of->dest = strdup(dest)))
        return et_fail(err, ET_ERR_NOMEM, "out of memory");
    int fd = fcntl(n, F_DUPFD_CLOEXEC, 3);
    if (fd < 0 || !(of->fp = fdopen(fd, "w"))) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        free(of->dest);
        of->dest = NULL;
        return et_fail(err, ET_ERR_IO, "%s: %s", dest, strerror(e));
    }
    return 0;
}

/* Give the temporary file `fd` the owner and mode of the file it
 * replaces (`old`), or the usual 0666 & ~umask for a new file (old
 * NULL).  0, or -1 with `err` set when the owner cannot be kept. */
static int keep_owner_and_mode(int fd, const char *dest, const struct stat *old, et_error *err)
{
    if (!old) {
        /* mkstemp makes 0600 files; give outputs the usual permissions */
        mode_t um = umask(0);
        umask(um);
        (void)fchmod(fd, 0666 & ~um);
        return 0;
    }
    struct stat now;
    if (fstat(fd, &now) != 0)
        return et_fail(err, ET_ERR_IO, "%s: %s", dest, strerror(errno));
    if ((now.st_uid != old->st_uid || now.st_gid != old->st_gid) &&
        (fchown(fd, old->st_uid, old->st_gid) != 0 || fstat(fd, &now) != 0 ||
         now.st_uid != old->st_uid || now.st_gid != old->st_gid))
        return et_fail(err, ET_ERR_IO,
                       "%s: cannot keep its owner (user %lu, group %lu) in the file that would "
                       "replace it; write it as its owner, or elsewhere",
                       dest, (unsigned long)old->st_uid, (unsigned long)old->st_gid);
    /* after fchown, which may clear the set-id bits */
    if (fchmod(fd, old->st_mode & 07777) != 0)
        return et_fail(err, ET_ERR_IO, "%s: cannot keep its permissions: %s", dest,
                       strerror(errno));
    return 0;
}

int et_outfile_open(et_outfile *of, const char *dest, const char *const *inputs, et_error *err)
{
    memset(of, 0, sizeof *of);
    of->temp_slot = -1;
    of->fd = -1;
    if (!*dest)
        return et_fail(err, ET_ERR_USAGE, "the output path is empty");
    /* a descriptor of this process, however named: written in place */
    int n = et_outfile_descriptor(dest);
    if (n >= 0)
        return open_descriptor(of, dest, n, inputs, err);
    struct stat ds;
    int exists = stat(dest, &ds) == 0;
    if (exists) {
        if (S_ISDIR(ds.st_mode))
            return et_fail(err, ET_ERR_IO, "%s: is a directory, expected a file path", dest);
        if (guard_file(dest, &ds, inputs, err) != 0)
            return -1;
        /* not a regular file (a terminal, /dev/null, a FIFO), or another
         * process's descriptor: written in place, as the shell's > does */
        if (!S_ISREG(ds.st_mode) || n == -2)
            return open_direct(of, dest, err);
    }
    /* a symbolic link: replace the file it names, not the link (a link
     * that cannot be followed is replaced, as before links were followed) */
    char *target;
    et_error lerr;
    if (et_resolve_links(dest, &target, &lerr) == 0) {
        int rc = strcmp(target, dest) != 0 ? et_outfile_open(of, target, inputs, err) : 1;
        free(target);
        if (rc != 1)
            return rc;
    }
    if (exists && refuse_links(dest, &ds, err) != 0)
        return -1;
    size_t len = strlen(dest);
    of->dest = strdup(dest);
    of->tmp = malloc(len + 8);
    if (!of->dest || !of->tmp) {
        release(of);
        return et_fail(err, ET_ERR_NOMEM, "out of memory");
    }
    memcpy(of->tmp, dest, len);
    memcpy(of->tmp + len, ".XXXXXX", 8);
    /* tracked before it exists: mkstemp fills the name in place */
    of->temp_slot = et_temp_track(of->tmp);
    int fd = mkstemp(of->tmp);
    if (fd < 0) {
        int e = errno;
        release(of);
        return et_fail(err, ET_ERR_IO, "%s: cannot create a file beside it: %s", dest,
                       strerror(e));
    }
    if (keep_owner_and_mode(fd, dest, exists ? &ds : NULL, err) != 0) {
        close(fd);
        unlink(of->tmp);
        release(of);
        return -1;
    }
    of->fd = fd;
    of->fp = open_stream(of);
    if (!of->fp) {
        int e = errno;
        close(fd);
        unlink(of->tmp);
        release(of);
        return et_fail(err, ET_ERR_IO, "%s: %s", dest, strerror(e));
    }
    return 0;
}

/* fsync the directory holding `path` (after a rename into it). */
static void sync_dir(const char *path)
{
    const char *slash = strrchr(path, '/');
    char *dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
    if (!dir)
        return;
    int fd = open(dir, O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        fsync(fd); /* best effort: some file systems refuse directories */
        close(fd);
    }
    free(dir);
}

int et_outfile_commit(et_outfile *of, et_error *err)
{
    int rc = 0, e = 0;
    if (fflush(of->fp) != 0 || ferror(of->fp))
        rc = -1, e = errno;
    /* on disk before it replaces anything (a direct output - a terminal,
     * a FIFO - cannot be synced and need not be) */
    if (rc == 0 && of->tmp && fsync(of->fd) != 0)
        rc = -1, e = errno;
    if (fclose(of->fp) != 0 && rc == 0)
        rc = -1, e = errno;
    of->fp = NULL;
    if (rc == 0 && of->tmp && rename(of->tmp, of->dest) != 0)
        rc = -1, e = errno;
    if (rc != 0) {
        if (of->tmp)
            unlink(of->tmp);
        et_fail(err, ET_ERR_IO, "%s: write failed: %s", of->dest, strerror(e ? e : EIO));
    } else if (of->tmp) {
        sync_dir(of->dest);
    }
    release(of);
    return rc;
}

/* Is `b`'s directory that of `a` (the text before the last '/')? */
static bool same_dir(const char *a, const char *b)
{
    const char *sa = strrchr(a, '/'), *sb = strrchr(b, '/');
    size_t na = sa ? (size_t)(sa - a) : 0, nb = sb ? (size_t)(sb - b) : 0;
    return na == nb && memcmp(a, b, na) == 0;
}

int et_outfile_commit_all(et_outfile *ofs, size_t n, et_error *err)
{
    size_t bad = n;
    int e = 0;
    for (size_t i = 0; i < n && bad == n; i++)
        if (ofs[i].fp && (fflush(ofs[i].fp) != 0 || ferror(ofs[i].fp)))
            bad = i, e = errno;
    /* every file's data first: the first fsync's journal commit carries
     * the others' along, whose own fsyncs then find little to do */
    for (size_t i = 0; i < n && bad == n; i++)
        if (ofs[i].tmp && fsync(ofs[i].fd) != 0)
            bad = i, e = errno;
    for (size_t i = 0; i < n; i++) {
        if (ofs[i].fp && fclose(ofs[i].fp) != 0 && bad == n)
            bad = i, e = errno;
        ofs[i].fp = NULL;
    }
    size_t renamed = 0;
    while (renamed < n && bad == n) {
        if (ofs[renamed].tmp && rename(ofs[renamed].tmp, ofs[renamed].dest) != 0)
            bad = renamed, e = errno;
        else
            renamed++;
    }
    if (bad != n)
        et_fail(err, ET_ERR_IO, "%s: write failed: %s", ofs[bad].dest, strerror(e ? e : EIO));
    /* the directories of the renamed files, each once */
    for (size_t i = 0; i < renamed; i++) {
        if (!ofs[i].tmp) /* aborted before: no file, no name */
            continue;
        bool seen = false;
        for (size_t k = 0; k < i && !seen; k++)
            seen = ofs[k].tmp && same_dir(ofs[k].dest, ofs[i].dest);
        if (!seen)
            sync_dir(ofs[i].dest);
    }
    for (size_t i = 0; i < n; i++) {
        if (i >= renamed && ofs[i].tmp)
            unlink(ofs[i].tmp);
        release(&ofs[i]);
    }
    return bad == n ? 0 : -1;
}

int et_outfile_fail(et_outfile *of, et_error *err)
{
    int e = errno;
    if (of->fp) {
        /* the stream's own error: flushing what is left fails the same way */
        clearerr(of->fp);
        if (fflush(of->fp) != 0)
            e = errno;
    }
    et_fail(err, ET_ERR_IO, "%s: write failed: %s", of->dest ? of->dest : "output",
            strerror(e ? e : EIO));
    et_outfile_abort(of);
    return -1;
}

void et_outfile_abort(et_outfile *of)
{
    if (of->fp)
        fclose(of->fp);
    if (of->tmp)
        unlink(of->tmp);
    release(of);
}
