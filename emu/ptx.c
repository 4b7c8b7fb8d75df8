/* ptx — parse the PTX nvcc emits and decode it once into the compact form of
 * ptx_internal.h: opcodes from opcodes.h, operands resolved to register slots,
 * immediates pre-converted, branch targets and call targets resolved, the .cu line of
 * every instruction attached, and the reconvergence point (immediate post-dominator) of
 * every branch precomputed for the SIMT stack of exec.c.
 *
 * Instructions the emulator does not implement, and instructions with a modifier it does
 * not know (opcodes.h lists the ones each accepts), are decoded to OP_UNSUPPORTED with a
 * message naming the feature; a launch of a kernel that can reach one fails at once.
 *
 * The decoder's files: this one (the module: top-level directives, calls resolved,
 * lines attributed, the public accessors), ptx_lex.c (tokens, the name map, literals),
 * ptx_decl.c (variable declarations), ptx_func.c (functions and their bodies),
 * ptx_insn.c (an instruction's opcode and modifiers), ptx_operands.c (its operands),
 * ptx_cfg.c (labels and reconvergence points); ptx_parser.h holds their shared state.
 */
#include "ptx_parser.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- module --------------------------------------------------------------------- */

static int parse_file_directive(struct parser *p)
{
	struct tok *t = peek(p);
	unsigned line = t->line;
	p->i++;
	unsigned idx = (unsigned)strtoul(peek(p)->p, NULL, 10);
	p->i++;
	struct tok *s = peek(p);
	if (s->kind == 's' && idx < 65536) {
		if (idx >= p->m->nfiles) {
			char **nf = realloc(p->m->files, (idx + 1) * sizeof(*nf));
			if (!nf)
				return -ENOMEM;
			memset(nf + p->m->nfiles, 0, (idx + 1 - p->m->nfiles) * sizeof(*nf));
			p->m->files = nf;
			p->m->nfiles = idx + 1;
		}
		free(p->m->files[idx]);
		if (!(p->m->files[idx] = strndup(s->p, s->len)))
			return -ENOMEM;
	}
	while (p->i < p->nt && p->t[p->i].line == line)
		p->i++;
	return 0;
}

static int parse_module(struct parser *p)
{
	while (p->i < p->nt && !p->rc) {
		struct tok *t = peek(p);
		if (tok_is(t, ".version") || tok_is(t, ".target") || tok_is(t, ".address_size")) {
			unsigned l = t->line;
			while (p->i < p->nt && p->t[p->i].line == l)
				p->i++;
			continue;
		}
		if (tok_is(t, ".file")) {
			if (parse_file_directive(p))
				return p->rc ? p->rc : -ENOMEM;
			continue;
		}
		if (tok_is(t, ".section")) {
			while (peek(p)->kind && peek(p)->kind != '{')
				p->i++;
			int depth = 0;
			do {
				if (peek(p)->kind == '{')
					depth++;
				else if (peek(p)->kind == '}')
					depth--;
				p->i++;
			} while (depth > 0 && p->i < p->nt);
			continue;
		}
		int is_extern = 0;
		while (tok_is(peek(p), ".visible") || tok_is(peek(p), ".extern") ||
		       tok_is(peek(p), ".weak") || tok_is(peek(p), ".common")) {
			if (tok_is(peek(p), ".extern"))
				is_extern = 1;
			p->i++;
		}
		t = peek(p);
		int rc = 0;
		if (tok_is(t, ".entry") || tok_is(t, ".func")) {
			rc = parse_function(p, tok_is(t, ".entry"), is_extern);
		} else if (tok_is(t, ".global") || tok_is(t, ".const") || tok_is(t, ".shared")) {
			enum ptx_space sp = tok_is(t, ".global") ? SP_GLOBAL
					    : tok_is(t, ".const") ? SP_CONST : SP_SHARED;
			p->i++;
			rc = parse_module_var(p, sp, is_extern);
		} else if (t->kind == ';') {
			p->i++;
		} else if (tok_is(t, ".alias")) {
			while (peek(p)->kind && peek(p)->kind != ';')
				p->i++;
		} else {
			return perr(p, t->line, "unexpected '%.*s' at module level", (int)t->len,
				    t->p);
		}
		if (rc)
			return p->rc ? p->rc : rc;
	}
	return p->rc;
}

