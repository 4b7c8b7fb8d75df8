/* ptx_async — decoding the asynchronous-copy and barrier instructions of sm_80/sm_90:
 * cp.async (and its commit/wait groups), the mbarrier family and the 1-D cp.async.bulk
 * that completes an mbarrier's transaction bytes. exec_async.c runs what these decode.
 */
#include "ptx_parser.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* Is operand o a predicate (p or !p): cp.async's ignore-src, not its src-size? */
static int is_pred_operand(struct ctx *c, const struct opnd *o)
{
	const struct tok *t = o->t[0].kind == '!' && o->n > 1 ? &o->t[1] : o->t;
	struct ment *e = t->kind == 'w' ? map_get(&c->b->names, t->p, t->len) : NULL;
	return e && e->kind == K_REG && e->type == PT_PRED;
}

/* "_" (a sink) or a register of type ty into *slot; 0 (sink: *slot unset), 1, or < 0. */
static int dest_or_sink(struct ctx *c, struct opnd *o, unsigned ty, uint32_t *slot)
{
	if (o->n == 1 && o->t->kind == 'w' && o->t->len == 1 && o->t->p[0] == '_')
		return 0;
	int sl = scalar_operand(c, o->t, o->n, ty);
	if (sl < 0)
		return c->p->rc ? c->p->rc : -EINVAL;
	*slot = (uint32_t)sl;
	return 1;
}

/* A u32 operand, or the constant v when absent (o NULL), into in->s[k]. */
static int u32_or(struct ctx *c, struct opnd *o, uint64_t v, unsigned k)
{
	int sl = o ? scalar_operand(c, o->t, o->n, PT_U32) : slot_imm(c->b, v, 0);
	if (sl < 0)
		return c->p->rc ? c->p->rc : -EINVAL;
	c->in->s[k] = (uint32_t)sl;
	return 0;
}

/* The sm_80/sm_90 asynchronous barriers (exec_async.c runs them), what cuda::barrier,
 * a block-scope cuda::pipeline and cuda::memcpy_async with a barrier compile to:
 *   mbarrier.init / inval [a]{, count}; mbarrier.arrive{_drop}{.noComplete | .expect_tx}
 *   state|_, [a]{, count | txCount}; mbarrier.expect_tx / complete_tx [a], txCount;
 *   mbarrier.test_wait / try_wait{.parity} p, [a], state|parity{, hint};
 *   mbarrier.pending_count c, state; cp.async.mbarrier.arrive{.noinc} [a] (cp, nonzero).
 * Orderings and scopes change nothing here (blocks run one warp at a time);
 * .shared::cluster is the block's own shared memory (a launch without clusters is a
 * cluster of one block). */
