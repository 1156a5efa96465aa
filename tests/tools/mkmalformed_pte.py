#!/usr/bin/env python3
"""mkmalformed_pte.py - the malformed ExecuTorch programs of tests/malformed/programs.

Usage: mkmalformed_pte.py OUTDIR PTE_DIR

Writes OUTDIR/NAME.pte and OUTDIR/NAME.expect for each defect below, each
made from a sound program of PTE_DIR (tests/pte) by patching a few bytes
found by walking the FlatBuffer by hand (root offset, vtables, uoffsets;
schema/program.fbs field numbers).  NAME.expect holds a substring of the
error `etinspect NAME.pte` must print.  tests/e2e/program_malformed.t runs
them and checks that this script still makes the same bytes.
"""
import os
import struct
import sys


def u16(d, p): return struct.unpack_from("<H", d, p)[0]
def u32(d, p): return struct.unpack_from("<I", d, p)[0]
def i32(d, p): return struct.unpack_from("<i", d, p)[0]


def field(d, t, slot):
    """Absolute position of field `slot` of the table at `t`, or 0."""
    vt = t - i32(d, t)
    if 4 + 2 * slot + 2 > u16(d, vt):
        return 0
    off = u16(d, vt + 4 + 2 * slot)
    return t + off if off else 0


def deref(d, p): return p + u32(d, p)


def vec_table(d, v, i): return deref(d, v + 4 + 4 * i)


def walk(d):
    """Positions of the parts of the first method the defects patch."""
    w = {}
    root = u32(d, 0)
    w["root"] = root
    w["plans_vec"] = deref(d, field(d, root, 1))
    plan = vec_table(d, w["plans_vec"], 0)
    w["plan"] = plan
    w["plan_vt"] = plan - i32(d, plan)
    values = deref(d, field(d, plan, 2))
    w["value0"] = vec_table(d, values, 0)
    chains = deref(d, field(d, plan, 5))
    chain = vec_table(d, chains, 0)
    instrs = deref(d, field(d, chain, 2))
    w["instr0"] = vec_table(d, instrs, 0)
    member = deref(d, field(d, w["instr0"], 1))
    w["member"] = member
    w["args"] = deref(d, field(d, member, 1))
    ops = deref(d, field(d, plan, 6))
    op0 = vec_table(d, ops, 0)
    w["op0_name"] = deref(d, field(d, op0, 0))
    w["sizes"] = deref(d, field(d, plan, 8))
    segs = field(d, root, 4)
    w["segs"] = deref(d, segs) if segs else 0
    return w


def put32(b, p, v): struct.pack_into("<I", b, p, v & 0xffffffff)
def put64(b, p, v): struct.pack_into("<Q", b, p, v & 0xffffffffffffffff)


def main():
    out, src = sys.argv[1], sys.argv[2]
    add = open(os.path.join(src, "add.pte"), "rb").read()
    ard = open(os.path.join(src, "arduino_add.pte"), "rb").read()
    wa = walk(add)
    wr = walk(ard)
    cases = []

    def case(name, base, patch, expect):
        b = bytearray(base)
        b = patch(b) or b
        cases.append((name, bytes(b), expect))

    case("pte_short", add, lambda b: b[:6],
         "file is only 6 bytes, too short for an ExecuTorch program")
    case("pte_bad_identifier", add, lambda b: b.__setitem__(slice(4, 8), b"ET11"),
         'found "ET11": a program of another schema version')
    case("pte_root_offset_past_end", add, lambda b: put32(b, 0, 0x7ffffff0),
         "byte 0: root offset 2147483632 does not point inside the program's 728 bytes")
    case("pte_eh_length_short", ard, lambda b: put32(b, 12, 16),
         "byte 12: extended header length 16 is too short")
    case("pte_eh_program_size_past_end", ard, lambda b: put64(b, 16, len(ard) + 100),
         "byte 16: program_size %d is larger than the file" % (len(ard) + 100))
    case("pte_segment_data_truncated", ard, lambda b: b[:u32(ard, 24)],
         "byte 24: segment data of 4 bytes at byte 1152 runs past the end of the file")
    # segments[0].size (the DataSegment's field 1) made huge
    seg0 = vec_table(ard, wr["segs"], 0)
    case("pte_segment_size_huge", ard, lambda b: put64(b, field(ard, seg0, 1), 1 << 40),
         "segments[0]: byte %d: segment of 1099511627776 bytes at offset 0" % seg0)
    case("pte_plans_count_huge", add, lambda b: put32(b, wa["plans_vec"], 0x7fffffff),
         "execution_plan: byte %d: vector: vector of 2147483647 elements" % wa["plans_vec"])
    case("pte_plan_name_absent", add, lambda b: b.__setitem__(slice(wa["plan_vt"] + 4, wa["plan_vt"] + 6), b"\0\0"),
         "execution_plan[0]: byte %d: ExecutionPlan: required field 'name' is absent" % wa["plan"])
    case("pte_value_type_none", add, lambda b: b.__setitem__(field(add, wa["value0"], 0), 0),
         "execution_plan[0].values[0]: byte %d: val_type 0 is not a member of KernelTypes" % wa["value0"])
    case("pte_instr_type_bad", add, lambda b: b.__setitem__(field(add, wa["instr0"], 0), 9),
         "instructions[0]: byte %d: instr_args_type 9 is not a member of InstructionArguments" % wa["instr0"])
    case("pte_arg_index_out_of_range", add, lambda b: put32(b, wa["args"] + 4, 99),
         "instr_args.args[0]: byte %d: value index 99 is outside the method's 4 values" % (wa["args"] + 4))
    case("pte_operator_name_no_nul", add,
         lambda b: b.__setitem__(wa["op0_name"] + 4 + u32(add, wa["op0_name"]), ord("!")),
         "execution_plan[0].operators[0].name: byte %d: string is not NUL-terminated" % (wa["op0_name"] + 4 + u32(add, wa["op0_name"])))
    case("pte_buffer_size_negative", add, lambda b: put64(b, wa["sizes"] + 4 + 8, -1),
         "execution_plan[0].non_const_buffer_sizes[1]: byte %d: buffer size -1 is negative" % (wa["sizes"] + 12))
    # op_index is written only when not 0 (the default): the second
    # instruction of module_linear_no_constant_segment calls operator 1
    lin = open(os.path.join(src, "module_linear_no_constant_segment.pte"), "rb").read()
    wl = walk(lin)
    chain = vec_table(lin, deref(lin, field(lin, wl["plan"], 5)), 0)
    instr1 = vec_table(lin, deref(lin, field(lin, chain, 2)), 1)
    member1 = deref(lin, field(lin, instr1, 1))
    case("pte_op_index_out_of_range", lin, lambda b: put32(b, field(lin, member1, 0), 5),
         "execution_plan[0].chains[0].instructions[1].instr_args: byte %d: KernelCall.op_index 5 "
         "is outside the method's 2 operators" % member1)
    for name, data, expect in cases:
        with open(os.path.join(out, name + ".pte"), "wb") as f:
            f.write(data)
        with open(os.path.join(out, name + ".expect"), "w") as f:
            f.write(expect + "\n")


main()
