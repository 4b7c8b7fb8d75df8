/* ptx_mma — decoding the matrix instructions: wmma.load/store/mma, mma.sync, ldmatrix,
 * stmatrix and movmatrix. Their mnemonics carry up to four element types, a shape and
 * two layouts, and their operands are register lists longer than an instruction holds,
 * so each gets a description in module->mmas (ptx_internal.h's struct ptx_mma) that the
 * instruction points at; exec_mma.c runs them. What is outside the shapes and types the
 * CUDA headers use on sm_80/sm_90 (sub-byte and fp8 types, sparse mma, the Volta-only
 * m8n8k4 f16 mma) is refused by name.
 */
#include "ptx_parser.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* An element type word, or -1 (-2: a type the emulator refuses: sub-byte, fp8). */
static int mtype_of(const char *w, size_t l)
{
	static const char *const names[] = { "f16", "bf16", "tf32", "f32", "f64", "s8", "u8",
					     "s32", "b16" };
	for (int i = 0; i < (int)(sizeof names / sizeof names[0]); i++)
		if (strlen(names[i]) == l && !memcmp(names[i], w, l))
			return i;
	static const char *const refused[] = { "s4", "u4", "b1", "e4m3", "e5m2", "e3m2", "e2m3",
						"e2m1", "b8", "f8f6f4" };
	for (int i = 0; i < (int)(sizeof refused / sizeof refused[0]); i++)
		if (strlen(refused[i]) == l && !memcmp(refused[i], w, l))
			return -2;
	return -1;
}

/* Registers a fragment of `elems` elements of type t takes. */
static unsigned regs_of(unsigned elems, unsigned t)
{
	unsigned bits = ptx_mtype_bits(t), per = bits >= 32 ? 1 : 32 / bits;
	return (elems + per - 1) / per;
}

static int refusef(struct ctx *c, const struct tok *ot, const char *why)
{
	char what[200];
	snprintf(what, sizeof what, "'%.*s': %s", (int)ot->len, ot->p, why);
	return add_unsupported(c, what, NULL);
}

/* A {list} operand into slots; the count must be `want`. */
static int reg_list(struct ctx *c, const struct opnd *o, uint32_t *slots, unsigned want,
		    const struct tok *ot)
{
	if (o->t->kind != '{') {
		if (want != 1)
			return perr(c->p, c->line, "%.*s: expected {a list of %u registers}",
				    (int)ot->len, ot->p, want);
		int s = scalar_operand(c, o->t, o->n, PT_B32);
		if (s < 0)
			return c->p->rc ? c->p->rc : -EINVAL;
		slots[0] = (uint32_t)s;
		return 0;
	}
	int k = vector_operand(c, o->t, o->n, slots, 8, PT_B32);
	if (k < 0)
		return c->p->rc ? c->p->rc : perr(c->p, c->line, "bad register list");
	if ((unsigned)k != want)
		return perr(c->p, c->line, "%.*s: %d registers in a list that takes %u",
			    (int)ot->len, ot->p, k, want);
	return 0;
}

/* Fragment elements per lane: wmma keeps 16 f16 elements of A and B whatever the shape
 * (the hardware's fragments repeat theirs, see exec_mma.c). */
static unsigned wmma_elems(const struct ptx_mma *mm, unsigned frag, unsigned t)
{
	unsigned m = mm->m, n = mm->n, k = mm->k;
	if (frag == MF_A)
		return t == MT_F16 ? 16 : m * k / 32;
	if (frag == MF_B)
		return t == MT_F16 ? 16 : k * n / 32;
	return m * n / 32;
}

/* The shapes and types wmma has on sm_80/sm_90 (CUDA's mma.h). */
static int wmma_shape_ok(const struct ptx_mma *mm, unsigned t)
{
	unsigned m = mm->m, n = mm->n, k = mm->k;
	int s16 = k == 16 && ((m == 16 && n == 16) || (m == 32 && n == 8) || (m == 8 && n == 32));
	switch (t) {
	case MT_F16: case MT_BF16: case MT_S8: case MT_U8: case MT_S32: return s16;
	case MT_F32: return s16 || (m == 16 && n == 16 && k == 8);
	case MT_TF32: return m == 16 && n == 16 && k == 8;
	case MT_F64: return m == 8 && n == 8 && k == 4;
	default: return 0;
	}
}

