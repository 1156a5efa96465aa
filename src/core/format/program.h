/*
 * program.h - reading an ExecuTorch program (.pte, file identifier "ET12")
 * in place: its execution plans (methods) with their values, inputs,
 * outputs, operators, delegates and chains of instructions, the planned
 * memory (non_const_buffer_sizes), the constants, and the data segments
 * the extended header "eh00" places after the FlatBuffer
 * (schema/program.fbs; docs/programs.md).
 *
 * Layout: the FlatBuffer starts at byte 0 (root offset, then "ET12" at
 * byte 4).  An extended header may follow at byte 8, inside the
 * FlatBuffer's padding: "eh00", a u32 header length (>= 24), u64
 * program_size (bytes of the FlatBuffer from byte 0), u64
 * segment_base_offset (first byte of the segment data, 0 when there is
 * none) and, when the length is >= 32, u64 segment_data_size.  All
 * little-endian.  Without that header the whole file is the FlatBuffer.
 *
 * et_program_open() checks the header and verifies the whole FlatBuffer
 * once before anything is read: every table, vector and string of every
 * execution plan, every EValue's and Instruction's union type and member,
 * and the cross references the summary follows (a KernelCall's op_index
 * inside `operators`, a DelegateCall's delegate_index inside `delegates`,
 * each delegate's processed data inside backend_delegate_data or
 * `segments`, instruction arguments inside `values`, a jump's destination
 * inside its chain, constant_segment.segment_index inside `segments`) and
 * every segment inside the file.  The work is bounded by the buffer's size
 * (one table visit per 4 bytes at most).  After that the accessors below
 * read in place; they stay bounds-checked.
 *
 * Required here (the runtime dereferences them unchecked): ExecutionPlan
 * .name, Operator.name, BackendDelegate.id and .processed, and the member
 * of every EValue and Instruction (NONE refused).  Absent vectors read as
 * empty.
 *
 * Errors name the field path and byte offset (the caller prefixes the
 * file), e.g. "execution_plan[0].chains[0].instructions[3].instr_args:
 * byte 1234: KernelCall.op_index 7 is outside the method's 2 operators".
 */
#ifndef ET_PROGRAM_H
#define ET_PROGRAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "files/mapfile.h"
#include "format/etdump.h" /* et_str */
#include "format/fb.h"

/* Field slots (schema/program.fbs). */
enum {
    ETP_PROG_VERSION = 0, ETP_PROG_PLANS = 1, ETP_PROG_CONST_BUFFER = 2,
    ETP_PROG_DELEGATE_DATA = 3, ETP_PROG_SEGMENTS = 4, ETP_PROG_CONST_SEGMENT = 5,
    ETP_PROG_MUTABLE_SEGMENTS = 6, ETP_PROG_NAMED_DATA = 7,
    ETP_PLAN_NAME = 0, ETP_PLAN_META = 1, ETP_PLAN_VALUES = 2, ETP_PLAN_INPUTS = 3,
    ETP_PLAN_OUTPUTS = 4, ETP_PLAN_CHAINS = 5, ETP_PLAN_OPERATORS = 6, ETP_PLAN_DELEGATES = 7,
    ETP_PLAN_BUFFER_SIZES = 8, ETP_PLAN_BUFFER_DEVICE = 9,
    ETP_CHAIN_INPUTS = 0, ETP_CHAIN_OUTPUTS = 1, ETP_CHAIN_INSTRUCTIONS = 2,
    ETP_CHAIN_STACKTRACE = 3,
    ETP_INSTR_TYPE = 0, ETP_INSTR_ARGS = 1,
    ETP_OP_NAME = 0, ETP_OP_OVERLOAD = 1,
    ETP_DEL_ID = 0, ETP_DEL_PROCESSED = 1, ETP_DEL_SPECS = 2,
    ETP_REF_LOCATION = 0, ETP_REF_INDEX = 1,
    ETP_SPEC_KEY = 0, ETP_SPEC_VALUE = 1,
    ETP_SEG_OFFSET = 0, ETP_SEG_SIZE = 1,
    ETP_SUB_SEGMENT = 0, ETP_SUB_OFFSETS = 1,
    ETP_EVALUE_TYPE = 0, ETP_EVALUE_VAL = 1
};

