/*
 * test_warnings.c - the warning list (base/warnings.h): appending in
 * order with printf formats, clipping (ET_WARNING_MAX by default, any
 * bound with et_warnings_addn, none with SIZE_MAX), taking warnings back
 * (et_warnings_truncate), freeing and reusing the list; appending each
 * message once (et_warnings_add_once: whole, de-duplicated against every
 * item however it was added, right after a truncation, at 10^5 items).
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
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
    et_warnings_free(NULL); /* accepted: a crash here fails the test */

    /* appending once */
    et_warnings o = {0};
    is_int(et_warnings_add_once(&o, "a"), 1, "add_once: a new message is appended (1)");
    is_int(et_warnings_add_once(&o, "b"), 1, "add_once: another");
    is_int(et_warnings_add_once(&o, "a"), 0, "add_once: a message already there is not (0)");
    ok(o.n == 2 && strcmp(o.items[0], "a") == 0 && strcmp(o.items[1], "b") == 0,
       "... the list is a, b");
    is_int(et_warnings_add_once(&o, ""), 1, "add_once: the empty message");
    is_int(et_warnings_add_once(&o, ""), 0, "... once");
    ok(et_warnings_add_once(&o, big) == 1 && strlen(o.items[3]) == sizeof big - 1,
       "add_once keeps a long message whole (not clipped)");
    is_int(et_warnings_add_once(&o, big), 0, "... once");
    ok(et_warnings_add(&o, "added") == 0 && et_warnings_add_once(&o, "added") == 0 && o.n == 5,
       "add_once sees a warning et_warnings_add appended");
    ok(et_warnings_add(&o, "twice") == 0 && et_warnings_add(&o, "twice") == 0 && o.n == 7 &&
           et_warnings_add_once(&o, "twice") == 0 && et_warnings_add_once(&o, "c") == 1 &&
           o.n == 8,
       "add_once after et_warnings_add appended one message twice");

    /* truncated, then added again */
    et_warnings_truncate(&o, 2);
    ok(o.n == 2 && et_warnings_add_once(&o, "a") == 0 && et_warnings_add_once(&o, "b") == 0,
       "after a truncation: the kept messages still there");
    ok(et_warnings_add_once(&o, big) == 1 && et_warnings_add_once(&o, "c") == 1 &&
           et_warnings_add_once(&o, "added") == 1 && o.n == 5 && strcmp(o.items[4], "added") == 0,
       "... the messages taken back are new again");
    ok(et_warnings_add_once(&o, "c") == 0 && et_warnings_add_once(&o, "added") == 0,
       "... and once again");
    et_warnings_truncate(&o, 4);
    ok(o.n == 4 && et_warnings_add_once(&o, "added") == 1 && o.n == 5,
       "a truncation of the last message only");
    et_warnings_truncate(&o, 0);
    ok(o.n == 0 && et_warnings_add_once(&o, "a") == 1 && o.n == 1, "a truncation of everything");

    /* growth past many items: 10^5 distinct messages, each once, in order */
    et_warnings_free(&o);
    enum { MANY = 100000 };
    char m[64];
    int added = 0, again = 0;
    for (int i = 0; i < MANY; i++) {
        snprintf(m, sizeof m, "parser failed on event 'op_%d'", i);
        added += et_warnings_add_once(&o, m) == 1;
        if (i % 7 == 0) { /* an earlier one again */
            snprintf(m, sizeof m, "parser failed on event 'op_%d'", i / 2);
            again += et_warnings_add_once(&o, m) == 0;
        }
    }
    is_int(added, MANY, "10^5 distinct messages: each appended");
    is_int(again, (MANY + 6) / 7, "... repeats of earlier ones: not");
    is_int((long long)o.n, MANY, "... 10^5 warnings");
    int in_order = 1;
    for (int i = 0; i < MANY && in_order; i++) {
        snprintf(m, sizeof m, "parser failed on event 'op_%d'", i);
        in_order = strcmp(o.items[i], m) == 0;
    }
    ok(in_order, "... in the order given");
    et_warnings_truncate(&o, MANY / 2);
    snprintf(m, sizeof m, "parser failed on event 'op_%d'", MANY - 1);
    ok(et_warnings_add_once(&o, m) == 1 && o.n == MANY / 2 + 1, "... half taken back: one of them is new");
    snprintf(m, sizeof m, "parser failed on event 'op_%d'", 0);
    ok(et_warnings_add_once(&o, m) == 0, "... one kept is not");
    et_warnings_free(&o);
    ok(o.n == 0 && o.items == NULL && o.index == NULL, "freed: empty, without an index");
    ok(et_warnings_add_once(&o, "a") == 1 && et_warnings_add_once(&o, "a") == 0,
       "add_once on a freed list");
    et_warnings_free(&o);
    return done_testing();
}
