/* opcodes.h — the decoded PTX instruction set, defined once (X-macro).
 *
 * X(NAME, "ptx mnemonic") — one line per opcode of the decoded form. The list generates
 * the enum (OP_NAME), the mnemonic table the decoder looks names up in, and the names
 * used in messages and traces. Modifiers (types, rounding, comparison, state space) are
 * decoded into fields of struct ptx_insn, not into separate opcodes. Opcodes with an
 * empty mnemonic are produced by the decoder only (never spelled in PTX that way).
 */
#ifndef PMPPLAB_EMU_OPCODES_H
#define PMPPLAB_EMU_OPCODES_H

#define PTX_OPCODES(X)                                                                   \
	X(MOV, "mov")               /* d = a (registers, immediates, symbols, specials) */  \
	X(LD, "ld")                 /* d = [a+off], .v2/.v4, any state space */             \
	X(LDU, "ldu")               /* same as ld (uniform load hint) */                     \
	X(ST, "st")                 /* [a+off] = b, .v2/.v4 */                               \
	X(ADD, "add")               /* d = a + b (.sat for s32) */                           \
	X(SUB, "sub")               /* d = a - b */                                          \
	X(MUL, "mul")               /* d = a * b (.lo/.hi/.wide for integers) */             \
	X(MAD, "mad")               /* d = a * b + c (.lo/.hi/.wide; float = fma) */         \
	X(MUL24, "mul24")           /* 24-bit multiply (.lo/.hi) */                          \
	X(MAD24, "mad24")           /* 24-bit multiply-add */                                \
	X(ADDC, "addc")             /* d = a + b + CC.CF (.cc: sets the carry) */             \
	X(SUBC, "subc")             /* d = a - b - CC.CF (borrow) */                         \
	X(MADC, "madc")             /* d = lo/hi(a * b) + c + CC.CF */                       \
	X(SAD, "sad")               /* d = |a - b| + c */                                    \
	X(DIV, "div")               /* d = a / b (integer: x/0 gives all ones) */            \
	X(REM, "rem")               /* d = a % b */                                          \
	X(ABS, "abs")               /* d = |a| */                                            \
	X(NEG, "neg")               /* d = -a */                                             \
	X(MIN, "min")               /* d = min(a, b) */                                      \
	X(MAX, "max")               /* d = max(a, b) */                                      \
	X(FMA, "fma")               /* d = a * b + c, rounded once */                        \
	X(RCP, "rcp")               /* d = 1 / a */                                          \
	X(SQRT, "sqrt")             /* d = sqrt(a) */                                        \
	X(RSQRT, "rsqrt")           /* d = 1 / sqrt(a) */                                    \
	X(SIN, "sin")               /* d = sin(a) (.approx) */                               \
	X(COS, "cos")               /* d = cos(a) (.approx) */                               \
	X(LG2, "lg2")               /* d = log2(a) (.approx) */                              \
	X(EX2, "ex2")               /* d = 2^a (.approx) */                                  \
	X(TANH, "tanh")             /* d = tanh(a) (.approx) */                              \
	X(COPYSIGN, "copysign")     /* d = |b| with the sign of a */                         \
	X(TESTP, "testp")           /* p = class test of a (.finite .infinite .nan ...) */   \
	X(AND, "and")               /* d = a & b (also .pred) */                             \
	X(OR, "or")                 /* d = a | b */                                          \
	X(XOR, "xor")               /* d = a ^ b */                                          \
	X(NOT, "not")               /* d = ~a */                                             \
	X(CNOT, "cnot")             /* d = a == 0 */                                         \
	X(LOP3, "lop3")             /* d = LUT(a, b, c) */                                   \
	X(SHL, "shl")               /* d = a << b (b >= width gives 0) */                    \
	X(SHR, "shr")               /* d = a >> b (arithmetic for .s) */                     \
	X(SHF, "shf")               /* funnel shift .l/.r .wrap/.clamp */                    \
	X(BFE, "bfe")               /* bit-field extract */                                  \
	X(BFI, "bfi")               /* bit-field insert */                                   \
	X(BREV, "brev")             /* bit reverse */                                        \
	X(CLZ, "clz")               /* count leading zeros */                                \
	X(POPC, "popc")             /* population count */                                   \
	X(BFIND, "bfind")           /* position of the most significant non-sign bit */      \
	X(PRMT, "prmt")             /* byte permute (default mode) */                        \
	X(DP4A, "dp4a")             /* 4-way byte dot product and add */                     \
	X(SETP, "setp")             /* p[|q] = a CMP b [BOOLOP c] */                         \
	X(SET, "set")               /* d = a CMP b ? all ones (or 1.0f) : 0 */               \
	X(SELP, "selp")             /* d = c ? a : b */                                      \
	X(SLCT, "slct")             /* d = c >= 0 ? a : b */                                 \
	X(CVT, "cvt")               /* conversions, rounding modes, .sat */                  \
	X(CVTA, "cvta")             /* state-space address <-> generic address */            \
	X(ISSPACEP, "isspacep")     /* p = a is a generic address in the space */            \
	X(BRA, "bra")               /* branch (divergent when guarded) */                    \
	X(BAR, "bar")               /* bar.sync / bar.red / barrier.sync */                  \
	X(BARRIER, "barrier")       /* barrier.sync (same as bar) */                         \
	X(BARWARP, "")              /* bar.warp.sync: __syncwarp */                          \
	X(MEMBAR, "membar")         /* memory barrier: a no-op for one host memory */        \
	X(FENCE, "fence")           /* same as membar */                                     \
	X(NOP, "")                  /* prefetch, nanosleep, pmevent: no effect here */       \
	X(ATOM, "atom")             /* d = old [a]; [a] = op([a], b[, c]) */                 \
	X(RED, "red")               /* [a] = op([a], b) */                                   \
	X(SHFL, "shfl")             /* shfl.sync .up .down .bfly .idx */                     \
	X(VOTE, "vote")             /* vote.sync .all .any .uni .ballot */                   \
	X(MATCH, "match")           /* match.any.sync / match.all.sync */                    \
	X(REDUX, "redux")           /* redux.sync: add/min/max/and/or/xor over the warp */    \
	X(ACTIVEMASK, "activemask") /* d = the mask of active lanes */                       \
	X(CALL, "call")             /* call a .func with .param arguments */                 \
	X(RET, "ret")               /* return (exit in a kernel) */                          \
	X(EXIT, "exit")             /* the thread ends */                                    \
	X(TRAP, "trap")             /* abort the kernel (cudaErrorLaunchFailure) */          \
	X(BRKPT, "brkpt")           /* breakpoint: treated like trap */                      \
	X(VPRINTF, "")              /* call vprintf: device printf into the block buffer */  \
	X(ASSERTFAIL, "")           /* call __assertfail: device assert() failed */          \
	X(UNPACK, "")               /* mov.bN {a, b, ...}, x: split a register */            \
	X(PACK, "")                 /* mov.bN x, {a, b, ...}: join registers */              \
	X(CLOCK, "")                /* mov from %clock/%clock64/%globaltimer */              \
	X(UNSUPPORTED, "")          /* anything not emulated: faults with a message */

enum ptx_opcode {
#define PTX_OP_ENUM(name, mnem) OP_##name,
	PTX_OPCODES(PTX_OP_ENUM)
#undef PTX_OP_ENUM
	OP__COUNT
};

#endif