/* Instruction kinds (InstructionArguments). */
typedef enum {
    ET_PINSTR_NONE = 0, ET_PINSTR_KERNEL = 1, ET_PINSTR_DELEGATE = 2, ET_PINSTR_MOVE = 3,
    ET_PINSTR_JUMP_FALSE = 4, ET_PINSTR_FREE = 5
} et_pinstr_kind;

/* EValue kinds (KernelTypes). */
typedef enum {
    ET_PVAL_NONE = 0, ET_PVAL_NULL = 1, ET_PVAL_INT = 2, ET_PVAL_BOOL = 3, ET_PVAL_DOUBLE = 4,
    ET_PVAL_TENSOR = 5, ET_PVAL_STRING = 6, ET_PVAL_INT_LIST = 7, ET_PVAL_DOUBLE_LIST = 8,
    ET_PVAL_BOOL_LIST = 9, ET_PVAL_TENSOR_LIST = 10, ET_PVAL_OPT_TENSOR_LIST = 11
} et_pval_kind;

/* An opened, verified program. */
typedef struct et_program {
    et_mapped_file file;       /* when opened with et_program_open_path */
    char *path;                /* that path (owned), or NULL */
    fb_buf buf;                /* the FlatBuffer: [0, program_size) */
    uint64_t file_size;        /* bytes given (FlatBuffer and segments) */
    bool extended_header;      /* "eh00" at byte 8 */
    uint64_t program_size;     /* FlatBuffer bytes (the file's size without the header) */
    uint64_t segment_base;     /* first byte of the segment data (0: none) */
    uint64_t segment_data_size; /* bytes of segment data (0 when the header has no such field) */
    uint32_t version;          /* Program.version */
    fb_vec plans;              /* execution_plan tables */
    fb_vec constant_buffer;    /* Buffer tables */
    fb_vec delegate_data;      /* BackendDelegateInlineData tables */
    fb_vec segments;           /* DataSegment tables */
    fb_vec mutable_segments;   /* SubsegmentOffsets tables */
    fb_vec named_data;         /* NamedData tables */
    bool has_constant_segment; /* constant_segment present */
    uint32_t constant_segment_index;
    fb_vec constant_offsets;   /* u64 elements */
    uint64_t num_instructions; /* over all methods and chains */
    uint32_t *by_name;         /* the methods' indices sorted by name (owned;
                                  et_program_find_method's index), or NULL */
} et_program;

/* One execution plan. */
typedef struct et_pmethod {
    et_str name;               /* always present once verified */
    fb_vec values, inputs, outputs, chains, operators, delegates, buffer_sizes;
} et_pmethod;

/* One instruction, decoded. */
typedef struct et_pinstr {
    et_pinstr_kind kind;
    uint32_t pos;              /* the member table (for messages) */
    int32_t index;             /* KernelCall.op_index, DelegateCall.delegate_index,
                                  MoveCall.move_from, JumpFalseCall.cond_value_index,
                                  FreeCall.value_index */
    int32_t index2;            /* MoveCall.move_to, JumpFalseCall.destination_instruction */
    fb_vec args;               /* int32 EValue indices (KernelCall, DelegateCall) */
} et_pinstr;

/* One delegate, with where its processed data lives. */
typedef struct et_pdelegate {
    et_str id;                 /* the backend id ("XnnpackBackend") */
    bool in_segment;           /* DataLocation SEGMENT, else INLINE */
    uint32_t index;            /* into segments or backend_delegate_data */
    uint64_t bytes;            /* the processed blob's size */
    uint64_t offset;           /* its first byte in the file */
    fb_vec compile_specs;      /* CompileSpec tables */
} et_pdelegate;

/* Open the program held in `data` (`size` bytes, which must stay valid
 * while `p` is used): check the identifier and extended header, verify
 * everything (see the top of this file).  Returns 0 with `p` ready, or -1
 * with `err` set (ET_ERR_FORMAT) to a message naming the field path and
 * byte offset (not the file: the caller prefixes it), or ET_ERR_NOMEM.
 * Release with et_program_close() (also after a failure). */
int et_program_open(et_program *p, const uint8_t *data, size_t size, et_error *err);

/* Map the file at `path` read-only (lazily: segments are not paged in)
 * and open it as by et_program_open.  Returns the program (free with
 * et_program_free), or NULL with `err` set: ET_ERR_IO ("PATH: No such file
 * or directory"), ET_ERR_FORMAT ("PATH: execution_plan[0]...: byte N:
 * ...") or ET_ERR_NOMEM. */
et_program *et_program_open_path(const char *path, et_error *err);

