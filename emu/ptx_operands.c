/* ptx_operands — an instruction's operands resolved to register slots: registers,
 * special registers, immediates, symbol addresses, [base+offset] addresses and {vectors}.
 * Separate from the opcode and its modifiers (ptx_insn.c).
 */
#include "ptx_parser.h"

#include <errno.h>
#include <string.h>

/* ---- operands ------------------------------------------------------------------- */

/* Splits the tokens of an instruction into comma-separated operands at depth 0. */
int split_operands(struct parser *p, size_t end, struct opnd *ops, int max)
{
	int n = 0, depth = 0;
	size_t start = p->i;
	for (size_t i = p->i; i <= end; i++) {
		char k = i < end ? p->t[i].kind : ',';
		if (k == '{' || k == '[' || k == '(')
			depth++;
		else if (k == '}' || k == ']' || k == ')')
			depth--;
		if ((k == ',' && depth == 0) || i == end) {
			if (i > start) {
				if (n == max)
					return -1;
				ops[n].t = &p->t[start];
				ops[n].n = i - start;
				n++;
			}
			start = i + 1;
		}
	}
	return n;
}

static const struct { const char *name; int slot; } ptx_sregs[] = {
	{ "%tid.x", SR_TID_X }, { "%tid.y", SR_TID_Y }, { "%tid.z", SR_TID_Z },
	{ "%ntid.x", SR_NTID_X }, { "%ntid.y", SR_NTID_Y }, { "%ntid.z", SR_NTID_Z },
	{ "%ctaid.x", SR_CTAID_X }, { "%ctaid.y", SR_CTAID_Y }, { "%ctaid.z", SR_CTAID_Z },
	{ "%nctaid.x", SR_NCTAID_X }, { "%nctaid.y", SR_NCTAID_Y },
	{ "%nctaid.z", SR_NCTAID_Z }, { "%laneid", SR_LANEID }, { "%warpid", SR_WARPID },
	{ "%nwarpid", SR_NWARPID }, { "%lanemask_eq", SR_LANEMASK_EQ },
	{ "%lanemask_lt", SR_LANEMASK_LT }, { "%lanemask_le", SR_LANEMASK_LE },
	{ "%lanemask_gt", SR_LANEMASK_GT }, { "%lanemask_ge", SR_LANEMASK_GE },
	{ "%smid", SR_SMID }, { "%nsmid", SR_NSMID }, { "%gridid", SR_GRIDID },
	{ "%envreg1", SR_ENVREG1 }, { "%envreg2", SR_ENVREG2 },
};

/* PTX special registers the emulator does not model (so not a typo of a register). */
static int is_special_name(const struct tok *t)
{
	static const char *const pre[] = { "%dynamic_smem_size", "%total_smem_size",
					   "%aggr_smem_size", "%reserved_smem", "%cluster",
					   "%nclusterid", "%is_explicit_cluster", "%envreg", "%pm",
					   "%current_graph_exec" };
	for (size_t i = 0; i < sizeof pre / sizeof pre[0]; i++)
		if (t->len >= strlen(pre[i]) && !memcmp(t->p, pre[i], strlen(pre[i])))
			return 1;
	return 0;
}

/* The function being parsed names shared symbol S: its shared memory is the arrays it
 * (and its callees: ptx.c) names, each checked on its own (exec_memory.c). */
static int note_shared(struct ctx *c, const struct ptx_symbol *s)
{
	struct ptx_func *f = c->b->f;
	if (s->addr == (devaddr_t)-1)
		f->shared_dyn = 1;
	uint32_t idx = (uint32_t)(s - c->p->m->syms);
	for (unsigned i = 0; i < f->nshsyms; i++)
		if (f->shsyms[i] == idx)
			return 0;
	size_t cap = f->shsyms_cap;
	if (grow((void **)&f->shsyms, &cap, f->nshsyms + 1, sizeof(*f->shsyms)))
		return perr(c->p, c->line, "out of memory");
	f->shsyms_cap = cap;
	f->shsyms[f->nshsyms++] = idx;
	return 0;
}

