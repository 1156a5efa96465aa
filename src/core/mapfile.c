/* mapfile.c - see mapfile.h. */
#define _DEFAULT_SOURCE /* MAP_POPULATE (Linux) */
#include "mapfile.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

int et_map_file(et_mapped_file *mf, const char *path, et_error *err)
{
    memset(mf, 0, sizeof *mf);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return et_fail(err, ET_ERR_IO, "%s: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return et_fail(err, ET_ERR_IO, "%s: %s", path, strerror(e));
    }
    if (S_ISDIR(st.st_mode)) {
        close(fd);
        return et_fail(err, ET_ERR_IO, "%s: is a directory, expected a file", path);
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return et_fail(err, ET_ERR_IO, "%s: not a regular file", path);
    }
    if (st.st_size == 0) {
        close(fd);
        return 0;
    }
    if ((uintmax_t)st.st_size > SIZE_MAX) {
        close(fd);
        return et_fail(err, ET_ERR_IO, "%s: file too large to map", path);
    }
    size_t size = (size_t)st.st_size;
    /* the whole file is read (verified, then used): fault it in at once */
#ifdef MAP_POPULATE
    void *p = mmap(NULL, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
#else
    void *p = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
#endif
    int e = errno;
    close(fd);
    if (p == MAP_FAILED)
        return et_fail(err, ET_ERR_IO, "%s: cannot map file: %s", path, strerror(e));
    mf->data = p;
    mf->size = size;
    return 0;
}

void et_unmap_file(et_mapped_file *mf)
{
    if (mf->data)
        munmap((void *)mf->data, mf->size);
    memset(mf, 0, sizeof *mf);
}
