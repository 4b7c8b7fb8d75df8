/* ptx_internal.h — the decoded form of a PTX module, shared by ptx*.c (decoder) and
 * exec*.c (interpreter). Not part of the public interface.
 *
 * Registers of a function live in one array of 64-bit slots per lane. Every operand is
 * a slot: declared registers, the special registers (%tid...), and one slot per distinct
 * immediate (filled when a frame is created), so instructions never test operand kinds.
 */
#ifndef PMPPLAB_EMU_PTX_INTERNAL_H
#define PMPPLAB_EMU_PTX_INTERNAL_H

#include <stdint.h>
#include <stddef.h>
#include "opcodes.h"
#include "ptx.h"

enum ptx_type {
	PT_NONE, PT_B8, PT_B16, PT_B32, PT_B64, PT_B128, PT_U8, PT_U16, PT_U32, PT_U64,
	PT_S8, PT_S16, PT_S32, PT_S64, PT_F16, PT_F16X2, PT_BF16, PT_BF16X2, PT_F32, PT_F64,
	PT_PRED, PT_U16X2, PT_S16X2, PT_TF32, PT__COUNT
};

enum ptx_space {
	SP_GENERIC, SP_GLOBAL, SP_SHARED, SP_LOCAL, SP_CONST, SP_KPARAM, SP_FPARAM, SP_TEX
};

/* Slots reserved at the start of every frame, in this order. */
enum ptx_sreg {
	SR_ZERO, SR_SINK, SR_TID_X, SR_TID_Y, SR_TID_Z, SR_NTID_X, SR_NTID_Y, SR_NTID_Z,
	SR_CTAID_X, SR_CTAID_Y, SR_CTAID_Z, SR_NCTAID_X, SR_NCTAID_Y, SR_NCTAID_Z, SR_LANEID,
	SR_WARPID, SR_NWARPID, SR_LANEMASK_EQ, SR_LANEMASK_LT, SR_LANEMASK_LE,
	SR_LANEMASK_GT, SR_LANEMASK_GE, SR_SMID, SR_NSMID, SR_GRIDID, SR_LOCALBASE, SR_CC,
	SR_ENVREG1, SR_ENVREG2, /* the grid's workspace address, high and low half (exec_grid.c) */
	SR__COUNT
};
_Static_assert(SR__COUNT <= 64, "ptx_module.sregs_named has a bit for each special register");

/* Modifier values (insn.mod) */
enum ptx_cmp {
	CMP_EQ, CMP_NE, CMP_LT, CMP_LE, CMP_GT, CMP_GE, CMP_LO, CMP_LS, CMP_HI, CMP_HS,
	CMP_EQU, CMP_NEU, CMP_LTU, CMP_LEU, CMP_GTU, CMP_GEU, CMP_NUM, CMP_NAN
};
enum ptx_boolop { BOOL_NONE, BOOL_AND, BOOL_OR, BOOL_XOR };
enum ptx_rnd {
	RND_NONE, RND_RN, RND_RZ, RND_RM, RND_RP, RND_RNI, RND_RZI, RND_RMI, RND_RPI,
	RND_RNA /* to nearest, ties away from zero (cvt.rna.tf32) */
};
/* OP_VIDEO's operation (insn.mod) and prmt's mode (insn.mod, 0: the default) */
enum ptx_video_op { VOP_ADD, VOP_SUB, VOP_AVRG, VOP_ABSDIFF, VOP_MIN, VOP_MAX, VOP_SET };
enum ptx_prmt_mode { PRMT_DEFAULT, PRMT_F4E, PRMT_B4E, PRMT_RC8, PRMT_ECL, PRMT_ECR, PRMT_RC16 };
enum ptx_mulmode { MUL_LO, MUL_HI, MUL_WIDE };
/* The device runtime's calls (dynamic parallelism, CUDA 12's CDP2 ABI) that OP_CDP
 * carries in its target: exec_cdp.c runs them. */
