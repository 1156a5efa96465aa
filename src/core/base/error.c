/* error.c - see error.h. */
#include "base/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int et_fail(et_error *err, et_error_kind kind, const char *fmt, ...)
{
    if (!err)
        return -1;
    err->kind = kind;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    return -1;
}

int et_error_prefix(et_error *err, const char *prefix)
{
    if (!err)
        return -1;
    et_join3(err->msg, sizeof err->msg, prefix, ": ", err->msg);
    return -1;
}

void et_join3(char *dst, size_t cap, const char *a, const char *sep, const char *b)
{
    if (cap == 0)
        return;
    size_t lb = strlen(b);
    char *copy = NULL;
    char small[1024];
    if (lb < sizeof small) {
        memcpy(small, b, lb + 1);
        b = small;
    } else if ((copy = malloc(lb + 1)) != NULL) {
        memcpy(copy, b, lb + 1);
        b = copy;
    } else {
        b = "";
        lb = 0;
    }
    const char *parts[3] = {a, sep, b};
    size_t at = 0;
    for (int i = 0; i < 3; i++) {
        size_t n = strlen(parts[i]);
        if (n > cap - 1 - at)
            n = cap - 1 - at;
        memcpy(dst + at, parts[i], n);
        at += n;
    }
    dst[at] = '\0';
    free(copy);
}

void et_error_clear(et_error *err)
{
    if (err) {
        err->kind = ET_ERR_NONE;
        err->msg[0] = '\0';
    }
}
