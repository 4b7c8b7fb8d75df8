/* ptx_cfg — a function's control flow once its body is read: branch labels resolved and
 * every guarded branch's reconvergence point (immediate post-dominator) for the SIMT
 * stack. Separate: it works on the decoded code, not on text.
 */
#include "ptx_parser.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* ---- control flow: labels, post-dominators -------------------------------------- */

static int is_terminator(const struct ptx_insn *in)
{
	return in->op == OP_BRA || in->op == OP_RET || in->op == OP_EXIT || in->op == OP_TRAP ||
	       in->op == OP_BRKPT;
}

/* Computes insn.reconv for every guarded branch: the first pc of the immediate
 * post-dominator of its basic block (PTX_NOPC when the paths only meet at the exit). */
static int compute_reconvergence(struct ptx_func *f)
{
	unsigned n = f->ncode;
	if (!n)
		return 0;
	unsigned *bb_of = calloc(n + 1, sizeof(unsigned));
	unsigned char *leader = calloc(n + 1, 1);
	if (!bb_of || !leader)
		goto nomem;
	leader[0] = 1;
	for (unsigned pc = 0; pc < n; pc++) {
		const struct ptx_insn *in = &f->code[pc];
		if (in->op == OP_BRA)
			leader[in->target] = 1;
		if (is_terminator(in) && pc + 1 < n)
			leader[pc + 1] = 1;
	}
	unsigned nb = 0;
	for (unsigned pc = 0; pc < n; pc++) {
		if (leader[pc])
			nb++;
		bb_of[pc] = nb - 1;
	}
	unsigned *start = malloc((nb + 1) * sizeof(unsigned));
	unsigned *succ = malloc(nb * 2 * sizeof(unsigned)); /* up to 2, exit = nb */
	unsigned char *nsucc = calloc(nb, 1);
	size_t words = (nb + 1 + 63) / 64;
	uint64_t *pd = malloc((size_t)(nb + 1) * words * 8);
	if (!start || !succ || !nsucc || !pd) {
		free(start); free(succ); free(nsucc); free(pd);
		goto nomem;
	}
	for (unsigned pc = 0; pc < n; pc++)
		if (leader[pc])
			start[bb_of[pc]] = pc;
	start[nb] = PTX_NOPC;
	for (unsigned bi = 0; bi < nb; bi++) {
		unsigned last = (bi + 1 < nb ? start[bi + 1] : n) - 1;
		const struct ptx_insn *in = &f->code[last];
		unsigned k = 0;
		if (in->op == OP_BRA) {
			succ[bi * 2 + k++] = bb_of[in->target];
			if (in->guard >= 0)
				succ[bi * 2 + k++] = last + 1 < n ? bb_of[last + 1] : nb;
		} else if (in->op == OP_RET || in->op == OP_EXIT || in->op == OP_TRAP ||
			   in->op == OP_BRKPT) {
			succ[bi * 2 + k++] = nb;
			/* a guarded ret/exit also falls through */
			if (in->guard >= 0)
				succ[bi * 2 + k++] = last + 1 < n ? bb_of[last + 1] : nb;
		} else {
			succ[bi * 2 + k++] = last + 1 < n ? bb_of[last + 1] : nb;
		}
		nsucc[bi] = (unsigned char)k;
	}
	/* iterative post-dominator sets over bitsets; exit node = nb */
	for (unsigned bi = 0; bi <= nb; bi++) {
		uint64_t *row = pd + (size_t)bi * words;
		if (bi == nb) {
			memset(row, 0, words * 8);
			row[nb / 64] |= 1ull << (nb % 64);
		} else {
			memset(row, 0xff, words * 8);
		}
	}
	uint64_t *tmp = malloc(words * 8);
	if (!tmp) {
		free(start); free(succ); free(nsucc); free(pd);
		goto nomem;
	}
	for (int changed = 1; changed;) {
		changed = 0;
		for (unsigned bi = nb; bi-- > 0;) {
			memset(tmp, 0xff, words * 8);
			for (unsigned k = 0; k < nsucc[bi]; k++) {
				const uint64_t *r = pd + (size_t)succ[bi * 2 + k] * words;
				for (size_t w = 0; w < words; w++)
					tmp[w] &= r[w];
			}
			tmp[bi / 64] |= 1ull << (bi % 64);
			uint64_t *row = pd + (size_t)bi * words;
			if (memcmp(row, tmp, words * 8)) {
				memcpy(row, tmp, words * 8);
				changed = 1;
			}
		}
	}
	/* ipdom(b): the strict post-dominator whose own set is one smaller */
	for (unsigned pc = 0; pc < n; pc++) {
		struct ptx_insn *in = &f->code[pc];
		if (in->op != OP_BRA)
			continue;
		in->reconv = PTX_NOPC;
		if (in->guard < 0)
			continue;
		unsigned bi = bb_of[pc];
		const uint64_t *row = pd + (size_t)bi * words;
		unsigned cnt = 0;
		for (size_t w = 0; w < words; w++)
			cnt += (unsigned)__builtin_popcountll(row[w]);
		for (unsigned d = 0; d <= nb; d++) {
			if (d == bi || !(row[d / 64] >> (d % 64) & 1))
				continue;
			const uint64_t *rd = pd + (size_t)d * words;
			unsigned cd = 0;
			for (size_t w = 0; w < words; w++)
				cd += (unsigned)__builtin_popcountll(rd[w]);
			if (cd == cnt - 1) {
				in->reconv = start[d];
				break;
			}
		}
	}
	free(tmp);
	free(start);
	free(succ);
	free(nsucc);
	free(pd);
	free(bb_of);
	free(leader);
	return 0;
nomem:
	free(bb_of);
	free(leader);
	return -ENOMEM;
}

/* Marks the sources that are immediates (insn.imm). */
static int mark_immediates(struct ptx_func *f)
{
	unsigned char *is_imm = calloc(f->nslots, 1);
	if (!is_imm)
		return -ENOMEM;
	for (unsigned i = 0; i < f->nimm; i++)
		is_imm[f->imm_slots[i]] = 1;
	for (unsigned pc = 0; pc < f->ncode; pc++) {
		struct ptx_insn *in = &f->code[pc];
		in->imm = 0;
		for (unsigned k = 0; k < 6; k++)
			if (in->s[k] < f->nslots && is_imm[in->s[k]])
				in->imm |= (uint8_t)(1u << k);
	}
	free(is_imm);
	return 0;
}

int finish_function(struct parser *p, struct fbuild *b)
{
	struct ptx_func *f = b->f;
	int label_at_end = 0; /* a label after the last instruction: reaching it returns */
	for (size_t i = 0; i < b->nbr; i++) {
		struct ment *e = map_get(&b->names, b->br[i].name, strlen(b->br[i].name));
		if (!e || e->kind != K_LABEL)
			return perr(p, f->line, "unknown label '%s' in '%s'", b->br[i].name, f->name);
		f->code[b->br[i].pc].target = (uint32_t)e->val;
		label_at_end |= e->val == f->ncode;
	}
	if (f->ncode == 0 || label_at_end || !is_terminator(&f->code[f->ncode - 1]) ||
	    f->code[f->ncode - 1].guard >= 0) {
		/* falling off the end returns */
		struct ptx_insn *in;
		if (add_insn(b, &in))
			return -ENOMEM;
		in->op = OP_RET;
		f->ncode++;
	}
	if (mark_immediates(f))
		return -ENOMEM;
	return compute_reconvergence(f);
}