enum cdp_call {
	CDP_PARAM_BUFFER, /* __cudaCDP2GetParameterBufferV2(func, grid, block, shmem) */
	CDP_LAUNCH,       /* __cudaCDP2LaunchDeviceV2(buffer, stream) */
	CDP_STREAM_CREATE, CDP_STREAM_DESTROY, CDP_MALLOC, CDP_FREE,
	CDP_GET_LAST_ERROR, CDP_PEEK_AT_LAST_ERROR, CDP_GET_DEVICE,
	CDP_NCALLS
};
enum ptx_atomop {
	AOP_ADD, AOP_MIN, AOP_MAX, AOP_INC, AOP_DEC, AOP_AND, AOP_OR, AOP_XOR, AOP_EXCH, AOP_CAS
};
enum ptx_shflmode { SHFL_UP, SHFL_DOWN, SHFL_BFLY, SHFL_IDX };
enum ptx_votemode { VOTE_ALL, VOTE_ANY, VOTE_UNI, VOTE_BALLOT };
enum ptx_barmode { BAR_SYNC, BAR_ARRIVE, BAR_RED_POPC, BAR_RED_AND, BAR_RED_OR };
/* OP_CPASYNC's instruction (insn.mod). CPA_COPY: dst = s[0] + off (shared), src = s[1] +
 * s[2] (global), s[3] the bytes to read (src-size, else cp-size), s[4] the ignore-src
 * predicate (SR_ZERO when absent; neg_c: !p), vec = cp-size. CPA_WAIT: off = N. */
enum ptx_cpasync { CPA_COPY, CPA_COMMIT, CPA_WAIT, CPA_WAIT_ALL };
/* OP_MBAR's instruction (insn.mod; exec_async.c). The object: s[0] + off (space: shared
 * or generic). INIT: s[1] the count. ARRIVE: d[0] the state (nd 0: the sink `_`), s[1]
 * the count, s[2] the transaction bytes it expects first (.expect_tx). EXPECT_TX,
 * COMPLETE_TX: s[2] the bytes. TEST_WAIT, TRY_WAIT: d[0] the predicate, s[1] the state
 * or (MBF_PARITY) the phase parity. PENDING: d[0] = the count in state s[1]. CPA_ARRIVE:
 * cp.async.mbarrier.arrive. BULK: cp.async.bulk of s[3] bytes from global s[1] + s[2]
 * to shared s[0] + off, then complete_tx on the object at s[4] + s[5] (generic or
 * shared: in->vec). insn.mod2: MBF_* flags. */
enum ptx_mbar { MB_INIT, MB_INVAL, MB_ARRIVE, MB_EXPECT_TX, MB_COMPLETE_TX, MB_TEST_WAIT,
		MB_TRY_WAIT, MB_PENDING, MB_CPA_ARRIVE, MB_BULK };
#define MBF_DROP 0x01u       /* arrive_drop: the later phases expect fewer arrivals too */
#define MBF_NOCOMPLETE 0x02u /* .noComplete: must not complete the phase */
#define MBF_PARITY 0x04u     /* test_wait/try_wait.parity */
#define MBF_NOINC 0x08u      /* cp.async.mbarrier.arrive.noinc */
enum ptx_testp { TESTP_FINITE, TESTP_INFINITE, TESTP_NUMBER, TESTP_NOTANUMBER,
		 TESTP_NORMAL, TESTP_SUBNORMAL };

/* insn.flags */
#define PF_SAT 0x01u
#define PF_FTZ 0x02u
#define PF_APPROX 0x04u
#define PF_SHF_LEFT 0x08u  /* shf.l */
#define PF_SHF_WRAP 0x10u  /* shf .wrap */
#define PF_CC 0x20u        /* .cc: the instruction sets the carry flag (slot SR_CC) */
#define PF_CARRY 0x80u     /* .cc or addc/subc/madc: runs in exec_arith.c's carry_op() */
#define PF_FULL 0x40u      /* div.full */
/* insn.xmod: the modifiers of the half-precision, SIMD and video families (OP_HALF,
 * OP_SIMD, OP_VIDEO), which need more than flags holds */