/* The device runtime calls the emulator runs (enum cdp_call), or -1. */
static int cdp_function(const char *name)
{
	static const char *const names[CDP_NCALLS] = {
		[CDP_PARAM_BUFFER] = "GetParameterBufferV2", [CDP_LAUNCH] = "LaunchDeviceV2",
		[CDP_STREAM_CREATE] = "StreamCreateWithFlags", [CDP_STREAM_DESTROY] = "StreamDestroy",
		[CDP_MALLOC] = "Malloc", [CDP_FREE] = "Free", [CDP_GET_LAST_ERROR] = "GetLastError",
		[CDP_PEEK_AT_LAST_ERROR] = "PeekAtLastError", [CDP_GET_DEVICE] = "GetDevice",
	};
	if (strncmp(name, "__cudaCDP2", 10) != 0)
		return -1;
	for (int i = 0; i < CDP_NCALLS; i++)
		if (!strcmp(name + 10, names[i]))
			return i;
	return -1;
}

/* Known extern functions become builtin opcodes; the rest are refused by name. */
static int resolve_calls(struct parser *p)
{
	struct ptx_module *m = p->m;
	for (size_t i = 0; i < p->ncalls; i++) {
		unsigned fi = p->calls[i].pc >> 20, pc = p->calls[i].pc & 0xfffff;
		struct ptx_insn *in = &m->funcs[fi].code[pc];
		const char *name = p->calls[i].name;
		struct ment *e = map_get(&p->globals, name, strlen(name));
		struct ptx_func *callee = e && e->kind == K_FUNC ? &m->funcs[e->val] : NULL;
		if (callee && callee->defined) {
			if (callee->is_entry) {
				perr(p, in->line, "call to the kernel '%s'", name);
				return p->rc;
			}
			in->target = (uint32_t)e->val;
			continue;
		}
		const char *what = NULL;
		char buf[256];
		if (!strcmp(name, "vprintf")) {
			in->op = OP_VPRINTF;
			continue;
		}
		if (!strcmp(name, "__assertfail")) {
			in->op = OP_ASSERTFAIL;
			continue;
		}
		if (!strcmp(name, "cudaGraphSetConditional")) {
			in->op = OP_SETCONDITIONAL;
			continue;
		}
		if (!strcmp(name, "malloc") || !strcmp(name, "free")) {
			in->op = name[0] == 'm' ? OP_MALLOC : OP_FREE;
			continue;
		}
		int cdp = cdp_function(name);
		if (cdp >= 0) { /* dynamic parallelism's device runtime (exec_cdp.h) */
			in->op = OP_CDP;
			in->target = (uint32_t)cdp;
			continue;
		}
		if (!strncmp(name, "cudaLaunchDevice", 16) || !strncmp(name, "cudaGetParameterBuffer", 22) ||
		    !strncmp(name, "__cudaCDP", 9)) {
			snprintf(buf, sizeof buf,
				 "the device runtime call '%s' (dynamic parallelism) is not emulated; run "
				 "with --backend gpu", name);
			what = buf;
		}
		else if (!strncmp(name, "cudaCG", 6)) /* the grid barrier of older toolkits */
			what = "grid-wide synchronisation (this_grid().sync()) is not emulated; run "
			       "with --backend gpu";
		else {
			snprintf(buf, sizeof buf,
				 "the external device function '%s' is not emulated; run with "
				 "--backend gpu", name);
			what = buf;
		}
		int k = add_message(p, what);
		if (k < 0)
			return k;
		in->op = OP_UNSUPPORTED;
		in->target = (uint32_t)k;
	}
	return 0;
}

