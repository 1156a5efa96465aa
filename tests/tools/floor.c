/*
 * floor - the physical floor of reading a file: map it (MAP_POPULATE, so
 * every page is read in) and copy it once into fresh memory.  `make bench`
 * measures it beside etinspect and prints every figure as a ratio to it
 * (docs/performance.md).
 *
 *   floor FILE
 *
 * Prints nothing on success (exit 0); a sum of the copy's bytes is folded
 * into the exit path so the copy cannot be optimised away.  Exit 1 with a
 * message naming the file when it cannot be opened, mapped or copied.
 */
#define _DEFAULT_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: floor FILE\n");
        return 2;
    }
    int fd = open(argv[1], O_RDONLY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || st.st_size <= 0) {
        fprintf(stderr, "floor: %s: cannot open, or empty\n", argv[1]);
        return 1;
    }
    size_t n = (size_t)st.st_size;
    void *m = mmap(NULL, n, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
    if (m == MAP_FAILED) {
        fprintf(stderr, "floor: %s: cannot map %zu bytes\n", argv[1], n);
        return 1;
    }
    uint8_t *copy = malloc(n);
    if (!copy) {
        fprintf(stderr, "floor: %s: out of memory for %zu bytes\n", argv[1], n);
        return 1;
    }
    memcpy(copy, m, n);
    /* read the copy back one byte per page: the copy must exist */
    volatile uint8_t sum = 0;
    for (size_t i = 0; i < n; i += 4096)
        sum = (uint8_t)(sum + copy[i]);
    free(copy);
    munmap(m, n);
    close(fd);
    return sum == 0 && n == 0; /* always 0 */
}
