#!/usr/bin/python3
"""Regenerate the golden outputs of tests/unit/test_ptable.c.

Each NAME.txt in this directory is exactly what

    table = PrettyTable()
    table.title = TITLE          # skipped when TITLE is None
    table.add_rows(ROWS)
    table.field_names = NAMES    # set after the rows, as ExecuTorch's
    print(table)                 # legacy profiler parser does

prints with PrettyTable 3.6.0 (Debian 12: python3-prettytable 3.6.0-1, with
python3-wcwidth 0.2.5+dfsg1-1.1, UNICODE_VERSION unset).  test_ptable.c
builds the same tables as et_frame values and compares et_ptable_write()
with these files byte for byte; keep the two case lists in step.

    /usr/bin/python3 tests/ptable/gen.py            write the goldens
    /usr/bin/python3 tests/ptable/gen.py --wcwidth  print the C range tables
                                                    used by src/core/output/ptable.c

CI never runs this script; the goldens are committed.
"""
import io
import math
import os
import sys

import prettytable
from prettytable import PrettyTable

PROFILE = ["Name", "Chain", "Instr", "Frame"]

# (name, title, field names, rows)
CASES = [
    # profile_table(): block name as title, None in Frame, durations
    ("profile", "default",
     PROFILE + ["Iteration 0", "Iteration 1", "Iteration 2"],
     [("Method::execute", 0, -1, None, 12.340000000000002, 0.0123, 1.5),
      ("native_call_add.out", 0, 0, None, 0.0123, 3.0, 2.25),
      ("DELEGATE_CALL", 1, 1, None, 100.0, 1e-05, 8338.0),
      ("Method::init", 0, 2, None, 2, 0.30000000000000004, 1234567.0)]),
    # profile_framework_tax_table(): an empty first header
    ("framework_tax", "default framework tax calculations",
     ["", "Iteration 0", "Iteration 1"],
     [("Model execution time", 1.5, 2.0),
      ("Time spent in kernels and delegates", 1.3, 1.7),
      ("Framework tax (%)", 13.33, 15.0)]),
    # mem_profile_table()
    ("memory", "default",
     ["Allocator name", "Total size of allocations done"],
     [("scratch", 1024), ("activations", 4194304), ("planned", 0)]),
    # titles wider than the table: the columns grow in proportion (scale =
    # needed / present content width, each width floored), the last column
    # takes what flooring left over
    ("title_wide_exact", "A title much wider than all of the columns",
     ["a", "bb", "ccc"], [(1, 22, 333), ("x", "yy", "zzzz")]),
    ("title_wide_rest", "A title much wider than all of the columns!",
     ["a", "bb", "ccc"], [(1, 22, 333), ("x", "yy", "zzzz")]),
    ("title_wide_floor", "Thirty characters long title..",
     ["Name", "x"], [("abcd", 1), ("ab", 12)]),
    ("title_wide_zero_col", "A wide title over an empty column",
     ["", "a"], [("", 1)]),
    ("title_wide_one_col", "Only one narrow column under a long title",
     ["n"], [(7,), (None,)]),
    # titles narrower than the table: centred with odd and even excess
    ("title_narrow_odd", "x",
     ["Allocator name", "Total size of allocations done"],
     [("scratch", 1024)]),
    ("title_narrow_even", "xy",
     ["Allocator name", "Total size of allocations done"],
     [("scratch", 1024)]),
    ("title_exact", "Allocator name | Total size of allocations done",
     ["Allocator name", "Total size of allocations done"],
     [("scratch", 1024)]),
    # no rows: title, header, rule, bottom rule
    ("empty", "empty", PROFILE + ["Iteration 0"], []),
    ("empty_no_title", None, ["Allocator name", "Total size of allocations done"], []),
    ("empty_wide_title", "A title wider than the empty table", ["a", "b"], []),
    # a 32-character event name (the legacy dump's name field is 32 bytes)
    ("name32", "default", PROFILE + ["Iteration 0"],
     [("native_call_convolution.out_abcd", 0, 3, None, 0.5),
      ("x", 0, 4, None, 10.25)]),
    # non-ASCII: 2-byte UTF-8, East Asian wide, combining accent, emoji
    ("unicode", "Durations (μs)", ["Name", "Time (μs)", "注記"],
     [("μ-kernel", 1.5, "表格"), ("e\u0301t\u00e9", 22, "ok"),
      ("\U0001F642 smile", None, "")]),
    ("unicode_title", "表格の題名", ["a"], [(1,)]),
    # integers
    ("ints", "ints", ["n", "neg", "big"],
     [(0, -42, 9223372036854775807), (-1, -9223372036854775808, 12345678901234)]),
    # no title: no title rows, the table keeps its own width
    ("no_title", None, ["Allocator name", "Total size of allocations done"],
     [("scratch", 1024), ("activations", 4194304)]),
    ("title_empty_string", "", ["a", "b"], [(1, 2)]),
    # floats and bools as str() writes them
    ("floats", "floats", ["x", "y", "flag"],
     [(math.nan, math.inf, True), (-math.inf, 1e16, False), (-0.0, 5e-324, True),
      (0.1, 1.7976931348623157e308, None)]),
    # embedded newlines: one table line per cell line, padded below
    ("multiline", "lines", ["Name", "Value"],
     [("first\nsecond line\n3rd", 1), ("one", "a\nb"), ("", "\n")]),
    # PrettyTable measures with wcwidth.wcswidth(), which is -1 for a string
    # holding a control character; these reproduce what it then prints
    ("control", "ctl", ["tab\there", "ok", "new\nline"],
     [("a\tb", "\x1b[1mbold\x1b[0m", 1), ("\x01", "\x1b(Bx", "y")]),
    ("control_title", "two\nlines", ["a"], [("x",)]),
    ("control_shrink", "A long title here", ["a\tb", "c"], []),
    # bytes that are not UTF-8 (etinspect's text is bytes; Python would hold
    # them decoded with "surrogateescape", one code point per stray byte)
    # and a NUL character (width 0)
    ("stray_bytes", "bytes \udcff",
     ["raw", "n"],
     [(b"ab\xffcd".decode("utf-8", "surrogateescape"), 1),
      (b"\xe4\xb8 cut".decode("utf-8", "surrogateescape"), 2),
      (b"\xed\xa0\x80\xc0\xaf".decode("utf-8", "surrogateescape"), 3),
      ("a\x00b", 4)]),
    # a table without columns (no title: with one PrettyTable raises)
    ("no_columns", None, [], [(), ()]),
    ("no_columns_no_rows", None, [], []),
]


