/* ptx_insn — one instruction decoded: its mnemonic to an opcode (opcodes.h), its
 * modifiers checked against the ones the opcode accepts, and what the emulator refuses
 * recorded with its message. Operands are read by ptx_operands.c.
 */
#include "ptx_parser.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const ptx_mnemonics[] = {
#define PTX_OP_MNEM(name, mnem, mods) mnem,
	PTX_OPCODES(PTX_OP_MNEM)
#undef PTX_OP_MNEM
};
static const char *const ptx_opnames[] = {
#define PTX_OP_NAME(name, mnem, mods) #name,
	PTX_OPCODES(PTX_OP_NAME)
#undef PTX_OP_NAME
};
/* The modifiers each opcode accepts (opcodes.h), space-separated. */
static const char *const ptx_modlists[] = {
#define PTX_OP_MODS(name, mnem, mods) mods,
	PTX_OPCODES(PTX_OP_MODS)
#undef PTX_OP_MODS
};

const char *ptx_opcode_name(unsigned op)
{
	return op < OP__COUNT ? ptx_opnames[op] : "?";
}

/* ---- instructions --------------------------------------------------------------- */

static const char *const cmp_names[] = { "eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi",
					 "hs", "equ", "neu", "ltu", "leu", "gtu", "geu", "num",
					 "nan" };

int word_in(const char *w, size_t len, const char *const *list, int n)
{
	for (int i = 0; i < n; i++)
		if (strlen(list[i]) == len && !memcmp(list[i], w, len))
			return i;
	return -1;
}

/* What an unknown or refused mnemonic is, for the message. */
static const char *unsupported_feature(const char *mn, size_t len)
{
#define MN(s) (len == strlen(s) && !memcmp(mn, s, len))
	if (MN("wgmma") || MN("tcgen05"))
		return "asynchronous warpgroup tensor-core instructions (wgmma, tcgen05) are not "
		       "emulated";
	if (MN("sured") || MN("istypep"))
		return "surface reductions (sured) and istypep are not emulated";
	if (MN("tensormap"))
		return "tensor maps (TMA) are not emulated";
	if (MN("multimem"))
		return "multimem (NVLink multicast) is not emulated";
	if (MN("elect") || MN("setmaxnreg") || MN("stackrestore") || MN("stacksave") ||
	    MN("alloca"))
		return NULL;
	return NULL;
#undef MN
}

int has_mod(const struct mods *md, const char *s)
{
	for (int i = 0; i < md->nw; i++)
		if (md->wl[i] == strlen(s) && !memcmp(md->w[i], s, md->wl[i]))
			return 1;
	return 0;
}

/* Splits "ld.global.v4.f32" into the mnemonic and modifiers. */
static void split_mods(const struct tok *t, size_t *mlen, struct mods *md)
{
	memset(md, 0, sizeof(*md));
	const char *s = t->p, *e = t->p + t->len;
	const char *dot = memchr(s, '.', t->len);
	*mlen = dot ? (size_t)(dot - s) : t->len;
	for (const char *q = dot; q && q < e;) {
		const char *w = q + 1;
		const char *nd = memchr(w, '.', (size_t)(e - w));
		size_t wl = nd ? (size_t)(nd - w) : (size_t)(e - w);
		unsigned ty = parse_type_word(w, wl);
		if (ty && md->ntypes < 3) {
			md->types[md->ntypes++] = ty;
		} else if (md->nw < 16) {
			md->w[md->nw] = w;
			md->wl[md->nw++] = wl;
		} else {
			md->overflow = 1;
		}
		q = nd;
	}
}

/* Is the word w[0..wl) in the space-separated list? */
static int word_listed(const char *list, const char *w, size_t wl)
{
	for (const char *q = list; *q;) {
		while (*q == ' ')
			q++;
		const char *e = q;
		while (*e && *e != ' ')
			e++;
		if ((size_t)(e - q) == wl && !memcmp(q, w, wl))
			return 1;
		q = e;
	}
	return 0;
}

/* The index in md of the first modifier opcode op does not accept (opcodes.h), or -1.
 * Every modifier must be known: one ignored by mistake silently changes results. */