#define PX_RELU 0x01u    /* .relu: negative results become +0 */
#define PX_NAN 0x02u     /* min/max .NaN: a NaN operand gives NaN */
#define PX_XORSIGN 0x04u /* min/max .xorsign.abs */
#define PX_ADD 0x08u     /* video .add: the lanes' results summed into c */
#define PX_BSIGNED 0x10u /* video: the second operand's type is signed */
#define PX_SATFINITE 0x20u /* cvt .satfinite: overflow gives the largest finite value */
#define PX_POLL 0x40u  /* ld .acquire/.relaxed/.volatile of global memory: what a spin loop
			* polls, the grid barrier's among them (exec_grid.c) */
/* insn.mod of bfind: BFIND_SHIFTAMT; of bmsk: BMSK_WRAP (else .clamp) */
#define BFIND_SHIFTAMT 1u
#define BMSK_WRAP 1u

#define PTX_NOPC 0xffffffffu /* no reconvergence point inside the function */

struct ptx_insn {
	uint8_t op;     /* enum ptx_opcode */
	uint8_t type;   /* enum ptx_type of the operation */
	uint8_t type2;  /* cvt: source type; setp/set: compare type for set's dest */
	uint8_t mod;    /* cmp / rnd / mulmode / atomop / shflmode / votemode / barmode */
	uint8_t mod2;   /* setp boolop; cvt: rnd; shfl... */
	uint8_t flags;  /* PF_* */
	uint8_t space;  /* enum ptx_space for ld/st/atom/red/cvta/isspacep; OP_VIDEO: the
			 * destination mask (bit i: element i is written, else taken from c) */
	uint8_t vec;    /* ld/st vector width (1, 2, 4); pack/unpack element count */
	uint8_t nd, ns; /* operand counts */
	uint8_t guard_neg;
	uint8_t cvta_to; /* cvta.to.space */
	int32_t guard;  /* predicate slot, or -1 */
	uint32_t d[4];  /* destination slots */
	uint32_t s[6];  /* source slots (ld/st/atom: s[0] is the address base) */
	int64_t off;    /* address offset (symbol address + immediate) */
	uint32_t target; /* bra: pc; call: function index (or PTX_CALL_INDIRECT);
			  * unsupported: message index */
	uint32_t reconv; /* bra: immediate post-dominator pc, or PTX_NOPC */
	uint32_t line;   /* .cu line (0 unknown) */
	uint16_t file;   /* index into module files (0 unknown) */
	uint16_t neg_c; /* setp: the boolean operand c is negated (!%p) */
	uint32_t iline; /* the position line/file was inlined at (0 none) */
	uint16_t ifile;
	uint8_t xmod;   /* PX_* (OP_HALF, OP_SIMD, OP_VIDEO) */
	uint8_t imm;    /* bit k: s[k] is an immediate's slot, one value in every lane
			 * (exec_loop.c reads it once instead of 32 times) */
};

/* The matrix instructions (wmma.load/store/mma, mma.sync, ldmatrix, stmatrix,
 * movmatrix: exec_mma.c): what the mnemonic says and the fragments' register lists, one
 * entry per instruction in module->mmas (insn.target indexes it). Address operands stay
 * in the instruction (s[0] + off), and wmma's ldm in s[1]. */
enum ptx_mma_kind {
	MMA_LOAD, MMA_STORE, MMA_WMMA, MMA_SYNC, MMA_LDMATRIX, MMA_STMATRIX, MMA_MOVMATRIX
};
/* the element types of the matrix instructions */
enum ptx_mtype { MT_F16, MT_BF16, MT_TF32, MT_F32, MT_F64, MT_S8, MT_U8, MT_S32, MT_B16 };
enum ptx_mfrag { MF_A, MF_B, MF_C, MF_D }; /* which fragment a load or store moves */
/* Bits of one element of a matrix type. */
static inline unsigned ptx_mtype_bits(unsigned t)
{
	return t == MT_F16 || t == MT_BF16 || t == MT_B16 ? 16 : t == MT_S8 || t == MT_U8 ? 8
	       : t == MT_F64 ? 64 : 32;
}
struct ptx_mma {
	uint8_t kind;          /* enum ptx_mma_kind */
	uint8_t m, n, k;       /* shape (ldmatrix: 8x8, k = the number of matrices) */
	uint8_t frag;          /* load/store: enum ptx_mfrag */
	uint8_t atype, btype, ctype, dtype; /* enum ptx_mtype; load/store: atype */
	uint8_t arow, brow;    /* layouts: 1 row-major (load/store: arow) */
	uint8_t satfinite;     /* s32 results clamped */
	uint8_t trans;         /* ldmatrix/stmatrix .trans */
	uint8_t na, nb, nc, nd; /* registers in each list */
	uint32_t a[8], b[8], c[8], d[8]; /* register slots (load/store/ldmatrix: d) */
};