/* Marks each function with its first reachable unsupported instruction. */
static void propagate_unsupported(struct ptx_module *m)
{
	for (unsigned fi = 0; fi < m->nfuncs; fi++) {
		struct ptx_func *f = &m->funcs[fi];
		for (unsigned pc = 0; pc < f->ncode && f->unsupported == PTX_NOPC; pc++)
			if (f->code[pc].op == OP_UNSUPPORTED)
				f->unsupported = pc;
	}
	for (int changed = 1; changed;) {
		changed = 0;
		for (unsigned fi = 0; fi < m->nfuncs; fi++) {
			struct ptx_func *f = &m->funcs[fi];
			if (f->unsupported != PTX_NOPC)
				continue;
			for (unsigned pc = 0; pc < f->ncode; pc++) {
				const struct ptx_insn *in = &f->code[pc];
				/* an indirect call: the function it reaches faults there */
				if (in->op == OP_CALL && in->target != PTX_CALL_INDIRECT &&
				    m->funcs[in->target].unsupported != PTX_NOPC) {
					f->unsupported = pc;
					changed = 1;
					break;
				}
			}
		}
	}
}

/* F names what G names: G's shared symbols added to F's list; *changed set if any. */
static int take_shared(struct ptx_func *f, const struct ptx_func *g, int *changed)
{
	if (g->shared_dyn && !f->shared_dyn) {
		f->shared_dyn = 1;
		*changed = 1;
	}
	for (unsigned i = 0; i < g->nshsyms; i++) {
		unsigned k = 0;
		while (k < f->nshsyms && f->shsyms[k] != g->shsyms[i])
			k++;
		if (k < f->nshsyms)
			continue;
		if (grow((void **)&f->shsyms, &f->shsyms_cap, f->nshsyms + 1, sizeof(*f->shsyms)))
			return -ENOMEM;
		f->shsyms[f->nshsyms++] = g->shsyms[i];
		*changed = 1;
	}
	return 0;
}

/* A function's shared memory is what its callees name too: each list gets its
 * callees' symbols. Returns 0 or -ENOMEM. */
static int propagate_shared(struct ptx_module *m)
{
	for (int changed = 1; changed;) {
		changed = 0;
		for (unsigned fi = 0; fi < m->nfuncs; fi++) {
			struct ptx_func *f = &m->funcs[fi];
			for (unsigned pc = 0; pc < f->ncode; pc++) {
				if (f->code[pc].op != OP_CALL)
					continue;
				/* an indirect call may reach any function */
				unsigned t = f->code[pc].target, indirect = t == PTX_CALL_INDIRECT;
				for (unsigned gi = indirect ? 0 : t; gi < (indirect ? m->nfuncs : t + 1);
				     gi++) {
					int rc = take_shared(f, &m->funcs[gi], &changed);
					if (rc)
						return rc;
				}
			}
		}
	}
	return 0;
}

/* Lines inside toolkit headers (atomicAdd, __shfl_down_sync, cub's bit tricks...) are
 * reported at the user's line that led there: the first position outside the toolkit
 * up the inlined_at chain. iline/ifile become the position the instruction's own line
 * was inlined at. The .file names are only known at the end. */
static void attribute_lines(struct parser *p)
{
	struct ptx_module *m = p->m;
	for (unsigned fi = 0; fi < m->nfuncs; fi++) {
		struct ptx_func *f = &m->funcs[fi];
		for (unsigned pc = 0; pc < f->ncode; pc++) {
			struct ptx_insn *in = &f->code[pc];
			uint32_t k = in->iline ? p->locs[in->iline - 1].parent : 0;
			in->iline = k ? p->locs[k - 1].line : 0;
			in->ifile = k ? p->locs[k - 1].file : 0;
			if (!k || !ptx_file_is_system(ptx_module_file(m, in->file)))
				continue;
			while (p->locs[k - 1].parent &&
			       ptx_file_is_system(ptx_module_file(m, p->locs[k - 1].file)))
				k = p->locs[k - 1].parent;
			in->line = p->locs[k - 1].line;
			in->file = p->locs[k - 1].file;
		}
	}
}

