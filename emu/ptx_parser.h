/* ptx_parser.h — the PTX decoder's working state (tokens, the name maps, the parser,
 * the function being built) and the functions its files share: ptx.c and ptx_*.c.
 * Not for the interpreter: what it reads is the decoded form, ptx_internal.h.
 */
#ifndef PMPPLAB_EMU_PTX_PARSER_H
#define PMPPLAB_EMU_PTX_PARSER_H

#include <stddef.h>
#include <stdint.h>

#include "ptx_internal.h"

/* ---- lexer ---------------------------------------------------------------------- */

struct tok {
	const char *p;
	unsigned len, line;
	char kind; /* 'w' word, 's' string, else the punctuation character */
};

/* ---- a string map (open addressing) --------------------------------------------- */

enum { K_REG = 1, K_KPARAM, K_FPARAM, K_LOCAL, K_LABEL, K_SYM, K_FUNC };

struct ment {
	char *key;
	int kind;
	uint64_t val;
	unsigned char type;
};

struct map {
	struct ment *e;
	size_t cap, n;
};

/* ---- parser state --------------------------------------------------------------- */

struct pending {
	unsigned pc;
	char *name;
};

struct fixup { /* an extern-shared address to shift by the dynamic shared base */
	unsigned func;
	int is_imm;
	unsigned idx;
};

/* A source position of an inlined function's .loc, and where it was inlined (the
 * whole chain of inlined_at, up to the kernel's own line). */
struct locnode {
	uint32_t line;
	uint16_t file;
	uint32_t parent; /* index + 1 of the position it was inlined at; 0: the outermost */
};

struct fbuild {
	struct ptx_func *f;
	unsigned fidx;
	struct map names; /* registers, params, locals, labels of this function */
	struct map locs;  /* "file:line:col" -> the latest locnode of that position */
	size_t icap, imm_cap;
	unsigned char *imm_reloc; /* per immediate: 1 when relocated (slot_imm) */
	struct pending *br; size_t nbr, brcap;
	unsigned cur_file, cur_line;
	uint32_t cur_inl; /* locnode index + 1 of the current .loc, 0 when not inlined */
};

struct parser {
	const char *path;
	struct tok *t;
	size_t nt, i;
	char *err;
	size_t errlen;
	int rc;
	struct ptx_module *m;
	struct map globals; /* symbols and functions */
	size_t fcap, scap;
	struct pending *calls; size_t ncalls, callcap; /* (func<<20|pc) -> callee name */
	struct fixup *fix; size_t nfix, fixcap;
	size_t shared_next;
	struct locnode *locs; size_t nlocs, loccap; /* inline chains (body_loc) */
};

/* ---- declarations --------------------------------------------------------------- */

/* The most registers one .reg declaration may name (%r<N>). */
#define PTX_MAX_REG_RANGE 65536u

struct decl {
	unsigned type, align, vec;
	const char *name;
	unsigned nlen;
	size_t count; /* elements (1 for scalars); 0 for name[] */
	int is_array, range; /* range: name<N> */
	int managed;         /* .attribute(.managed): a __managed__ variable */
};

/* ---- instructions --------------------------------------------------------------- */

struct opnd {
	struct tok *t; /* first token */
	size_t n;      /* tokens */
};

struct ctx {
	struct parser *p;
	struct fbuild *b;
	struct ptx_insn *in;
	unsigned line;
	int clock; /* set when an operand is %clock & co (1 clock, 2 clock64, 3 globaltimer) */
	int64_t local_off; /* set when an operand is the address of a .local variable */
	const struct tok *unsupported_sreg; /* an unknown %special operand */
};

/* Not exported from libpmpplab_cudart.so: these are the decoder's own. */
#pragma GCC visibility push(hidden)

/* ---- tokens, names and literals (ptx_lex.c) ------------------------------------- */

int type_is_float(unsigned t);
int lex(const char *s, size_t n, struct tok **out, size_t *nout);
struct ment *map_get(const struct map *m, const char *k, size_t len);
struct ment *map_put(struct map *m, const char *k, size_t len, int kind, uint64_t val,
		     unsigned type);