static int unknown_mod(int op, const struct mods *md)
{
	for (int i = 0; i < md->nw; i++)
		if (!word_listed(ptx_modlists[op], md->w[i], md->wl[i]))
			return i;
	return -1;
}

int add_unsupported(struct ctx *c, const char *what, const struct tok *t)
{
	char msg[256];
	if (what)
		snprintf(msg, sizeof msg, "%s; run with --backend gpu", what);
	else
		snprintf(msg, sizeof msg,
			 "the PTX instruction '%.*s' is not emulated; run with --backend gpu",
			 (int)t->len, t->p);
	int k = add_message(c->p, msg);
	if (k < 0)
		return k;
	c->in->op = OP_UNSUPPORTED;
	c->in->target = (uint32_t)k;
	c->in->nd = c->in->ns = 0;
	return 0;
}

static void decode_space(struct ptx_insn *in, const struct mods *md)
{
	in->space = SP_GENERIC;
	if (has_mod(md, "global"))
		in->space = SP_GLOBAL;
	else if (has_mod(md, "shared") || has_mod(md, "shared::cta"))
		in->space = SP_SHARED;
	else if (has_mod(md, "local"))
		in->space = SP_LOCAL;
	else if (has_mod(md, "const"))
		in->space = SP_CONST;
	else if (has_mod(md, "param"))
		in->space = SP_FPARAM;
}

static int decode_call(struct ctx *c, struct opnd *ops, int nops)
{
	struct ptx_insn *in = c->in;
	struct parser *p = c->p;
	int k = 0;
	in->d[0] = PTX_NOPC;
	if (k < nops && ops[k].t->kind == '(') {
		if (ops[k].n > 2) {
			struct ment *e = map_get(&c->b->names, ops[k].t[1].p, ops[k].t[1].len);
			if (!e || e->kind != K_FPARAM)
				return perr(p, c->line, "call: bad return parameter");
			in->d[0] = (uint32_t)e->val;
		}
		k++;
	}
	if (k >= nops || ops[k].t->kind != 'w')
		return perr(p, c->line, "call: expected a function name");
	struct tok *fn = ops[k].t;
	struct ment *e = map_get(&c->b->names, fn->p, fn->len);
	/* through a register (a function pointer, a virtual function): the callee is
	 * looked up by address when the call runs; the .callprototype label after the
	 * arguments adds nothing the callee's own parameters do not say */
	int indirect = e && e->kind == K_REG;
	if (indirect)
		in->s[0] = (uint32_t)e->val;
	k++;
	in->off = p->m->ncallargs;
	in->ns = 0;
	if (k < nops && ops[k].t->kind == '(') {
		struct tok *a = ops[k].t;
		for (size_t i = 1; i + 1 < ops[k].n; i++) {
			if (a[i].kind == ',')
				continue;
			struct ment *pe = map_get(&c->b->names, a[i].p, a[i].len);
			if (!pe || pe->kind != K_FPARAM)
				return perr(p, c->line, "call: argument '%.*s' is not a .param",
					    (int)a[i].len, a[i].p);
			uint32_t *na = realloc(p->m->callargs, (p->m->ncallargs + 1) * 4);
			if (!na)
				return -ENOMEM;
			p->m->callargs = na;
			na[p->m->ncallargs++] = (uint32_t)pe->val;
			in->ns++;
		}
	}
	in->op = OP_CALL;
	if (indirect) {
		in->target = PTX_CALL_INDIRECT;
		return 0;
	}
	/* the callee is resolved once the whole module is read */
	if (grow((void **)&p->calls, &p->callcap, p->ncalls + 1, sizeof(*p->calls)))
		return -ENOMEM;
	p->calls[p->ncalls].pc = (c->b->fidx << 20) | c->b->f->ncode;
	if (!(p->calls[p->ncalls].name = strndup(fn->p, fn->len)))
		return -ENOMEM;
	p->ncalls++;
	return 0;
}