int decode_mbar(struct ctx *c, size_t end, const struct tok *ot, const struct mods *md,
		int cp)
{
	struct parser *p = c->p;
	struct ptx_insn *in = c->in;
	static const char *const ok[] = {
		"init", "inval", "arrive", "arrive_drop", "expect_tx", "complete_tx", "test_wait",
		"try_wait", "parity", "noComplete", "pending_count", "release", "acquire",
		"relaxed", "cta", "cluster", "shared", "shared::cta", "shared::cluster", "async",
		"mbarrier", "noinc" };
	for (int i = 0; i < md->nw; i++)
		if (word_in(md->w[i], md->wl[i], ok, 22) < 0) {
			char what[200];
			snprintf(what, sizeof what, "the modifier .%.*s of the PTX instruction "
				 "'%.*s' is not emulated", (int)md->wl[i], md->w[i], (int)ot->len, ot->p);
			return add_unsupported(c, what, NULL);
		}
	struct opnd ops[5];
	int nops = split_operands(p, end, ops, 5);
	if (nops < 0)
		return perr(p, c->line, "%.*s: too many operands", (int)ot->len, ot->p);
	in->op = OP_MBAR;
	in->s[1] = in->s[2] = SR_ZERO;
	in->space = has_mod(md, "shared") || has_mod(md, "shared::cta") ||
		    has_mod(md, "shared::cluster") ? SP_SHARED : SP_GENERIC;
	int arrive = has_mod(md, "arrive") || has_mod(md, "arrive_drop");
	int wait = has_mod(md, "test_wait") || has_mod(md, "try_wait");
	int rc, a = 0; /* the operand holding the object's address */
	if (cp) {
		in->mod = MB_CPA_ARRIVE;
		in->mod2 = has_mod(md, "noinc") ? MBF_NOINC : 0;
		if (nops != 1)
			return perr(p, c->line, "cp.async.mbarrier.arrive: expected [mbar]");
	} else if (has_mod(md, "init") || has_mod(md, "inval")) {
		in->mod = has_mod(md, "init") ? MB_INIT : MB_INVAL;
		if (nops != (in->mod == MB_INIT ? 2 : 1))
			return perr(p, c->line, "%.*s: expected [mbar]%s", (int)ot->len, ot->p,
				    in->mod == MB_INIT ? ", count" : "");
		if (in->mod == MB_INIT && (rc = u32_or(c, &ops[1], 0, 1)))
			return rc;
	} else if (arrive) {
		in->mod = MB_ARRIVE;
		in->mod2 = (has_mod(md, "arrive_drop") ? MBF_DROP : 0) |
			   (has_mod(md, "noComplete") ? MBF_NOCOMPLETE : 0);
		int tx = has_mod(md, "expect_tx");
		if (nops < 2 || nops > 3 || ((tx || (in->mod2 & MBF_NOCOMPLETE)) && nops != 3))
			return perr(p, c->line, "%.*s: expected state, [mbar]{, count or txCount}",
				    (int)ot->len, ot->p);
		if ((rc = dest_or_sink(c, &ops[0], PT_B64, &in->d[0])) < 0)
			return rc;
		in->nd = (uint8_t)rc;
		a = 1;
		if ((rc = u32_or(c, nops == 3 && !tx ? &ops[2] : NULL, 1, 1)) ||
		    (rc = u32_or(c, nops == 3 && tx ? &ops[2] : NULL, 0, 2)))
			return rc;
	} else if (has_mod(md, "expect_tx") || has_mod(md, "complete_tx")) {
		in->mod = has_mod(md, "expect_tx") ? MB_EXPECT_TX : MB_COMPLETE_TX;
		if (nops != 2)
			return perr(p, c->line, "%.*s: expected [mbar], txCount", (int)ot->len, ot->p);
		if ((rc = u32_or(c, &ops[1], 0, 2)))
			return rc;
	} else if (wait) {
		in->mod = has_mod(md, "try_wait") ? MB_TRY_WAIT : MB_TEST_WAIT;
		in->mod2 = has_mod(md, "parity") ? MBF_PARITY : 0;
		if (nops < 3 || nops > 4)
			return perr(p, c->line, "%.*s: expected p, [mbar], state or parity",
				    (int)ot->len, ot->p);
		int sl = scalar_operand(c, ops[0].t, ops[0].n, PT_PRED);
		int st = sl < 0 ? -1 : scalar_operand(c, ops[2].t, ops[2].n,
						      (in->mod2 & MBF_PARITY) ? PT_U32 : PT_B64);
		if (sl < 0 || st < 0)
			return p->rc ? p->rc : -EINVAL;
		in->d[0] = (uint32_t)sl;
		in->s[1] = (uint32_t)st;
		in->nd = 1;
		a = 1; /* the suspend-time hint changes nothing: a wait yields at once here */
	} else if (has_mod(md, "pending_count")) {
		in->mod = MB_PENDING;
		if (nops != 2)
			return perr(p, c->line, "mbarrier.pending_count: expected count, state");
		int sl = scalar_operand(c, ops[0].t, ops[0].n, PT_U32);
		int st = sl < 0 ? -1 : scalar_operand(c, ops[1].t, ops[1].n, PT_B64);
		if (sl < 0 || st < 0)
			return p->rc ? p->rc : -EINVAL;
		in->d[0] = (uint32_t)sl;
		in->s[1] = (uint32_t)st;
		in->nd = 1;
		in->ns = 2;
		return 0;
	} else {
		return add_unsupported(c, NULL, ot);
	}
	if (address_operand(c, ops[a].t, ops[a].n))
		return p->rc;
	in->ns = 3;
	return 0;
}

