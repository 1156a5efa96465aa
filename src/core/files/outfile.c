/* outfile.c - see outfile.h. */
#define _GNU_SOURCE /* sync_file_range, fopencookie (Linux, glibc), guarded below */
#include "files/outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdint.h>
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
 * terminal, /dev/null, /dev/stdout, a FIFO): there is nothing to replace
 * and renaming over it would destroy it. */
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

int et_resolve_links(const char *path, char **out, et_error *err)
{
    char *cur = strdup(path);
    for (int hops = 0; cur; hops++) {
        struct stat ls;
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

int et_outfile_guard(const char *dest, const char *const *inputs, et_error *err)
{
    struct stat ds;
    if (stat(dest, &ds) != 0)
        return 0; /* nothing there yet: nothing to destroy */
    if (et_input_guard(dest, (uint64_t)ds.st_dev, (uint64_t)ds.st_ino, err))
        return -1;
    for (const char *const *in = inputs; in && *in; in++) {
        struct stat is;
        if (stat(*in, &is) == 0 && is.st_dev == ds.st_dev && is.st_ino == ds.st_ino)
            return et_fail(err, ET_ERR_USAGE,
                           "%s: refusing to overwrite an input file with output (the input %s)",
                           dest, *in);
    }
    return 0;
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

int et_outfile_open(et_outfile *of, const char *dest, const char *const *inputs, et_error *err)
{
    memset(of, 0, sizeof *of);
    of->temp_slot = -1;
    of->fd = -1;
    struct stat ds;
    if (stat(dest, &ds) == 0) {
        if (S_ISDIR(ds.st_mode))
            return et_fail(err, ET_ERR_IO, "%s: is a directory, expected a file path", dest);
        if (et_outfile_guard(dest, inputs, err) != 0)
            return -1;
        if (!S_ISREG(ds.st_mode))
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
    size_t n = strlen(dest);
    of->dest = strdup(dest);
    of->tmp = malloc(n + 8);
    if (!of->dest || !of->tmp) {
        release(of);
        return et_fail(err, ET_ERR_NOMEM, "out of memory");
    }
    memcpy(of->tmp, dest, n);
    memcpy(of->tmp + n, ".XXXXXX", 8);
    /* tracked before it exists: mkstemp fills the name in place */
    of->temp_slot = et_temp_track(of->tmp);
    int fd = mkstemp(of->tmp);
    if (fd < 0) {
        int e = errno;
        release(of);
        return et_fail(err, ET_ERR_IO, "%s: cannot create a file beside it: %s", dest,
                       strerror(e));
    }
    /* mkstemp makes 0600 files; give outputs the usual permissions */
    mode_t um = umask(0);
    umask(um);
    fchmod(fd, 0666 & ~um);
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