/* The SIMD video instructions: vadd2, vsub4, vavrg2, vabsdiff4, vmin2, vmax4, vset2...
 * (enum ptx_video_op), -1 for anything else; -2 for their scalar forms. */
static int video_op(const char *mn, size_t len)
{
	static const char *const names[] = { "vadd", "vsub", "vavrg", "vabsdiff", "vmin", "vmax",
					     "vset" };
	for (int i = 0; i < 7; i++) {
		size_t n = strlen(names[i]);
		if (len >= n && len <= n + 1 && !memcmp(mn, names[i], n))
			return len == n ? -2 : mn[n] == '2' || mn[n] == '4' ? i : -1;
	}
	return len == 4 && (!memcmp(mn, "vshl", 4) || !memcmp(mn, "vshr", 4) ||
			    !memcmp(mn, "vmad", 4)) ? -2 : -1;
}

/* An operand of a video instruction, with an optional selector suffix (%r1.h0): the
 * register's slot, and the selector's digits as bits in *sel (0 when none). */
static int video_operand(struct ctx *c, const struct opnd *o, unsigned *sel)
{
	struct tok t = *o->t;
	*sel = 0;
	const char *dot = o->n == 1 && t.kind == 'w' && t.len > 1 ? memchr(t.p + 1, '.', t.len - 1)
								 : NULL;
	if (dot) {
		for (const char *q = dot + 2; q < t.p + t.len; q++)
			if (*q >= '0' && *q <= '7')
				*sel |= 1u << (*q - '0');
		t.len = (unsigned)(dot - t.p);
	}
	return scalar_operand(c, &t, o->n, PT_U32);
}

/* vop2/vop4.dtype.atype.btype{.sat}{.add} d{.mask}, a, b, c; vset: .atype.btype.cmp. */
static int decode_video(struct ctx *c, size_t end, const struct tok *ot, const struct mods *md,
			int vop)
{
	struct ptx_insn *in = c->in;
	if (vop == -2)
		return add_unsupported(c, "the scalar video instructions (vadd, vshl, vmad...) are "
				       "not emulated", NULL);
	struct opnd ops[4];
	if (split_operands(c->p, end, ops, 4) != 4)
		return perr(c->p, c->line, "%.*s: expected d, a, b, c", (int)ot->len, ot->p);
	size_t nl = strcspn(ot->p, ".");
	in->vec = (uint8_t)(ot->p[nl - 1] - '0');
	in->mod = (uint8_t)vop;
	int set = vop == VOP_SET, k0 = set ? 0 : 1;
	if (md->ntypes != (set ? 2 : 3))
		return perr(c->p, c->line, "%.*s: expected its types", (int)ot->len, ot->p);
	in->type = set ? PT_U32 : (uint8_t)md->types[0];
	in->type2 = (uint8_t)md->types[k0];
	if (md->types[k0 + 1] >= PT_S8 && md->types[k0 + 1] <= PT_S64)
		in->xmod |= PX_BSIGNED;
	for (int i = 0; i < md->nw; i++) {
		int k = word_in(md->w[i], md->wl[i], cmp_names, 6);
		if (md->wl[i] == 3 && !memcmp(md->w[i], "sat", 3))
			in->flags |= PF_SAT;
		else if (md->wl[i] == 3 && !memcmp(md->w[i], "add", 3))
			in->xmod |= PX_ADD;
		else if (set && k >= 0)
			in->mod2 = (uint8_t)k;
		else
			return add_unsupported(c, "this modifier of a video instruction is not "
					       "emulated", NULL);
	}
	unsigned sel[4];
	for (int i = 0; i < 4; i++) {
		int s = video_operand(c, &ops[i], &sel[i]);
		if (s < 0)
			return c->p->rc ? c->p->rc : -EINVAL;
		if (i == 0)
			in->d[0] = (uint32_t)s;
		else
			in->s[i - 1] = (uint32_t)s;
	}
	if (sel[1] || sel[2] || sel[3] || ((in->xmod & PX_ADD) && sel[0]))
		return add_unsupported(c, "operand selectors of video instructions (a.h1, b.b2...) "
				       "are not emulated", NULL);
	in->space = (uint8_t)(sel[0] ? sel[0] : (1u << in->vec) - 1);
	in->nd = 1;
	in->ns = 3;
	in->op = OP_VIDEO;
	return 0;
}