/* The address operand OP into in->s[AT] (its register or zero) and in->s[AT + 1] (its
 * offset's immediate slot): for instructions with more than one address. 0 or the code. */
static int address_to(struct ctx *c, const struct opnd *op, unsigned at)
{
	if (address_operand(c, op->t, op->n))
		return c->p->rc;
	int off = slot_imm(c->b, (uint64_t)c->in->off, 0);
	if (off < 0)
		return -ENOMEM;
	c->in->s[at] = c->in->s[0];
	c->in->s[at + 1] = (uint32_t)off;
	return 0;
}

/* cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [dst], [src], size,
 * [mbar] (the 1-D bulk copy cuda::memcpy_async makes on sm_90 of 16-byte aligned data):
 * global to the block's own shared memory, then complete_tx of size bytes on mbar. */
static int decode_bulk(struct ctx *c, size_t end, const struct tok *ot, const struct mods *md)
{
	struct parser *p = c->p;
	struct ptx_insn *in = c->in;
	static const char *const ok[] = { "async", "bulk", "shared::cluster", "shared::cta",
					   "global", "mbarrier::complete_tx::bytes",
					   "L2::cache_hint" };
	for (int i = 0; i < md->nw; i++)
		if (word_in(md->w[i], md->wl[i], ok, 7) < 0) {
			char what[200];
			snprintf(what, sizeof what, "the modifier .%.*s of the PTX instruction "
				 "'%.*s' is not emulated (cp.async.bulk: global to shared with an "
				 "mbarrier only)", (int)md->wl[i], md->w[i], (int)ot->len, ot->p);
			return add_unsupported(c, what, NULL);
		}
	int hint = has_mod(md, "L2::cache_hint");
	struct opnd ops[6];
	int nops = split_operands(p, end, ops, 6);
	if (nops != 4 + hint || !has_mod(md, "global") ||
	    !has_mod(md, "mbarrier::complete_tx::bytes"))
		return perr(p, c->line, "%.*s: expected [dst], [src], size, [mbar]", (int)ot->len,
			    ot->p);
	in->op = OP_MBAR;
	in->mod = MB_BULK;
	/* the source, then the barrier, then the destination, whose address must end in
	 * s[0] and off (perhaps extern __shared__, fixed up by the dynamic shared base) */
	int rc = address_to(c, &ops[1], 1);
	if (rc || (rc = address_to(c, &ops[3], 4)) || (rc = u32_or(c, &ops[2], 0, 3)))
		return rc;
	if (address_operand(c, ops[0].t, ops[0].n))
		return p->rc;
	in->space = SP_SHARED;
	in->vec = SP_SHARED; /* the barrier's space: .shared::cluster here */
	in->ns = 6;
	return 0;
}

/* The sm_80 asynchronous copies (exec_async.c runs them):
 *   cp.async.ca/.cg.shared{::cta}.global{.L2::cache_hint}{.L2::64B/128B/256B}
 *       [dst], [src], cp-size{, src-size | ignore-src}{, cache-policy};
 *   cp.async.commit_group; cp.async.wait_group N; cp.async.wait_all.
 * The bulk copies (TMA), the mbarrier forms and clusters are refused by name. */