/* Free the method index and unmap a file mapped by et_program_open_path;
 * `p` becomes empty.  Safe on a zeroed struct. */
void et_program_close(et_program *p);

/* Close and free a program from et_program_open_path; NULL is accepted. */
void et_program_free(et_program *p);

/* Number of execution plans (methods). */
static inline uint32_t et_program_num_methods(const et_program *p) { return p->plans.count; }

/* Method `i` (< et_program_num_methods) into `m` (empty when out of range). */
void et_program_method(const et_program *p, uint32_t i, et_pmethod *m);

/* Index of the method named `name` (`n` bytes), or -1; the first in the
 * program's order when several have that name.  O(log methods). */
int32_t et_program_find_method(const et_program *p, const char *name, size_t n);

/* Number of instructions of `m` over all its chains. */
uint64_t et_pmethod_num_instructions(const et_program *p, const et_pmethod *m);

/* Instructions of chain `c` of `m` (an empty vector when out of range). */
fb_vec et_pmethod_chain_instructions(const et_program *p, const et_pmethod *m, uint32_t c);

/* Instruction `i` of the instruction vector `instrs` into `in` (kind
 * ET_PINSTR_NONE when out of range). */
void et_program_instruction(const et_program *p, const fb_vec *instrs, uint32_t i,
                            et_pinstr *in);

/* Instruction number `id` of `m`, counted over its chains in order (the
 * instruction id an ETDump event carries counts in chain 0; later chains
 * follow on).  False when `id` is out of range. */
bool et_pmethod_instruction_at(const et_program *p, const et_pmethod *m, uint64_t id,
                               et_pinstr *in);

/* Operator `i` of `m`: its name ("aten::add") and overload ("out"; empty
 * when absent).  False when out of range. */
bool et_pmethod_operator(const et_program *p, const et_pmethod *m, uint32_t i, et_str *name,
                         et_str *overload);

/* Write operator `i`'s full name "aten::add.out" (no dot when the
 * overload is empty) into `out` (capacity `cap`, truncated, always
 * NUL-terminated).  Empty when out of range. */
void et_pmethod_operator_name(const et_program *p, const et_pmethod *m, uint32_t i, char *out,
                              size_t cap);

/* Delegate `i` of `m` into `d`.  False when out of range. */
bool et_pmethod_delegate(const et_program *p, const et_pmethod *m, uint32_t i,
                         et_pdelegate *d);

/* Compile spec `i` of a delegate: key and value bytes.  False when out of
 * range. */
bool et_pdelegate_compile_spec(const et_program *p, const et_pdelegate *d, uint32_t i,
                               et_str *key, const uint8_t **value, uint32_t *value_len);

/* Entry `i` of the method's non_const_buffer_sizes (bytes; 0 when out of
 * range).  Entry 0 is reserved by the runtime and always 0. */
int64_t et_pmethod_buffer_size(const et_program *p, const et_pmethod *m, uint32_t i);

/* Kind of EValue `i` of `m` (ET_PVAL_NONE when out of range). */
et_pval_kind et_pmethod_value_kind(const et_program *p, const et_pmethod *m, uint32_t i);

/* Name of an EValue kind ("Tensor", "Int", ...; "None" for NONE). */
const char *et_pval_kind_name(et_pval_kind k);

/* Name of an instruction kind ("KernelCall", "DelegateCall", "MoveCall",
 * "JumpFalseCall", "FreeCall"; "None"). */
const char *et_pinstr_kind_name(et_pinstr_kind k);

/* Count the instructions of `m` over all its chains: `kinds[k]` the
 * instructions of kind k (ET_PINSTR_*; 6 entries), `op_calls[i]` the
 * KernelCalls of operator i (m->operators.count entries) and
 * `delegate_calls[i]` the DelegateCalls of delegate i
 * (m->delegates.count entries); each array zeroed first, NULL to skip. */
void et_pmethod_count(const et_program *p, const et_pmethod *m, uint64_t kinds[6],
                      uint64_t *op_calls, uint64_t *delegate_calls);

/* Segment `i`: its offset (from the segment base) and size.  False when
 * out of range. */
bool et_program_segment(const et_program *p, uint32_t i, uint64_t *offset, uint64_t *size);

/* Bytes of constant_buffer entry `i` (0 when out of range). */
uint64_t et_program_constant_buffer_bytes(const et_program *p, uint32_t i);

#endif