/* Which family an instruction of f16/bf16 or 16x2 integer types (or min/max .relu)
 * belongs to: OP_HALF, OP_SIMD, 0 (none: the ordinary opcode runs it), or -1/-2 (a
 * form that is not emulated). */
static int insn_family(int op, const struct ptx_insn *in)
{
	unsigned t = in->type, t2 = in->type2;
	int half = t == PT_F16 || t == PT_F16X2 || t == PT_BF16 || t == PT_BF16X2;
	int half2 = t2 == PT_F16 || t2 == PT_F16X2 || t2 == PT_BF16 || t2 == PT_BF16X2;
	switch (op) {
	case OP_LD: case OP_ST: case OP_MOV: case OP_ATOM: case OP_RED:
		return 0;
	case OP_CVT: /* two sources into a pair: exec_half.c; one: cvt_one passes it on */
		return t == PT_F16X2 || t == PT_BF16X2 ? OP_HALF : 0;
	case OP_ADD: case OP_SUB: case OP_MUL: case OP_FMA: case OP_NEG: case OP_ABS:
	case OP_MIN: case OP_MAX: case OP_SETP: case OP_SET: case OP_EX2: case OP_TANH:
		if (half || (op == OP_SET && half2))
			return OP_HALF;
		break;
	default:
		if (half || half2)
			return -1;
		break;
	}
	if ((op == OP_MIN || op == OP_MAX) && (in->xmod & (PX_NAN | PX_XORSIGN)) && t == PT_F32)
		return OP_HALF; /* min/max.NaN, .xorsign.abs of f32: exec_half.c's min/max */
	int x2 = t == PT_U16X2 || t == PT_S16X2;
	if ((x2 && (op == OP_ADD || op == OP_SUB || op == OP_MIN || op == OP_MAX ||
		    op == OP_NEG || op == OP_ABS)) ||
	    ((op == OP_MIN || op == OP_MAX) && (in->xmod & PX_RELU) && t == PT_S32))
		return OP_SIMD;
	return x2 ? -2 : 0;
}