/* Places the dynamic shared memory after all static .shared and patches its uses. */
static void apply_fixups(struct parser *p)
{
	struct ptx_module *m = p->m;
	size_t al = m->extern_shared_align > 16 ? m->extern_shared_align : 16;
	m->shared_total = align_up(p->shared_next, al);
	for (size_t i = 0; i < p->nfix; i++) {
		struct ptx_func *f = &m->funcs[p->fix[i].func];
		if (p->fix[i].is_imm)
			f->imm_vals[p->fix[i].idx] += m->shared_total;
		else
			f->code[p->fix[i].idx].off += (int64_t)m->shared_total;
	}
	for (unsigned i = 0; i < m->nsyms; i++)
		if (m->syms[i].space == SP_SHARED && m->syms[i].addr == (devaddr_t)-1)
			m->syms[i].addr = m->shared_total;
}

int ptx_module_load(const char *text, size_t len, const char *path, struct ptx_module **out,
		    char *err, size_t errlen)
{
	struct parser p = { 0 };
	p.path = path ? path : "<ptx>";
	p.err = err;
	p.errlen = errlen;
	if (err && errlen)
		err[0] = 0;
	*out = NULL;
	if (!(p.m = calloc(1, sizeof(*p.m))) || !(p.m->path = strdup(p.path))) {
		free(p.m);
		return -ENOMEM;
	}
	static atomic_uint modules_loaded;
	p.m->code_id = atomic_fetch_add(&modules_loaded, 1) & 0xff;
	int rc = lex(text, len, &p.t, &p.nt);
	if (rc)
		goto done;
	rc = parse_module(&p);
	if (!rc)
		rc = resolve_calls(&p);
	if (!rc) {
		apply_fixups(&p);
		for (unsigned i = 0; i < p.m->nfuncs; i++) /* module-scope .shared counts too */
			if (p.m->funcs[i].is_entry)
				p.m->funcs[i].shared_size += p.m->module_shared;
		attribute_lines(&p);
		propagate_unsupported(p.m);
		rc = propagate_shared(p.m);
	}
done:
	if (rc && !p.rc && err && errlen)
		snprintf(err, errlen, "%s: %s", p.path, strerror(-rc));
	free(p.t);
	map_free(&p.globals);
	for (size_t i = 0; i < p.ncalls; i++)
		free(p.calls[i].name);
	free(p.calls);
	free(p.fix);
	free(p.locs);
	if (rc) {
		ptx_module_free(p.m);
		return rc;
	}
	*out = p.m;
	return 0;
}

uint64_t ptx_func_addr(const struct ptx_module *m, unsigned idx)
{
	return PTX_CODE_BASE + ((uint64_t)m->code_id << 32) + 16ull * idx;
}

const struct ptx_func *ptx_func_at(const struct ptx_module *m, uint64_t addr)
{
	uint64_t off = addr - ptx_func_addr(m, 0);
	if (off % 16 || off / 16 >= m->nfuncs || !m->funcs[off / 16].defined)
		return NULL;
	return &m->funcs[off / 16];
}

void ptx_module_free(struct ptx_module *m)
{
	if (!m)
		return;
	for (unsigned i = 0; i < m->nfuncs; i++) {
		struct ptx_func *f = &m->funcs[i];
		free(f->name);
		for (unsigned k = 0; k < f->nparams; k++)
			free(f->params[k].name);
		free(f->params);
		free(f->ret.name);
		free(f->imm_vals);
		free(f->imm_slots);
		free(f->code);
		free(f->shsyms);
	}
	free(m->funcs);
	for (unsigned i = 0; i < m->nsyms; i++) {
		if (m->syms[i].space == SP_GLOBAL || m->syms[i].space == SP_CONST)
			devmem_free(m->syms[i].addr);
		free(m->syms[i].name);
	}
	free(m->syms);
	for (unsigned i = 0; i < m->nfiles; i++)
		free(m->files[i]);
	free(m->files);
	for (unsigned i = 0; i < m->nmessages; i++)
		free(m->messages[i]);
	free(m->messages);
	free(m->callargs);
	free(m->mmas);
	free(m->texs);
	free(m->path);
	free(m);
}

const char *ptx_module_file(const struct ptx_module *m, unsigned idx)
{
	return idx < m->nfiles ? m->files[idx] : NULL;
}

const struct ptx_kernel *ptx_module_kernel(const struct ptx_module *m, const char *mangled)
{
	for (unsigned i = 0; i < m->nfuncs; i++)
		if (m->funcs[i].is_entry && m->funcs[i].defined && !strcmp(m->funcs[i].name, mangled))
			return (const struct ptx_kernel *)&m->funcs[i];
	return NULL;
}

