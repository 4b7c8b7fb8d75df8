/* opcodes.h — the decoded PTX instruction set, defined once (X-macro).
 *
 * X(NAME, "ptx mnemonic", "modifiers") — one line per opcode of the decoded form. The
 * list generates the enum (OP_NAME), the mnemonic table the decoder looks names up in,
 * the names used in messages and traces, and the modifiers the decoder accepts: every
 * modifier of an instruction that is not a type must be in its list (space-separated),
 * so a modifier the interpreter does not implement is refused by name instead of being
 * ignored. Modifiers (types, rounding, comparison, state space) are decoded into fields
 * of struct ptx_insn, not into separate opcodes. Opcodes with an empty mnemonic are
 * produced by the decoder only (never spelled in PTX that way).
 *
 * Some accepted modifiers change nothing here, on purpose: memory orderings and scopes
 * (one host memory, blocks run one warp at a time), cache and eviction hints, .aligned,
 * .uni, and .ftz of f32 (subnormals are kept: results differ from a GPU's only for them);
 * .noftz of half atomics is what they do anyway. The matrix instructions (wmma, mma,
 * ldmatrix, stmatrix, movmatrix), the video ones (vadd2...) and the texture and surface
 * ones are decoded apart (ptx_mma.c, ptx_insn.c, ptx_tex.c) into OP_MMA, OP_VIDEO and
 * OP_TEX, cp.async's forms (ptx_insn.c) into OP_CPASYNC, and mbarrier's, with
 * cp.async.mbarrier.arrive and the 1-D cp.async.bulk, into OP_MBAR.
 */
#ifndef PMPPLAB_EMU_OPCODES_H
#define PMPPLAB_EMU_OPCODES_H

/* Modifier groups of the list below. */
#define M_RND "rn rz rm rp "                 /* IEEE rounding of float arithmetic */
#define M_FARITH M_RND "ftz sat "            /* float arithmetic (.sat: clamp to [0, 1]) */
#define M_SCOPE "cta gpu sys "
#define M_ORDER "weak relaxed acquire release acq_rel volatile mmio " M_SCOPE
#define M_GSPACE "global shared shared::cta local const " /* spaces with generic addresses */
#define M_SPACE M_GSPACE "param "
#define M_CSPACE M_GSPACE "param param::entry " /* cvta, isspacep: kernel parameters too (sm_70) */
#define M_CACHE "ca cg cs lu cv wb wt nc L1::evict_normal L1::evict_unchanged "         \
	"L1::evict_first L1::evict_last L1::no_allocate L2::evict_normal L2::evict_first "  \
	"L2::evict_last L2::64B L2::128B L2::256B L2::cache_hint "
#define M_LD M_SPACE M_ORDER M_CACHE "v2 v4 "
#define M_ST M_LD
#define M_ATOM M_SPACE M_ORDER "add min max inc dec and or xor exch cas noftz "
#define M_CMP "eq ne lt le gt ge lo ls hi hs equ neu ltu leu gtu geu num nan and or xor ftz "
#define M_BAR "sync arrive red popc and or aligned cta "
#define M_TESTP "finite infinite number notanumber normal subnormal"
#define M_PRMT "f4e b4e rc8 ecl ecr rc16"
#define M_MINMAX "ftz NaN xorsign abs relu" /* .NaN .xorsign.abs: f16/bf16; .relu: 16x2, s32 */