def render(title, names, rows):
    table = PrettyTable()
    if title is not None:
        table.title = title
    table.add_rows(rows)
    table.field_names = names
    buf = io.StringIO()
    print(table, file=buf)
    return buf.getvalue()


def write_goldens(outdir):
    assert prettytable.__version__ == "3.6.0", prettytable.__version__
    for name, title, names, rows in CASES:
        text = render(title, names, rows)
        with open(os.path.join(outdir, name + ".txt"), "w", encoding="utf-8",
                  errors="surrogateescape", newline="") as fp:
            fp.write(text)
        print("wrote", name + ".txt")


def print_wcwidth_tables():
    """The two wcwidth 0.2.5 interval tables PrettyTable measures with."""
    import wcwidth
    from wcwidth.table_wide import WIDE_EASTASIAN
    from wcwidth.table_zero import ZERO_WIDTH

    version = wcwidth.list_versions()[-1]
    for cname, table in (("pt_zero", ZERO_WIDTH[version]),
                         ("pt_wide", WIDE_EASTASIAN[version])):
        if cname == "pt_wide":
            print()
        print("/* wcwidth %s (Debian 12), Unicode %s: %s */" % (
            wcwidth.__version__ if hasattr(wcwidth, "__version__") else "",
            version, "ZERO_WIDTH" if cname == "pt_zero" else "WIDE_EASTASIAN"))
        print("static const pt_range %s[] = {" % cname)
        items = ["{0x%05X, 0x%05X}" % (a, b) for a, b in table]
        for i in range(0, len(items), 4):
            print("    " + ", ".join(items[i:i + 4]) + ",")
        print("};")


if __name__ == "__main__":
    if sys.argv[1:] == ["--wcwidth"]:
        print_wcwidth_tables()
    else:
        write_goldens(os.path.dirname(os.path.abspath(__file__)))