/* Textures and surfaces (tex, tld4, txq, suld, sust, suq: exec_tex.c): one description
 * per instruction in module->texs (insn.target indexes it). The handle is s[0];
 * destinations are d[0..nd); s[1..] repeat the coordinates for the static analyses. */
enum ptx_tex_kind { TX_TEX, TX_TLD4, TX_TXQ, TX_SULD, TX_SUST, TX_SUQ };
struct ptx_tex {
	uint8_t kind;       /* enum ptx_tex_kind */
	uint8_t geom;       /* enum tex_geom (texture.h) */
	uint8_t float_out;  /* tex/tld4: .f32 results (else .s32/.u32) */
	uint8_t int_coords; /* tex: .s32 coordinates */
	uint8_t lod_mode;   /* tex: 0, 1 .level, 2 .grad */
	int8_t gather;      /* tld4: the component (0..3: r g b a) */
	uint8_t size;       /* suld/sust: bytes of one element (.b8 ... .b64) */
	uint8_t vec;        /* suld/sust: elements (1, 2, 4) */
	uint8_t mode;       /* suld/sust: enum surf_mode; txq/suq: enum tex_query */
	uint8_t ncoord;     /* spatial coordinates in c */
	uint8_t has_layer;
	uint32_t c[3], layer, lod; /* slots: coordinates, layer, .level's lod (txq.level) */
	uint32_t dx[3], dy[3];     /* .grad's gradients */
	uint32_t v[4];             /* sust: the values */
};

struct ptx_param {
	char *name;
	size_t size, align, offset;
};

struct ptx_func {
	char *name;
	int is_entry, is_extern, defined;
	int builtin; /* 0, or OP_VPRINTF / OP_ASSERTFAIL for known extern functions */
	struct ptx_param *params; unsigned nparams;
	struct ptx_param ret; int has_ret;
	size_t param_size;     /* kernel: size of the parameter buffer */
	size_t fparam_size;    /* bytes of per-lane .param storage of a frame */
	size_t local_size;     /* bytes of .local per thread for this function */
	size_t shared_size;    /* static .shared declared in this function */
	uint32_t *shsyms;      /* the .shared symbols (syms[] indices) it and its callees name */
	unsigned nshsyms;
	size_t shsyms_cap;
	int shared_dyn;        /* it or a callee names the dynamic (extern) .shared */
	unsigned nslots;       /* registers + specials + immediates */
	uint64_t *imm_vals; uint32_t *imm_slots; unsigned nimm;
	struct ptx_insn *code; unsigned ncode;
	unsigned line;         /* declaration line in the .ptx */
	uint32_t unsupported;  /* pc of the first OP_UNSUPPORTED reachable, or PTX_NOPC */
	uint32_t fparam_args_off; /* offset of the formal params in the frame's area */
	uint32_t fparam_ret_off;  /* offset of func_retval0 */
};

struct ptx_symbol {
	char *name;
	enum ptx_space space;
	devaddr_t addr;  /* global/const: device address */
	size_t size;
};

struct ptx_module {
	char *path;
	struct ptx_func *funcs; unsigned nfuncs;
	struct ptx_symbol *syms; unsigned nsyms;
	char **files; unsigned nfiles; /* index = .file number */
	char **messages; unsigned nmessages; /* unsupported-feature messages */
	uint32_t *callargs; unsigned ncallargs; /* call: argument .param offsets */
	struct ptx_mma *mmas; unsigned nmmas;   /* the matrix instructions' descriptions */
	struct ptx_tex *texs; unsigned ntexs;   /* the texture and surface instructions' */
	size_t shared_total;   /* all static .shared variables of the module, red zones included */
	size_t module_shared;  /* static .shared declared at module scope */
	size_t extern_shared_align;
	int grid_workspace;    /* some code reads %envreg1/2: cooperative groups' grid_group */
	uint64_t sregs_named;  /* bit s: some code of the module names special register s */
	unsigned code_id;      /* this module's part of the function addresses (below) */
};