/* Decodes one instruction (tokens [p->i, end)) into in. */
int decode_insn(struct ctx *c, size_t end)
{
	struct parser *p = c->p;
	struct ptx_insn *in = c->in;
	struct tok *ot = &p->t[p->i];
	size_t mlen;
	struct mods md;
	split_mods(ot, &mlen, &md);
	if (ptx_mma_mnemonic(ot->p, mlen))
		return decode_mma(c, end);
	if (ptx_tex_mnemonic(ot->p, mlen))
		return decode_tex(c, end);
	int vop = video_op(ot->p, mlen);
	if (vop >= 0) {
		p->i++;
		return decode_video(c, end, ot, &md, vop);
	}
	p->i++;
	if (mlen == 2 && !memcmp(ot->p, "cp", 2))
		return decode_cpasync(c, end, ot, &md);
	if (mlen == 8 && !memcmp(ot->p, "mbarrier", 8))
		return decode_mbar(c, end, ot, &md, 0);
	struct opnd ops[12];
	int nops = split_operands(p, end, ops, 12);
	if (nops < 0)
		return perr(p, c->line, "too many operands");
	in->type = md.ntypes ? (uint8_t)md.types[0] : PT_NONE;
	in->type2 = md.ntypes > 1 ? (uint8_t)md.types[1] : in->type;
	in->vec = 1;
	for (int i = 0; i < md.nw; i++) {
		if (md.wl[i] == 2 && md.w[i][0] == 'v')
			in->vec = (uint8_t)(md.w[i][1] - '0');
	}
	if (has_mod(&md, "sat"))
		in->flags |= PF_SAT;
	if (has_mod(&md, "ftz"))
		in->flags |= PF_FTZ;
	if (has_mod(&md, "approx"))
		in->flags |= PF_APPROX;
	if (has_mod(&md, "full"))
		in->flags |= PF_FULL;
	if (has_mod(&md, "cc"))
		in->flags |= PF_CC | PF_CARRY;
	static const char *const rnds[] = { "", "rn", "rz", "rm", "rp", "rni", "rzi", "rmi", "rpi",
					    "rna" };
	for (int i = 0; i < md.nw; i++) {
		int r = word_in(md.w[i], md.wl[i], rnds, 10);
		if (r > 0)
			in->mod2 = (uint8_t)r;
	}

	int op = -1;
	for (int k = 0; k < OP__COUNT; k++)
		if (ptx_mnemonics[k][0] && strlen(ptx_mnemonics[k]) == mlen &&
		    !memcmp(ptx_mnemonics[k], ot->p, mlen))
			op = k;
	if (op == OP_BAR && has_mod(&md, "warp"))
		op = OP_BARWARP;
	if (op == OP_BARRIER)
		op = has_mod(&md, "cluster") ? -2 : OP_BAR;
	if (op == OP_BAR && has_mod(&md, "cluster"))
		op = -2;
	if (op == OP_LDU)
		op = OP_LD;
	if (op == OP_FENCE && (has_mod(&md, "proxy") && has_mod(&md, "tensormap")))
		op = -1;
	if (mlen == 8 && !memcmp(ot->p, "prefetch", 8))
		op = OP_NOP;
	/* griddepcontrol.wait/.launch_dependents (programmatic dependent launch, which cub
	 * uses on sm_90): launches run one after the other here, each finished before the
	 * next starts, so what .wait waits for has always happened */
	if ((mlen == 14 && !memcmp(ot->p, "griddepcontrol", 14)) ||
	    (mlen == 9 && !memcmp(ot->p, "nanosleep", 9)) ||
	    (mlen == 7 && !memcmp(ot->p, "pmevent", 7)) ||
	    (mlen == 8 && !memcmp(ot->p, "prefetchu", 8)))
		op = OP_NOP;
	if (op == -2)
		return add_unsupported(c, "thread block clusters are not emulated", NULL);
	if (op < 0 || (op == OP_ATOM && has_mod(&md, "cluster"))) {
		const char *what = unsupported_feature(ot->p, mlen);
		return add_unsupported(c, what, ot);
	}
	if ((op == OP_LD || op == OP_ST) && (has_mod(&md, "shared::cluster")))
		return add_unsupported(c, "thread block clusters are not emulated", NULL);
	if (md.overflow) /* more modifiers than any instruction the emulator knows */
		return add_unsupported(c, NULL, ot);
	int bad = op == OP_NOP ? -1 : unknown_mod(op, &md); /* a no-op's hints change nothing */
	if (bad >= 0) {
		char what[200];
		snprintf(what, sizeof what, "the modifier .%.*s of the PTX instruction '%.*s' is "
			 "not emulated", (int)md.wl[bad], md.w[bad], (int)ot->len, ot->p);
		return add_unsupported(c, what, NULL);
	}
	in->op = (uint8_t)op;
	if (op == OP_ADDC || op == OP_SUBC || op == OP_MADC)
		in->flags |= PF_CARRY;

	switch (op) {
	case OP_BRA: {
		if (nops != 1 || ops[0].t->kind != 'w')
			return perr(p, c->line, "bra: expected a label");
		if (grow((void **)&c->b->br, &c->b->brcap, c->b->nbr + 1, sizeof(*c->b->br)))
			return -ENOMEM;
		c->b->br[c->b->nbr].pc = c->b->f->ncode;
		if (!(c->b->br[c->b->nbr].name = strndup(ops[0].t->p, ops[0].t->len)))
			return -ENOMEM;
		c->b->nbr++;
		return 0;
	}
	case OP_CALL:
		return decode_call(c, ops, nops);
	case OP_RET: case OP_EXIT: case OP_TRAP: case OP_BRKPT: case OP_MEMBAR: case OP_FENCE:
	case OP_NOP:
		return 0;
	case OP_BAR: case OP_BARWARP:
		in->mod = BAR_SYNC;
		if (has_mod(&md, "arrive"))
			in->mod = BAR_ARRIVE;
		if (has_mod(&md, "red")) {
			in->mod = has_mod(&md, "popc") ? BAR_RED_POPC
				  : has_mod(&md, "and") ? BAR_RED_AND : BAR_RED_OR;
			/* bar.red.op d, a{, b}, {!}c */
			int s = scalar_operand(c, ops[0].t, ops[0].n, in->type);
			int cc = scalar_operand(c, ops[nops - 1].t, ops[nops - 1].n, PT_PRED);
			if (s < 0 || cc < 0)
				return p->rc ? p->rc : -EINVAL;
			in->d[0] = (uint32_t)s;
			in->s[1] = (uint32_t)cc;
			in->nd = 1;
			return 0;
		}
		return 0;
	default:
		break;
	}

	/* modifiers of the remaining classes */
	if (op == OP_MUL || op == OP_MAD || op == OP_MUL24 || op == OP_MAD24 || op == OP_MADC)
		in->mod = has_mod(&md, "hi") ? MUL_HI : has_mod(&md, "wide") ? MUL_WIDE : MUL_LO;
	if (op == OP_SETP || op == OP_SET) {
		for (int i = 0; i < md.nw; i++) {
			int k = word_in(md.w[i], md.wl[i], cmp_names, 18);
			if (k >= 0)
				in->mod = (uint8_t)k;
			else if (md.wl[i] == 3 && !memcmp(md.w[i], "and", 3))
				in->mod2 = BOOL_AND;
			else if (md.wl[i] == 2 && !memcmp(md.w[i], "or", 2))
				in->mod2 = BOOL_OR;
			else if (md.wl[i] == 3 && !memcmp(md.w[i], "xor", 3))
				in->mod2 = BOOL_XOR;
		}
		if (op == OP_SET) { /* set.CMP.dtype.stype */
			in->type2 = in->type;
			in->type = md.ntypes > 1 ? (uint8_t)md.types[1] : in->type;
		}
	}
	if (op == OP_REDUX) {
		static const char *const rops[] = { "add", "min", "max", "", "", "and", "or", "xor" };
		in->mod = 0xff;
		for (int i = 0; i < md.nw; i++) {
			int k = word_in(md.w[i], md.wl[i], rops, 8);
			if (k >= 0 && rops[k][0])
				in->mod = (uint8_t)k;
		}
		if (in->mod == 0xff || ptx_type_size(in->type) != 4)
			return add_unsupported(c, "this form of redux.sync is not emulated", NULL);
	}
	if (op == OP_ATOM || op == OP_RED) {
		static const char *const aops[] = { "add", "min", "max", "inc", "dec",
						    "and", "or", "xor", "exch", "cas" };
		int found = 0;
		for (int i = 0; i < md.nw; i++) {
			int k = word_in(md.w[i], md.wl[i], aops, 10);
			if (k >= 0) {
				in->mod = (uint8_t)k;
				found = 1;
			}
		}
		int half = in->type == PT_F16 || in->type == PT_F16X2 || in->type == PT_BF16 ||
			   in->type == PT_BF16X2; /* add.noftz only: exec_half.c */
		if (!found || in->vec > 1 || in->type == PT_B128 ||
		    (half ? in->mod != AOP_ADD : ptx_type_size(in->type) < 4))
			return add_unsupported(c, "this form of atomic operation is not emulated",
					       NULL);
		decode_space(in, &md);
	}
	if (op == OP_SHFL) {
		static const char *const sm[] = { "up", "down", "bfly", "idx" };
		for (int i = 0; i < md.nw; i++) {
			int k = word_in(md.w[i], md.wl[i], sm, 4);
			if (k >= 0)
				in->mod = (uint8_t)k;
		}
		if (!has_mod(&md, "sync"))
			return add_unsupported(c, "shfl without .sync (pre-Volta) is not emulated",
					       NULL);
	}
	if (op == OP_VOTE) {
		static const char *const vm[] = { "all", "any", "uni", "ballot" };
		for (int i = 0; i < md.nw; i++) {
			int k = word_in(md.w[i], md.wl[i], vm, 4);
			if (k >= 0)
				in->mod = (uint8_t)k;
		}
	}
	if (op == OP_MATCH)
		in->mod = has_mod(&md, "all") ? 1 : 0;
	if (op == OP_BFIND)
		in->mod = has_mod(&md, "shiftamt") ? BFIND_SHIFTAMT : 0;
	if (op == OP_BMSK)
		in->mod = has_mod(&md, "wrap") ? BMSK_WRAP : 0; /* .clamp is the default */
	if (op == OP_SHF) {
		if (has_mod(&md, "l"))
			in->flags |= PF_SHF_LEFT;
		if (has_mod(&md, "wrap"))
			in->flags |= PF_SHF_WRAP;
	}
	if (op == OP_TESTP) {
		static const char *const tm[] = { "finite", "infinite", "number", "notanumber",
						  "normal", "subnormal" };
		for (int i = 0; i < md.nw; i++) {
			int k = word_in(md.w[i], md.wl[i], tm, 6);
			if (k >= 0)
				in->mod = (uint8_t)k;
		}
	}
	if (op == OP_PRMT) {
		static const char *const pm[] = { "", "f4e", "b4e", "rc8", "ecl", "ecr", "rc16" };
		for (int i = 0; i < md.nw; i++) {
			int k = word_in(md.w[i], md.wl[i], pm, 7);
			if (k > 0)
				in->mod = (uint8_t)k;
		}
	}
	if (op == OP_DP2A)
		in->mod = has_mod(&md, "hi") ? MUL_HI : MUL_LO;
	if (op == OP_LD || op == OP_ST || op == OP_CVTA || op == OP_ISSPACEP)
		decode_space(in, &md);
	/* a strong load of global memory, as a spin loop polls one (exec_grid.c) */
	if (op == OP_LD && (in->space == SP_GLOBAL || in->space == SP_GENERIC) &&
	    (has_mod(&md, "acquire") || has_mod(&md, "relaxed") || has_mod(&md, "volatile")))
		in->xmod |= PX_POLL;
	if (op == OP_LD && in->space == SP_FPARAM && c->b->f->is_entry)
		in->space = SP_KPARAM; /* ld.param [%rd] in a kernel; named params override */
	if (op == OP_CVTA)
		in->cvta_to = has_mod(&md, "to");
	/* cvta.param, isspacep.param: the kernel's parameters (.param::entry), the only
	 * parameters with a generic address */
	if ((op == OP_CVTA || op == OP_ISSPACEP) &&
	    (in->space == SP_FPARAM || has_mod(&md, "param::entry")))
		in->space = SP_KPARAM;
	if ((op == OP_LD || op == OP_ST) && (in->type == PT_B128))
		return add_unsupported(c, "128-bit loads and stores are not emulated", NULL);
	if (has_mod(&md, "relu"))
		in->xmod |= PX_RELU;
	if (has_mod(&md, "NaN"))
		in->xmod |= PX_NAN;
	if (has_mod(&md, "xorsign"))
		in->xmod |= PX_XORSIGN;
	if (has_mod(&md, "satfinite"))
		in->xmod |= PX_SATFINITE;
	int family = insn_family(op, in);
	if (family < 0)
		return add_unsupported(c, family == -1 ? "this f16/bf16 instruction is not emulated"
				       : "this form of 16x2 integer arithmetic is not emulated", NULL);

	/* operands: destinations first */
	int first_src = 1;
	if (op == OP_ST || op == OP_RED)
		first_src = 0;
	if (nops == 0 && op != OP_ACTIVEMASK)
		return perr(p, c->line, "%.*s: missing operands", (int)ot->len, ot->p);
	if (first_src == 1) {
		struct opnd *o = &ops[0];
		if (o->t->kind == '{') {
			int k = vector_operand(c, o->t, o->n, in->d, 4, in->type);
			if (k < 0)
				return p->rc ? p->rc : perr(p, c->line, "bad vector operand");
			in->nd = (uint8_t)k;
			if (op == OP_MOV) {
				in->op = OP_UNPACK;
				in->vec = (uint8_t)k;
			}
		} else {
			/* d or d|p */
			size_t bar = 0;
			for (size_t i = 0; i < o->n; i++)
				if (o->t[i].kind == '|')
					bar = i;
			int s = scalar_operand(c, o->t, bar ? bar : o->n, in->type);
			if (s < 0)
				return p->rc ? p->rc : -EINVAL;
			in->d[0] = (uint32_t)s;
			in->nd = 1;
			if (bar) {
				int s2 = scalar_operand(c, o->t + bar + 1, o->n - bar - 1, PT_PRED);
				if (s2 < 0)
					return p->rc ? p->rc : -EINVAL;
				in->d[1] = (uint32_t)s2;
				in->nd = 2;
			} else if (op == OP_SHFL || op == OP_MATCH) {
				in->d[1] = SR_SINK;
			}
		}
	}
	/* sources */
	int ns = 0;
	for (int k = first_src; k < nops; k++) {
		struct opnd *o = &ops[k];
		if (o->t->kind == '[') {
			if (address_operand(c, o->t, o->n))
				return p->rc;
			ns = ns < 1 ? 1 : ns;
			continue;
		}
		if (o->t->kind == '{') {
			int kk = vector_operand(c, o->t, o->n, in->s + ns, 6 - ns, in->type);
			if (kk < 0)
				return p->rc ? p->rc : perr(p, c->line, "bad vector operand");
			if (op == OP_MOV) {
				in->op = OP_PACK;
				in->vec = (uint8_t)kk;
			}
			ns += kk;
			continue;
		}
		if (ns >= 6)
			return perr(p, c->line, "too many operands");
		unsigned ty = in->type;
		if (op == OP_CVT)
			ty = in->type2;
		else if (op == OP_SHL || op == OP_SHR || op == OP_BFE || op == OP_SHFL ||
			 op == OP_BFI || op == OP_VOTE || op == OP_MATCH)
			ty = PT_U32;
		else if (op == OP_SET)
			ty = in->type2;
		int s;
		c->local_off = -1;
		s = scalar_operand(c, o->t, o->n, ty);
		if (s < 0)
			return p->rc ? p->rc : -EINVAL;
		if (s == SR_LOCALBASE && c->local_off >= 0) {
			if (op != OP_MOV)
				return perr(p, c->line, "a .local variable's address used outside mov");
			/* mov d, __local_depot: becomes add d, localbase, off */
			in->op = OP_ADD;
			in->type = PT_U64;
			in->s[0] = SR_LOCALBASE;
			int k = slot_imm(c->b, (uint64_t)c->local_off, 0);
			if (k < 0)
				return -ENOMEM;
			in->s[1] = (uint32_t)k;
			in->ns = 2;
			return 0;
		}
		in->s[ns++] = (uint32_t)s;
	}
	/* ld/st/atom/red: s[0] is the address base (for st/red the first operand) */
	in->ns = (uint8_t)ns;
	if (c->unsupported_sreg) {
		const struct tok *s = c->unsupported_sreg;
		char what[160];
		if (s->len >= 8 && !memcmp(s->p, "%cluster", 8))
			snprintf(what, sizeof what, "thread block clusters (%.*s) are not emulated",
				 (int)s->len, s->p);
		else
			snprintf(what, sizeof what, "the special register %.*s is not emulated",
				 (int)s->len, s->p);
		return add_unsupported(c, what, NULL);
	}
	if (c->clock) {
		in->op = OP_CLOCK;
		in->mod = (uint8_t)c->clock;
	}
	if (family) { /* exec_half.c / exec_simd.c, the instruction's own op in target */
		in->target = in->op;
		in->op = (uint8_t)family;
	}
	if (op == OP_LD && (in->type == PT_F16 || in->type == PT_BF16))
		in->type = PT_B16;
	if (op == OP_ST && (in->type == PT_F16 || in->type == PT_BF16))
		in->type = PT_B16;
	if (op == OP_ST && in->space == SP_KPARAM)
		return perr(p, c->line, "st.param to a kernel parameter");
	return 0;
}
