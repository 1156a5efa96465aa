/*
 * test_warnings.c - the warning list (base/warnings.h): appending in
 * order with printf formats, clipping (ET_WARNING_MAX by default, any
 * bound with et_warnings_addn, none with SIZE_MAX), taking warnings back
 * (et_warnings_truncate), freeing and reusing the list.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/warnings.h"
#include "tap.h"

/* et_warnings_vaddn through a variadic wrapper, as its callers use it. */
static int add_v(et_warnings *w, size_t max, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = et_warnings_vaddn(w, max, fmt, ap);
    va_end(ap);
    return rc;
}

int main(void)
{
    et_warnings w = {0};
    is_int((long long)w.n, 0, "a zeroed list is empty");
    et_warnings_truncate(&w, 3);
    is_int((long long)w.n, 0, "truncating an empty list keeps it empty");

    ok(et_warnings_add(&w, "%s: %d events", "a.etdp", 3) == 0, "add returns 0");
    ok(et_warnings_add(&w, "plain") == 0, "add without arguments");
    ok(et_warnings_add(&w, "%s", "") == 0, "an empty warning");
    is_int((long long)w.n, 3, "three warnings");
    is_str(w.items[0], "a.etdp: 3 events", "the first, formatted");
    is_str(w.items[1], "plain", "the second");
    is_str(w.items[2], "", "the third, empty");

    /* clipping */
    char big[3000];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = 0;
    ok(et_warnings_add(&w, "<%s>", big) == 0, "a long warning");
    is_int((long long)strlen(w.items[3]), ET_WARNING_MAX, "clipped to ET_WARNING_MAX bytes");
    ok(w.items[3][0] == '<' && w.items[3][ET_WARNING_MAX - 1] == 'x',
       "the clipped warning is the text's beginning");
    ok(et_warnings_addn(&w, 511, "%s", big) == 0 && strlen(w.items[4]) == 511,
       "et_warnings_addn clips to its bound (511)");
    ok(et_warnings_addn(&w, SIZE_MAX, "%s!", big) == 0 && strlen(w.items[5]) == sizeof big &&
           w.items[5][sizeof big - 1] == '!',
       "SIZE_MAX: not clipped");
    ok(et_warnings_addn(&w, 5, "%s", "short") == 0 && strcmp(w.items[6], "short") == 0,
       "a warning exactly at its bound is whole");
    ok(add_v(&w, ET_WARNING_MAX, "%d-%s", 7, "v") == 0 && strcmp(w.items[7], "7-v") == 0,
       "et_warnings_vaddn with a va_list");
    is_int((long long)w.n, 8, "eight warnings, in order");

    /* taking warnings back */
    et_warnings_truncate(&w, 10);
    is_int((long long)w.n, 8, "truncating to more than there are changes nothing");
    et_warnings_truncate(&w, 2);
    is_int((long long)w.n, 2, "truncate keeps the first n");
    is_str(w.items[1], "plain", "... unchanged");
    ok(et_warnings_add(&w, "again") == 0 && w.n == 3 && strcmp(w.items[2], "again") == 0,
       "appending after a truncation");

    /* freeing, and the list used again */
    et_warnings_free(&w);
    ok(w.n == 0 && w.items == NULL, "freed: empty");
    ok(et_warnings_add(&w, "reused") == 0 && w.n == 1 && strcmp(w.items[0], "reused") == 0,
       "a freed list can be used again");
    et_warnings_free(&w);
    et_warnings_free(NULL);
    ok(1, "et_warnings_free(NULL) is accepted");
    return done_testing();
}