void map_free(struct map *m);
int perr(struct parser *p, unsigned line, const char *fmt, ...);
int tok_is(const struct tok *t, const char *s);
struct tok *peek(struct parser *p);
int grow(void **arr, size_t *cap, size_t need, size_t elem);
unsigned parse_type_word(const char *s, size_t len);
int parse_number(const struct tok *t, uint64_t *val, int *is_float);
uint64_t literal_bits(uint64_t v, int is_float, int neg, unsigned ty);
/* The words of a mnemonic ("wmma.load.a.sync.aligned.row.m16n16k16.global.f16"), for
 * the decoders of instructions with many modifiers (ptx_mma.c, ptx_tex.c). */
struct mwords {
	const char *w[24];
	size_t wl[24];
	int n;
};
void mw_split(const struct tok *t, struct mwords *mw);
int mw_is(const struct mwords *mw, int i, const char *s);
int mw_has(const struct mwords *mw, const char *s); /* a word after the first */

/* ---- declarations (ptx_decl.c) -------------------------------------------------- */

int parse_decl(struct parser *p, struct decl *d);
struct ptx_symbol *new_symbol(struct parser *p, const struct decl *d, enum ptx_space sp);
void place_static_shared(struct parser *p, struct ptx_symbol *s, unsigned align);
size_t align_up(size_t v, size_t a);
int parse_module_var(struct parser *p, enum ptx_space sp, int is_extern);

/* ---- operands (ptx_operands.c) and instructions (ptx_insn.c) -------------------- */

/* An instruction's modifiers (ptx_insn.c reads them): its types and its other words. */
struct mods {
	unsigned types[3];
	int ntypes;
	const char *w[16];
	size_t wl[16];
	int nw;
	int overflow; /* more modifiers than w[] holds */
};
/* Is the word w[0..len) one of LIST's N? (its index, or -1) */
int word_in(const char *w, size_t len, const char *const *list, int n);
/* Has the instruction the modifier S (".global" as "global")? */
int has_mod(const struct mods *md, const char *s);
int split_operands(struct parser *p, size_t end, struct opnd *ops, int max);
int scalar_operand(struct ctx *c, struct tok *t, size_t n, unsigned ty);
int address_operand(struct ctx *c, struct tok *t, size_t n);
int vector_operand(struct ctx *c, struct tok *t, size_t n, uint32_t *slots, int max,
		   unsigned ty);
int decode_insn(struct ctx *c, size_t end);
/* Makes c->in an OP_UNSUPPORTED with the message WHAT (NULL: "the PTX instruction 'T'
 * is not emulated"), "; run with --backend gpu" added. Returns 0 or -ENOMEM. */
int add_unsupported(struct ctx *c, const char *what, const struct tok *t);
/* The matrix instructions (ptx_mma.c): is MN one of them, and their decoder (called
 * with p->i at the mnemonic, like decode_insn). */
int ptx_mma_mnemonic(const char *mn, size_t len);
int decode_mma(struct ctx *c, size_t end);
/* Textures and surfaces (ptx_tex.c): tex, tld4, txq, suld, sust, suq. */
int ptx_tex_mnemonic(const char *mn, size_t len);
int decode_tex(struct ctx *c, size_t end);
/* ptx_async.c: cp.async and its groups (the mnemonic "cp"), the mbarrier family (CP:
 * nonzero for cp.async.mbarrier.arrive). */
int decode_cpasync(struct ctx *c, size_t end, const struct tok *ot, const struct mods *md);
int decode_mbar(struct ctx *c, size_t end, const struct tok *ot, const struct mods *md,
		int cp);

/* ---- functions (ptx_func.c) and their control flow (ptx_cfg.c) ------------------ */

int slot_imm(struct fbuild *b, uint64_t v, int reloc);
int add_message(struct parser *p, const char *msg);
int add_insn(struct fbuild *b, struct ptx_insn **out);
int parse_function(struct parser *p, int is_entry, int is_extern);
int finish_function(struct parser *p, struct fbuild *b);

#pragma GCC visibility pop

#endif