/* The mma.sync shapes and input types of sm_80/sm_90 that are emulated. */
static int mma_shape_ok(const struct ptx_mma *mm)
{
	unsigned m = mm->m, n = mm->n, k = mm->k, a = mm->atype;
	if (a == MT_F64)
		return m == 8 && n == 8 && k == 4;
	if (m != 16 && !(m == 8 && n == 8 && k == 16 && (a == MT_S8 || a == MT_U8)))
		return 0;
	if (n != 8)
		return 0;
	switch (a) {
	case MT_F16: case MT_BF16: return k == 8 || k == 16;
	case MT_TF32: return k == 4 || k == 8;
	case MT_S8: case MT_U8: return k == 16 || k == 32;
	default: return 0;
	}
}

static int new_mma(struct ctx *c, struct ptx_mma **out)
{
	struct ptx_module *m = c->p->m;
	struct ptx_mma *na = realloc(m->mmas, (m->nmmas + 1) * sizeof(*na));
	if (!na)
		return -ENOMEM;
	m->mmas = na;
	*out = &na[m->nmmas];
	memset(*out, 0, sizeof(**out));
	c->in->op = OP_MMA;
	c->in->target = m->nmmas++;
	return 0;
}

static void space_of(struct ptx_insn *in, const struct mwords *mw)
{
	in->space = SP_GENERIC;
	if (mw_has(mw, "global"))
		in->space = SP_GLOBAL;
	else if (mw_has(mw, "shared") || mw_has(mw, "shared::cta"))
		in->space = SP_SHARED;
}

/* wmma.load / wmma.store: {frag}, [addr], ldm  or  [addr], {frag}, ldm */
static int decode_wmma_ldst(struct ctx *c, const struct tok *ot, const struct mwords *mw,
			    struct opnd *ops, int nops, struct ptx_mma *mm, int types[], int nt)
{
	int store = mm->kind == MMA_STORE;
	mm->frag = mw_has(mw, "a") ? MF_A : mw_has(mw, "b") ? MF_B
		   : mw_has(mw, "c") ? MF_C : MF_D;
	if (nt != 1 || nops != 3 || (store && mm->frag != MF_D) || (!store && mm->frag == MF_D))
		return perr(c->p, c->line, "%.*s: malformed", (int)ot->len, ot->p);
	mm->atype = (uint8_t)types[0];
	mm->arow = mw_has(mw, "row");
	if (!wmma_shape_ok(mm, mm->atype) ||
	    ((mm->frag == MF_C || mm->frag == MF_D) &&
	     !(mm->atype == MT_F16 || mm->atype == MT_F32 || mm->atype == MT_S32 ||
	       mm->atype == MT_F64)) ||
	    ((mm->frag == MF_A || mm->frag == MF_B) &&
	     (mm->atype == MT_F32 || mm->atype == MT_S32)))
		return refusef(c, ot, "this wmma shape and type is not emulated");
	space_of(c->in, mw);
	unsigned nr = regs_of(wmma_elems(mm, mm->frag, mm->atype), mm->atype);
	mm->nd = (uint8_t)nr;
	int rc = reg_list(c, &ops[store ? 1 : 0], mm->d, nr, ot);
	if (rc)
		return rc;
	const struct opnd *a = &ops[store ? 0 : 1];
	if (a->t->kind != '[')
		return perr(c->p, c->line, "%.*s: expected an address", (int)ot->len, ot->p);
	if (address_operand(c, a->t, a->n))
		return c->p->rc;
	int s = scalar_operand(c, ops[2].t, ops[2].n, PT_U32);
	if (s < 0)
		return c->p->rc ? c->p->rc : -EINVAL;
	c->in->s[1] = (uint32_t)s;
	c->in->ns = 2;
	return 0;
}