#define PTX_OPCODES(X)                                                                   \
	X(MOV, "mov", "")                           /* d = a (registers, immediates, specials) */         \
	X(LD, "ld", M_LD)                           /* d = [a+off], .v2/.v4, any state space */           \
	X(LDU, "ldu", M_LD)                         /* same as ld (uniform load hint) */                  \
	X(ST, "st", M_ST)                           /* [a+off] = b, .v2/.v4 */                            \
	X(ADD, "add", M_FARITH "cc")                /* d = a + b (.sat for s32) */                        \
	X(SUB, "sub", M_FARITH "cc")                /* d = a - b */                                       \
	X(MUL, "mul", M_FARITH "lo hi wide")        /* d = a * b (.lo/.hi/.wide for integers) */          \
	X(MAD, "mad", M_FARITH "lo hi wide cc")     /* d = a * b + c (.lo/.hi/.wide; float = fma) */      \
	X(MUL24, "mul24", "lo hi")                  /* 24-bit multiply (.lo/.hi) */                       \
	X(MAD24, "mad24", "lo hi")                  /* 24-bit multiply-add */                             \
	X(ADDC, "addc", "cc")                       /* d = a + b + CC.CF (.cc: sets the carry) */         \
	X(SUBC, "subc", "cc")                       /* d = a - b - CC.CF (borrow) */                      \
	X(MADC, "madc", "lo hi cc")                 /* d = lo/hi(a * b) + c + CC.CF */                    \
	X(SAD, "sad", "")                           /* d = |a - b| + c */                                 \
	X(DIV, "div", M_RND "ftz approx full")      /* d = a / b (integer: x/0 gives all ones) */         \
	X(REM, "rem", "")                           /* d = a % b */                                       \
	X(ABS, "abs", "ftz")                        /* d = |a| */                                         \
	X(NEG, "neg", "ftz")                        /* d = -a */                                          \
	X(MIN, "min", M_MINMAX)                     /* d = min(a, b) */                                   \
	X(MAX, "max", M_MINMAX)                     /* d = max(a, b) */                                   \
	X(FMA, "fma", M_FARITH "relu")              /* d = a * b + c, rounded once (.relu: f16/bf16) */   \
	X(RCP, "rcp", M_RND "ftz approx")           /* d = 1 / a */                                       \
	X(SQRT, "sqrt", M_RND "ftz approx")         /* d = sqrt(a) */                                     \
	X(RSQRT, "rsqrt", "approx ftz")             /* d = 1 / sqrt(a) */                                 \
	X(SIN, "sin", "approx ftz")                 /* d = sin(a) (.approx) */                            \
	X(COS, "cos", "approx ftz")                 /* d = cos(a) (.approx) */                            \
	X(LG2, "lg2", "approx ftz")                 /* d = log2(a) (.approx) */                           \
	X(EX2, "ex2", "approx ftz")                 /* d = 2^a (.approx) */                               \
	X(TANH, "tanh", "approx ftz")               /* d = tanh(a) (.approx) */                           \
	X(COPYSIGN, "copysign", "")                 /* d = |b| with the sign of a */                      \
	X(TESTP, "testp", M_TESTP)                  /* p = class test of a (.finite .infinite .nan ...) */\
	X(AND, "and", "")                           /* d = a & b (also .pred) */                          \
	X(OR, "or", "")                             /* d = a | b */                                       \
	X(XOR, "xor", "")                           /* d = a ^ b */                                       \
	X(NOT, "not", "")                           /* d = ~a */                                          \
	X(CNOT, "cnot", "")                         /* d = a == 0 */                                      \
	X(LOP3, "lop3", "")                         /* d = LUT(a, b, c) */                                \
	X(SHL, "shl", "")                           /* d = a << b (b >= width gives 0) */                 \
	X(SHR, "shr", "")                           /* d = a >> b (arithmetic for .s) */                  \
	X(SHF, "shf", "l r wrap clamp")             /* funnel shift .l/.r .wrap/.clamp */                 \
	X(BFE, "bfe", "")                           /* bit-field extract */                               \
	X(BFI, "bfi", "")                           /* bit-field insert */                                \
	X(BREV, "brev", "")                         /* bit reverse */                                     \
	X(CLZ, "clz", "")                           /* count leading zeros */                             \
	X(POPC, "popc", "")                         /* population count */                                \
	X(BFIND, "bfind", "shiftamt")               /* position of the most significant non-sign bit */   \
	X(BMSK, "bmsk", "clamp wrap")               /* d = b bits set from bit a (.clamp/.wrap) */        \
	X(PRMT, "prmt", M_PRMT)                     /* byte permute (default mode and the 6 others) */    \
	X(DP4A, "dp4a", "")                         /* 4-way byte dot product and add */                  \
	X(DP2A, "dp2a", "lo hi")                    /* 2-way 16x8-bit dot product and add (exec_simd.c) */\
	X(FNS, "fns", "")                           /* the n-th set bit from a base (exec_simd.c) */      \
	X(SETP, "setp", M_CMP)                      /* p[|q] = a CMP b [BOOLOP c] */                      \
	X(SET, "set", M_CMP)                        /* d = a CMP b ? all ones (or 1.0f) : 0 */            \
	X(SELP, "selp", "")                         /* d = c ? a : b */                                   \
	X(SLCT, "slct", "ftz")                      /* d = c >= 0 ? a : b */                              \
	X(CVT, "cvt", M_RND "rna rni rzi rmi rpi ftz sat satfinite relu") /* conversions (f16/bf16/tf32: exec_half.c) */ \
	X(CVTA, "cvta", "to " M_CSPACE)             /* state-space address <-> generic address */         \
	X(ISSPACEP, "isspacep", M_CSPACE)           /* p = a is a generic address in the space */         \
	X(BRA, "bra", "uni")                        /* branch (divergent when guarded) */                 \
	X(BAR, "bar", M_BAR)                        /* bar.sync / bar.red / barrier.sync */               \
	X(BARRIER, "barrier", M_BAR)                /* barrier.sync (same as bar) */                      \
	X(BARWARP, "", "warp sync")                 /* bar.warp.sync: __syncwarp */                       \
	X(MEMBAR, "membar", "cta gl sys")           /* memory barrier: a no-op for one host memory */     \
	X(FENCE, "fence", "sc acq_rel acquire release " M_SCOPE) /* same as membar */                      \
	X(NOP, "", "")                              /* prefetch, nanosleep, pmevent: no effect here */    \
	X(ATOM, "atom", M_ATOM)                     /* d = old [a]; [a] = op([a], b[, c]) */              \
	X(RED, "red", M_ATOM)                       /* [a] = op([a], b) */                                \
	X(SHFL, "shfl", "sync up down bfly idx")    /* shfl.sync .up .down .bfly .idx */                  \
	X(VOTE, "vote", "sync all any uni ballot")  /* vote.sync .all .any .uni .ballot */                \
	X(MATCH, "match", "sync any all")           /* match.any.sync / match.all.sync */                 \
	X(REDUX, "redux", "sync add min max and or xor") /* redux.sync: add/min/max/and/or/xor */         \
	X(ACTIVEMASK, "activemask", "")             /* d = the mask of active lanes */                    \
	X(CALL, "call", "uni")                      /* call a .func with .param arguments */              \
	X(RET, "ret", "uni")                        /* return (exit in a kernel) */                       \
	X(EXIT, "exit", "")                         /* the thread ends */                                 \
	X(TRAP, "trap", "")                         /* abort the kernel (cudaErrorLaunchFailure) */       \
	X(BRKPT, "brkpt", "")                       /* breakpoint: treated like trap */                   \
	X(VPRINTF, "", "")                          /* call vprintf: device printf */                     \
	X(ASSERTFAIL, "", "")                       /* call __assertfail: device assert() failed */       \
	X(SETCONDITIONAL, "", "")                   /* call cudaGraphSetConditional: a graph's handle */  \
	X(MALLOC, "", "")                           /* call malloc: the device heap */                    \
	X(FREE, "", "")                             /* call free: the device heap */                      \
	X(CDP, "", "")                              /* call __cudaCDP2*: a device-side launch (exec_cdp.c) */ \
	X(UNPACK, "", "")                           /* mov.bN {a, b, ...}, x: split a register */         \
	X(PACK, "", "")                             /* mov.bN x, {a, b, ...}: join registers */           \
	X(CLOCK, "", "")                            /* mov from %clock/%clock64/%globaltimer */           \
	X(MMA, "", "")                              /* wmma, mma.sync, ldmatrix... (exec_mma.c, ptx_mma.c) */\
	X(HALF, "", "")                             /* f16/bf16 arithmetic (exec_half.c; target: the op) */\
	X(SIMD, "", "")                             /* 16x2 integers, .relu min/max (exec_simd.c) */      \
	X(VIDEO, "", "")                            /* vadd2, vabsdiff4... (exec_simd.c; mod: which) */   \
	X(TEX, "", "")                              /* tex, tld4, txq, suld, sust, suq (exec_tex.c, ptx_tex.c) */\
	X(CPASYNC, "", "")                          /* cp.async, commit_group, wait_group/all (exec_async.c) */\
	X(MBAR, "", "")                             /* mbarrier.*, cp.async.mbarrier.arrive, cp.async.bulk (exec_async.c) */\
	X(UNSUPPORTED, "", "")                      /* anything not emulated: faults with a message */

enum ptx_opcode {
#define PTX_OP_ENUM(name, mnem, mods) OP_##name,
	PTX_OPCODES(PTX_OP_ENUM)
#undef PTX_OP_ENUM
	OP__COUNT
};

#endif