int decode_cpasync(struct ctx *c, size_t end, const struct tok *ot, const struct mods *md)
{
	struct parser *p = c->p;
	struct ptx_insn *in = c->in;
	if (has_mod(md, "bulk") && !has_mod(md, "tensor") && !has_mod(md, "reduce") &&
	    !has_mod(md, "prefetch"))
		return decode_bulk(c, end, ot, md);
	if (has_mod(md, "bulk") || has_mod(md, "tensor") || has_mod(md, "reduce"))
		return add_unsupported(c, "tensor and reducing bulk copies (cp.async.bulk.tensor, "
				       "cp.reduce.async.bulk, TMA) are not emulated", NULL);
	if (has_mod(md, "mbarrier"))
		return decode_mbar(c, end, ot, md, 1);
	if (has_mod(md, "shared::cluster"))
		return add_unsupported(c, "thread block clusters are not emulated", NULL);
	if (!has_mod(md, "async"))
		return add_unsupported(c, NULL, ot);
	struct opnd ops[6];
	int nops = split_operands(p, end, ops, 6);
	if (nops < 0)
		return perr(p, c->line, "%.*s: too many operands", (int)ot->len, ot->p);
	in->op = OP_CPASYNC;
	if (has_mod(md, "commit_group") || has_mod(md, "wait_all")) {
		in->mod = has_mod(md, "wait_all") ? CPA_WAIT_ALL : CPA_COMMIT;
		return nops ? perr(p, c->line, "%.*s takes no operands", (int)ot->len, ot->p) : 0;
	}
	if (has_mod(md, "wait_group")) {
		uint64_t n;
		int isf;
		if (nops != 1 || ops[0].n != 1 || parse_number(ops[0].t, &n, &isf) || isf)
			return perr(p, c->line, "cp.async.wait_group: expected a constant N");
		in->mod = CPA_WAIT;
		in->off = (int64_t)n;
		return 0;
	}
	static const char *const ok[] = { "async", "ca", "cg", "shared", "shared::cta", "global",
					   "L2::cache_hint", "L2::64B", "L2::128B", "L2::256B" };
	for (int i = 0; i < md->nw; i++)
		if (word_in(md->w[i], md->wl[i], ok, 10) < 0) {
			char what[200];
			snprintf(what, sizeof what, "the modifier .%.*s of the PTX instruction "
				 "'%.*s' is not emulated", (int)md->wl[i], md->w[i], (int)ot->len, ot->p);
			return add_unsupported(c, what, NULL);
		}
	int hint = has_mod(md, "L2::cache_hint");
	uint64_t size;
	int isf;
	if (!has_mod(md, "global") || !(has_mod(md, "shared") || has_mod(md, "shared::cta")) ||
	    nops < 3 + hint || nops > 4 + hint || ops[2].n != 1 || parse_number(ops[2].t, &size, &isf) ||
	    isf || (size != 4 && size != 8 && size != 16) || (has_mod(md, "cg") && size != 16))
		return perr(p, c->line, "%.*s: expected [dst], [src], cp-size (4, 8 or 16; 16 for "
			    ".cg){, src-size or ignore-src}", (int)ot->len, ot->p);
	/* the source first: the destination's address (perhaps extern __shared__, fixed up
	 * by the dynamic shared base) must end in s[0] and off */
	int rc = address_to(c, &ops[1], 1);
	if (rc)
		return rc;
	if (address_operand(c, ops[0].t, ops[0].n))
		return p->rc;
	in->vec = (uint8_t)size;
	in->s[4] = SR_ZERO;
	int sl = slot_imm(c->b, size, 0); /* without src-size: all cp-size bytes */
	if (sl < 0)
		return -ENOMEM;
	in->s[3] = (uint32_t)sl;
	if (nops == 4 + hint) {
		if (is_pred_operand(c, &ops[3])) {
			sl = scalar_operand(c, ops[3].t, ops[3].n, PT_PRED);
			if (sl >= 0)
				in->s[4] = (uint32_t)sl;
		} else {
			sl = scalar_operand(c, ops[3].t, ops[3].n, PT_U32);
			if (sl >= 0)
				in->s[3] = (uint32_t)sl;
		}
		if (sl < 0)
			return p->rc ? p->rc : -EINVAL;
	}
	in->space = SP_SHARED;
	in->mod = CPA_COPY;
	in->ns = 5;
	return 0;
}