/* wmma.mma and mma.sync: {d}, {a}, {b}, {c} */
static int decode_product(struct ctx *c, const struct tok *ot, const struct mwords *mw,
			  struct opnd *ops, int nops, struct ptx_mma *mm, int types[], int nt)
{
	if (nops != 4)
		return perr(c->p, c->line, "%.*s: expected 4 operands", (int)ot->len, ot->p);
	int wmma = mm->kind == MMA_WMMA;
	if (wmma && nt == 2) { /* f16 inputs: .dtype.ctype */
		mm->dtype = (uint8_t)types[0], mm->ctype = (uint8_t)types[1];
		mm->atype = mm->btype = MT_F16;
	} else if (nt == 4) {
		mm->dtype = (uint8_t)types[0], mm->atype = (uint8_t)types[1];
		mm->btype = (uint8_t)types[2], mm->ctype = (uint8_t)types[3];
	} else {
		return perr(c->p, c->line, "%.*s: expected its element types", (int)ot->len, ot->p);
	}
	/* the two layout words, A's first */
	int nl = 0;
	for (int i = 1; i < mw->n; i++)
		if (mw_is(mw, i, "row") || mw_is(mw, i, "col")) {
			if (nl == 0)
				mm->arow = mw_is(mw, i, "row");
			else
				mm->brow = mw_is(mw, i, "row");
			nl++;
		}
	mm->satfinite = (uint8_t)mw_has(mw, "satfinite");
	unsigned a = mm->atype, d = mm->dtype, cc = mm->ctype;
	int fp16 = a == MT_F16 || a == MT_BF16;
	int ok = mm->btype == a || ((a == MT_S8 || a == MT_U8) &&
				     (mm->btype == MT_S8 || mm->btype == MT_U8));
	if (fp16)
		ok = ok && (d == MT_F32 || (a == MT_F16 && d == MT_F16)) && cc == d;
	else if (a == MT_TF32)
		ok = ok && d == MT_F32 && cc == MT_F32;
	else if (a == MT_S8 || a == MT_U8)
		ok = ok && d == MT_S32 && cc == MT_S32;
	else
		ok = ok && a == MT_F64 && d == MT_F64 && cc == MT_F64;
	if (nl != 2)
		ok = 0;
	if (wmma ? !wmma_shape_ok(mm, a) || !wmma_shape_ok(mm, d) : !mma_shape_ok(mm)) {
		if (!wmma && a == MT_F16 && mm->m == 8 && mm->n == 8 && mm->k == 4)
			return refusef(c, ot, "the m8n8k4 f16 mma (Volta's quad-pair layout) is not "
				       "emulated");
		return refusef(c, ot, "this shape and type of mma is not emulated");
	}
	if (!ok)
		return refusef(c, ot, "this combination of layouts and types is not emulated");
	if (!wmma && (!mm->arow || mm->brow))
		return refusef(c, ot, "mma.sync takes .row.col only");
	unsigned ea, eb, ec = mm->m * mm->n / 32;
	if (wmma) {
		ea = wmma_elems(mm, MF_A, a);
		eb = wmma_elems(mm, MF_B, a);
	} else {
		ea = mm->m * mm->k / 32;
		eb = mm->k * mm->n / 32;
	}
	mm->na = (uint8_t)regs_of(ea, a);
	mm->nb = (uint8_t)regs_of(eb, a);
	mm->nc = (uint8_t)regs_of(ec, cc);
	mm->nd = (uint8_t)regs_of(ec, d);
	int rc = reg_list(c, &ops[0], mm->d, mm->nd, ot);
	if (!rc)
		rc = reg_list(c, &ops[1], mm->a, mm->na, ot);
	if (!rc)
		rc = reg_list(c, &ops[2], mm->b, mm->nb, ot);
	if (!rc)
		rc = reg_list(c, &ops[3], mm->c, mm->nc, ot);
	return rc;
}