/* Device functions as values (function pointers, vtables): function i of a module has
 * the address PTX_CODE_BASE + code_id << 32 + 16 * i, outside every host and devmem
 * address (not canonical on x86-64 and arm64), so a load or store through it faults and
 * a call through anything else is caught (exec_frames.c). Stable for a module's life;
 * each loaded module has its own code_id, as separately compiled code has its own. */
#define PTX_CODE_BASE 0x00c0de0000000000ull
#define PTX_CALL_INDIRECT PTX_NOPC /* call insn.target: through the address in s[0] */
uint64_t ptx_func_addr(const struct ptx_module *m, unsigned idx);
/* The function (or kernel) of m defined at ADDR, or NULL: NULL, data, an extern
 * function, another module's. */
const struct ptx_func *ptx_func_at(const struct ptx_module *m, uint64_t addr);
/* Nonzero when ADDR lies in the range of function addresses. */
static inline int ptx_is_code_addr(uint64_t addr)
{
	return (addr >> 40) == (PTX_CODE_BASE >> 40);
}

/* The poisoned gap the emulator leaves after each .shared array of SIZE bytes (and after
 * the dynamic one), so that an overrun of one array faults instead of landing in the
 * next (exec_memory.c). The emulator's layout only: the sizes a kernel reports are the
 * PTX's. A quarter of the array, at least 128 bytes, at most 64 KiB: off-by-one indices
 * and a row too far land in it. A multiple of 128 bytes, so every array keeps its
 * address modulo 128, hence its banks. */
static inline size_t ptx_shared_redzone(size_t size)
{
	size_t rz = (size / 4 + 127) & ~(size_t)127;
	return rz < 128 ? 128 : rz > (64u << 10) ? (64u << 10) : rz;
}

/* struct ptx_kernel is an entry function. */
struct ptx_kernel {
	struct ptx_func f;
};

const char *ptx_module_file(const struct ptx_module *m, unsigned idx);
const char *ptx_opcode_name(unsigned op);
unsigned ptx_type_size(unsigned t);
/* The same, inline for the interpreter's hot loop. */
static inline unsigned ptx_tsize(unsigned t)
{
	static const unsigned char sizes[PT__COUNT] = {
		0, 1, 2, 4, 8, 16, 1, 2, 4, 8, 1, 2, 4, 8, 2, 4, 2, 4, 4, 8, 1, 4, 4, 4,
	};
	return t < PT__COUNT ? sizes[t] : 0;
}
/* The mask of a type's bits in a 64-bit register (~0 for 64 bits and wider), by table:
 * the interpreter takes it for every instruction. */
static inline uint64_t ptx_tmask(unsigned t)
{
	static const uint64_t masks[PT__COUNT] = {
		0, 0xff, 0xffff, 0xffffffff, ~0ull, ~0ull, 0xff, 0xffff, 0xffffffff, ~0ull,
		0xff, 0xffff, 0xffffffff, ~0ull, 0xffff, 0xffffffff, 0xffff, 0xffffffff,
		0xffffffff, ~0ull, 0xff, 0xffffffff, 0xffffffff, 0xffffffff,
	};
	_Static_assert(PT__COUNT == 24, "a new type needs its size and mask in these tables");
	return t < PT__COUNT ? masks[t] : 0;
}
/* Nonzero for a CUDA toolkit header (lines there are reported at the user's call). */
int ptx_file_is_system(const char *path);

/* A register's bits as a float or double, and back (registers hold 64 bits). */
static inline float f32(uint64_t v)
{
	union { uint32_t u; float f; } x = { (uint32_t)v };
	return x.f;
}
static inline uint64_t mkf32(float f)
{
	union { float f; uint32_t u; } x = { f };
	return x.u;
}
static inline double f64(uint64_t v)
{
	union { uint64_t u; double f; } x = { v };
	return x.f;
}
static inline uint64_t mkf64(double f)
{
	union { double f; uint64_t u; } x = { f };
	return x.u;
}

#endif