unsigned ptx_module_nkernels(const struct ptx_module *m)
{
	unsigned n = 0;
	for (unsigned i = 0; i < m->nfuncs; i++)
		n += m->funcs[i].is_entry && m->funcs[i].defined;
	return n;
}

const struct ptx_kernel *ptx_module_kernel_at(const struct ptx_module *m, unsigned idx)
{
	for (unsigned i = 0; i < m->nfuncs; i++)
		if (m->funcs[i].is_entry && m->funcs[i].defined && idx-- == 0)
			return (const struct ptx_kernel *)&m->funcs[i];
	return NULL;
}

unsigned ptx_kernel_nparams(const struct ptx_kernel *k)
{
	return k->f.nparams;
}

size_t ptx_kernel_param_size(const struct ptx_kernel *k, unsigned i)
{
	return i < k->f.nparams ? k->f.params[i].size : 0;
}

size_t ptx_kernel_param_offset(const struct ptx_kernel *k, unsigned i)
{
	return i < k->f.nparams ? k->f.params[i].offset : 0;
}

/* A mangled local is _ZZ <function> E <length> <name> [_<discriminator>]. */
void ptx_var_name(const char *name, char *out, size_t len)
{
	size_t n = strlen(name), end = n;
	if (!strncmp(name, "_Z", 2)) {
		/* drop a discriminator _<digits> */
		size_t e = n;
		while (e > 0 && name[e - 1] >= '0' && name[e - 1] <= '9')
			e--;
		if (e > 0 && e < n && name[e - 1] == '_')
			end = e - 1;
		for (size_t p = 1; p < end; p++) {
			if (name[p - 1] != 'E' || name[p] < '0' || name[p] > '9')
				continue;
			size_t q = p, k = 0;
			while (q < end && name[q] >= '0' && name[q] <= '9')
				k = k * 10 + (size_t)(name[q++] - '0');
			if (q + k == end) {
				snprintf(out, len, "%.*s", (int)k, name + q);
				return;
			}
		}
	}
	snprintf(out, len, "%s", name);
}

size_t ptx_kernel_static_shared(const struct ptx_kernel *k)
{
	return k->f.shared_size;
}

size_t ptx_kernel_local_size(const struct ptx_kernel *k)
{
	return k->f.local_size;
}

unsigned ptx_kernel_nregs(const struct ptx_kernel *k)
{
	return k->f.nslots - SR__COUNT - k->f.nimm;
}

const char *ptx_kernel_name(const struct ptx_kernel *k)
{
	return k->f.name;
}

int ptx_module_symbol(const struct ptx_module *m, const char *name, devaddr_t *addr,
		      size_t *size)
{
	for (unsigned i = 0; i < m->nsyms; i++) {
		const struct ptx_symbol *s = &m->syms[i];
		if ((s->space == SP_GLOBAL || s->space == SP_CONST) && !strcmp(s->name, name)) {
			if (addr)
				*addr = s->addr;
			if (size)
				*size = s->size;
			return 0;
		}
	}
	return -ENOENT;
}

int ptx_module_load_file(const char *path, struct ptx_module **out, char *err, size_t errlen)
{
	FILE *fp = fopen(path, "rb");
	char *buf = NULL;
	size_t len = 0, cap = 0;
	int rc = fp ? 0 : -errno;
	while (fp) {
		if (len + 65536 > cap) {
			char *nb = realloc(buf, cap = cap * 2 + 65536);
			if (!nb) {
				rc = -ENOMEM;
				break;
			}
			buf = nb;
		}
		size_t got = fread(buf + len, 1, cap - len, fp);
		len += got;
		if (got == 0) {
			rc = ferror(fp) ? -EIO : 0;
			break;
		}
	}
	if (fp)
		fclose(fp);
	if (rc == 0)
		rc = ptx_module_load(buf, len, path, out, err, errlen);
	else if (err)
		snprintf(err, errlen, "%s: %s", path, strerror(-rc));
	free(buf);
	return rc;
}