/* A new immediate slot holding off + the dynamic shared base (fixed up at the end).
 * Returns the slot, or -1. */
static int reloc_imm(struct ctx *c, uint64_t off)
{
	struct parser *p = c->p;
	int sl = slot_imm(c->b, off, 1);
	if (sl < 0 || grow((void **)&p->fix, &p->fixcap, p->nfix + 1, sizeof(*p->fix))) {
		perr(p, c->line, "out of memory");
		return -1;
	}
	p->fix[p->nfix++] = (struct fixup){ c->b->fidx, 1, c->b->f->nimm - 1 };
	return sl;
}

/* Resolves a name used as a value: a register, special register or symbol address.
 * Returns the slot, or -1 with an error set. */
static int name_slot(struct ctx *c, const struct tok *t, unsigned ty, int *local_off)
{
	struct parser *p = c->p;
	if (t->len == 1 && t->p[0] == '_')
		return SR_SINK;
	struct ment *e = map_get(&c->b->names, t->p, t->len);
	if (e && e->kind == K_REG)
		return (int)e->val;
	if (!e && t->len == 7 && !memcmp(t->p, "WARP_SZ", 7))
		return slot_imm(c->b, 32, 0); /* warpSize in device code: a constant of PTX */
	for (size_t i = 0; i < sizeof(ptx_sregs) / sizeof(ptx_sregs[0]); i++)
		if (strlen(ptx_sregs[i].name) == t->len && !memcmp(ptx_sregs[i].name, t->p, t->len)) {
			if (ptx_sregs[i].slot == SR_ENVREG1 || ptx_sregs[i].slot == SR_ENVREG2)
				p->m->grid_workspace = 1; /* a trap there means no cooperative launch */
			p->m->sregs_named |= 1ull << ptx_sregs[i].slot; /* exec.c's block_start */
			return ptx_sregs[i].slot;
		}
	if (t->len >= 6 && !memcmp(t->p, "%clock", 6)) {
		c->clock = t->len == 6 ? 1 : 2;
		return SR_ZERO;
	}
	if (t->len >= 12 && !memcmp(t->p, "%globaltimer", 12)) {
		c->clock = 3;
		return SR_ZERO;
	}
	if (e && (e->kind == K_KPARAM || e->kind == K_FPARAM))
		return slot_imm(c->b, e->val, 0);
	if (e && e->kind == K_LOCAL) {
		*local_off = (int)e->val;
		return SR_LOCALBASE;
	}
	struct ment *g = map_get(&p->globals, t->p, t->len);
	if (g && g->kind == K_SYM) {
		struct ptx_symbol *s = &p->m->syms[g->val];
		if (s->space == SP_SHARED && note_shared(c, s))
			return -1;
		if (s->space == SP_SHARED && s->addr == (devaddr_t)-1)
			return reloc_imm(c, 0);
		return slot_imm(c->b, s->addr, 0);
	}
	if (g && g->kind == K_FUNC) /* a function pointer */
		return slot_imm(c->b, ptx_func_addr(p->m, (unsigned)g->val), 0);
	if (t->p[0] == '%' && !e && is_special_name(t)) {
		/* a special register the emulator does not model: refused when executed */
		c->unsupported_sreg = t;
		return SR_ZERO;
	}
	(void)ty;
	perr(p, c->line, "unknown name '%.*s'", (int)t->len, t->p);
	return -1;
}