/* ldmatrix {regs}, [addr]; stmatrix [addr], {regs}; movmatrix d, a */
static int decode_ldst_matrix(struct ctx *c, const struct tok *ot, const struct mwords *mw,
			      struct opnd *ops, int nops, struct ptx_mma *mm, const int types[], int nt)
{
	if (nt != 1 || types[0] != MT_B16 || !mw_has(mw, "m8n8"))
		return refusef(c, ot, "only the m8n8 .b16 forms are emulated");
	mm->trans = (uint8_t)mw_has(mw, "trans");
	mm->m = mm->n = 8;
	mm->atype = MT_B16;
	if (mm->kind == MMA_MOVMATRIX) {
		if (nops != 2 || !mm->trans)
			return perr(c->p, c->line, "%.*s: malformed", (int)ot->len, ot->p);
		mm->k = mm->nd = mm->na = 1;
		int rc = reg_list(c, &ops[0], mm->d, 1, ot);
		return rc ? rc : reg_list(c, &ops[1], mm->a, 1, ot);
	}
	mm->k = mw_has(mw, "x4") ? 4 : mw_has(mw, "x2") ? 2 : mw_has(mw, "x1") ? 1 : 0;
	if (!mm->k || nops != 2)
		return perr(c->p, c->line, "%.*s: malformed", (int)ot->len, ot->p);
	space_of(c->in, mw);
	if (c->in->space == SP_GLOBAL)
		return perr(c->p, c->line, "%.*s: matrices live in shared memory", (int)ot->len, ot->p);
	int st = mm->kind == MMA_STMATRIX;
	mm->nd = mm->k;
	int rc = reg_list(c, &ops[st ? 1 : 0], mm->d, mm->k, ot);
	if (rc)
		return rc;
	const struct opnd *a = &ops[st ? 0 : 1];
	if (a->t->kind != '[')
		return perr(c->p, c->line, "%.*s: expected an address", (int)ot->len, ot->p);
	c->in->ns = 1;
	return address_operand(c, a->t, a->n) ? c->p->rc : 0;
}

/* Is the mnemonic one of this file's? */
int ptx_mma_mnemonic(const char *mn, size_t len)
{
	static const char *const names[] = { "wmma", "mma", "ldmatrix", "stmatrix", "movmatrix" };
	for (unsigned i = 0; i < sizeof names / sizeof names[0]; i++)
		if (strlen(names[i]) == len && !memcmp(names[i], mn, len))
			return 1;
	return 0;
}

/* Decodes a matrix instruction (tokens [p->i, end)) into c->in and a new description. */
int decode_mma(struct ctx *c, size_t end)
{
	struct parser *p = c->p;
	const struct tok *ot = &p->t[p->i++];
	struct mwords mw;
	mw_split(ot, &mw);
	struct opnd ops[6];
	int nops = split_operands(p, end, ops, 6);
	if (nops < 0)
		return perr(p, c->line, "too many operands");
	int types[4], nt = 0;
	for (int i = 1; i < mw.n; i++) {
		int t = mtype_of(mw.w[i], mw.wl[i]);
		if (t == -2)
			return refusef(c, ot, "sub-byte and fp8 matrix types are not emulated");
		if (t >= 0) {
			if (nt == 4)
				return perr(p, c->line, "%.*s: too many types", (int)ot->len, ot->p);
			types[nt++] = t;
		}
	}
	if (mw_has(&mw, "sp") || mw_has(&mw, "sp::ordered_metadata"))
		return refusef(c, ot, "sparse mma is not emulated");
	if (mw_has(&mw, "block_scale") || mw_has(&mw, "kind::f8f6f4"))
		return refusef(c, ot, "this form of mma is not emulated");
	struct ptx_mma *mm;
	int rc = new_mma(c, &mm);
	if (rc)
		return rc;
	for (int i = 1; i < mw.n; i++) { /* the shape: mMnNkK */
		unsigned m, n, k;
		char buf[24];
		if (mw.wl[i] < sizeof buf && mw.w[i][0] == 'm') {
			memcpy(buf, mw.w[i], mw.wl[i]);
			buf[mw.wl[i]] = 0;
			if (sscanf(buf, "m%un%uk%u", &m, &n, &k) == 3)
				mm->m = (uint8_t)m, mm->n = (uint8_t)n, mm->k = (uint8_t)k;
		}
	}
	if (mw_is(&mw, 0, "wmma")) {
		mm->kind = mw_has(&mw, "load") ? MMA_LOAD : mw_has(&mw, "store") ? MMA_STORE
			   : MMA_WMMA;
		if (mm->kind != MMA_WMMA)
			return decode_wmma_ldst(c, ot, &mw, ops, nops, mm, types, nt);
		return decode_product(c, ot, &mw, ops, nops, mm, types, nt);
	}
	if (mw_is(&mw, 0, "mma")) {
		mm->kind = MMA_SYNC;
		return decode_product(c, ot, &mw, ops, nops, mm, types, nt);
	}
	mm->kind = mw_is(&mw, 0, "ldmatrix") ? MMA_LDMATRIX
		   : mw_is(&mw, 0, "stmatrix") ? MMA_STMATRIX : MMA_MOVMATRIX;
	return decode_ldst_matrix(c, ot, &mw, ops, nops, mm, types, nt);
}