/* A scalar operand (register, immediate, special, symbol, `!%p`). Returns the slot. */
int scalar_operand(struct ctx *c, struct tok *t, size_t n, unsigned ty)
{
	int neg = 0;
	if (n >= 2 && t->kind == '-') {
		neg = 1;
		t++;
		n--;
	}
	if (n >= 2 && t->kind == '!') {
		c->in->neg_c = 1;
		t++;
		n--;
	}
	uint64_t v;
	int isf;
	if (parse_number(t, &v, &isf) == 0)
		return slot_imm(c->b, literal_bits(v, isf, neg, ty), 0);
	if (t->kind != 'w') {
		perr(c->p, c->line, "unexpected '%c' in an operand", t->kind);
		return -1;
	}
	int loff = -1;
	int s = name_slot(c, t, ty, &loff);
	if (s >= 0 && loff >= 0) {
		/* address of a .local variable: SR_LOCALBASE + offset, decoded as an add */
		c->local_off = loff;
		return s;
	}
	if (s >= 0 && n >= 3 && t[1].kind == '+') {
		/* sym+imm as a value: the symbol's immediate plus the offset */
		uint64_t a;
		if (parse_number(&t[2], &a, &isf) == 0) {
			const struct ptx_func *f = c->b->f;
			for (unsigned i = 0; i < f->nimm; i++)
				if ((int)f->imm_slots[i] == s)
					return c->b->imm_reloc[i] ? reloc_imm(c, f->imm_vals[i] + a)
								  : slot_imm(c->b, f->imm_vals[i] + a, 0);
		}
	}
	return s;
}

/* Parses [base+imm] into in->s[0] (base slot), in->off and, for .param, the space. */
int address_operand(struct ctx *c, struct tok *t, size_t n)
{
	struct ptx_insn *in = c->in;
	struct parser *p = c->p;
	if (t->kind != '[' || t[n - 1].kind != ']')
		return perr(p, c->line, "expected an address in [ ]");
	t++;
	n -= 2;
	int64_t off = 0;
	in->s[0] = SR_ZERO;
	for (size_t i = 0; i < n; i++) {
		int neg = 0;
		if (t[i].kind == '+')
			continue;
		if (t[i].kind == '-') {
			neg = 1;
			i++;
			if (i < n && t[i].kind == '-') { /* "+-" written as "- -" never happens */
				neg = 0;
				i++;
			}
		}
		if (i >= n)
			break;
		uint64_t v;
		int isf;
		if (parse_number(&t[i], &v, &isf) == 0) {
			off += neg ? -(int64_t)v : (int64_t)v;
			continue;
		}
		struct ment *e = map_get(&c->b->names, t[i].p, t[i].len);
		if (e && e->kind == K_REG) {
			in->s[0] = (uint32_t)e->val;
		} else if (e && e->kind == K_KPARAM) {
			in->space = SP_KPARAM;
			off += (int64_t)e->val;
		} else if (e && e->kind == K_FPARAM) {
			in->space = SP_FPARAM;
			off += (int64_t)e->val;
		} else if (e && e->kind == K_LOCAL) {
			in->s[0] = SR_LOCALBASE;
			off += (int64_t)e->val;
		} else {
			struct ment *g = map_get(&p->globals, t[i].p, t[i].len);
			if (!g || g->kind != K_SYM)
				return perr(p, c->line, "unknown name '%.*s' in an address",
					    (int)t[i].len, t[i].p);
			struct ptx_symbol *s = &p->m->syms[g->val];
			if (s->space == SP_SHARED && note_shared(c, s))
				return p->rc;
			if (s->space == SP_SHARED && s->addr == (devaddr_t)-1) {
				if (grow((void **)&p->fix, &p->fixcap, p->nfix + 1, sizeof(*p->fix)))
					return -ENOMEM;
				p->fix[p->nfix++] = (struct fixup){ c->b->fidx, 0, c->b->f->ncode };
			} else {
				off += (int64_t)s->addr;
			}
		}
	}
	in->off = off;
	return 0;
}

/* {a, b, c, d}: fills slots[] and returns the count. */
int vector_operand(struct ctx *c, struct tok *t, size_t n, uint32_t *slots, int max,
		   unsigned ty)
{
	int k = 0;
	for (size_t i = 1; i + 1 < n; i++) {
		if (t[i].kind == ',')
			continue;
		if (k == max)
			return -1;
		size_t j = i;
		while (j + 1 < n && t[j].kind != ',')
			j++;
		int s = scalar_operand(c, &t[i], j - i, ty);
		if (s < 0)
			return -1;
		slots[k++] = (uint32_t)s;
		i = j - 1;
		if (t[j].kind == ',')
			i = j;
	}
	return k;
}
