/* ptx_func — .entry and .func: the signature and parameters, the body (.reg, .local,
 * .loc and its inlining chains, labels, instructions), immediate slots and messages.
 * Separate: the function is the unit the parser builds (struct fbuild).
 */
#include "ptx_parser.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- functions and slots -------------------------------------------------------- */

/* The slot of immediate v. Equal immediates share a slot, except relocated ones
 * (reloc: the address of extern __shared__, moved past the static .shared at the end of
 * the module): a plain 0 sharing the slot of a relocated 0 would become the dynamic
 * shared base too. */
int slot_imm(struct fbuild *b, uint64_t v, int reloc)
{
	struct ptx_func *f = b->f;
	if (!reloc)
		for (unsigned i = 0; i < f->nimm; i++)
			if (f->imm_vals[i] == v && !b->imm_reloc[i])
				return (int)f->imm_slots[i];
	if (f->nimm == b->imm_cap) {
		size_t nc = b->imm_cap ? b->imm_cap * 2 : 32;
		uint64_t *nv = realloc(f->imm_vals, nc * 8);
		if (!nv)
			return -ENOMEM;
		f->imm_vals = nv;
		uint32_t *ns = realloc(f->imm_slots, nc * 4);
		if (!ns)
			return -ENOMEM;
		f->imm_slots = ns;
		unsigned char *nr = realloc(b->imm_reloc, nc);
		if (!nr)
			return -ENOMEM;
		b->imm_reloc = nr;
		b->imm_cap = nc;
	}
	f->imm_vals[f->nimm] = v;
	f->imm_slots[f->nimm] = f->nslots++;
	b->imm_reloc[f->nimm] = (unsigned char)(reloc != 0);
	return (int)f->imm_slots[f->nimm++];
}

static struct ptx_func *func_new(struct parser *p, const char *name, size_t len, unsigned *idx)
{
	struct ment *e = map_get(&p->globals, name, len);
	if (e && e->kind == K_FUNC) {
		*idx = (unsigned)e->val;
		return &p->m->funcs[e->val];
	}
	if (grow((void **)&p->m->funcs, &p->fcap, p->m->nfuncs + 1, sizeof(struct ptx_func)))
		return NULL;
	struct ptx_func *f = &p->m->funcs[p->m->nfuncs];
	memset(f, 0, sizeof(*f));
	if (!(f->name = strndup(name, len)))
		return NULL;
	f->unsupported = PTX_NOPC;
	*idx = p->m->nfuncs++;
	if (!map_put(&p->globals, name, len, K_FUNC, *idx, 0))
		return NULL;
	return f;
}

int add_message(struct parser *p, const char *msg)
{
	struct ptx_module *m = p->m;
	for (unsigned i = 0; i < m->nmessages; i++)
		if (!strcmp(m->messages[i], msg))
			return (int)i;
	char **n = realloc(m->messages, (m->nmessages + 1) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	m->messages = n;
	if (!(n[m->nmessages] = strdup(msg)))
		return -ENOMEM;
	return (int)m->nmessages++;
}

/* ---- function bodies ------------------------------------------------------------ */

int add_insn(struct fbuild *b, struct ptx_insn **out)
{
	struct ptx_func *f = b->f;
	if (grow((void **)&f->code, &b->icap, f->ncode + 1, sizeof(*f->code)))
		return -ENOMEM;
	*out = &f->code[f->ncode];
	memset(*out, 0, sizeof(**out));
	(*out)->guard = -1;
	(*out)->line = b->cur_line;
	(*out)->file = (uint16_t)b->cur_file;
	(*out)->iline = b->cur_inl; /* a locnode until attribute_lines() */
	return 0;
}

/* .reg/.local/.shared/.param inside a body. */
static int body_decl(struct parser *p, struct fbuild *b, struct tok *dt)
{
	struct decl d;
	p->i++;
	if (parse_decl(p, &d))
		return p->rc;
	for (;;) {
		if (tok_is(dt, ".reg")) {
			/* nvcc declares a few thousand at most; a huge range would take
			 * minutes to name and gigabytes of register file per warp */
			if (d.range && d.count > PTX_MAX_REG_RANGE)
				return perr(p, dt->line,
					    "'.reg %.*s<%llu>': more registers than the emulator takes in one declaration (%u)",
					    (int)d.nlen, d.name, (unsigned long long)d.count,
					    PTX_MAX_REG_RANGE);
			unsigned n = d.range ? (unsigned)d.count : 1;
			for (unsigned k = 0; k < n; k++) {
				char name[160];
				int len = d.range ? snprintf(name, sizeof name, "%.*s%u", (int)d.nlen,
							     d.name, k)
						  : snprintf(name, sizeof name, "%.*s", (int)d.nlen,
							     d.name);
				struct ment *e = map_get(&b->names, name, (size_t)len);
				if (e && e->kind == K_REG)
					continue;
				if (!map_put(&b->names, name, (size_t)len, K_REG, b->f->nslots++,
					     d.type))
					return -ENOMEM;
			}
		} else if (tok_is(dt, ".local")) {
			size_t size = ptx_type_size(d.type) * d.vec * (d.count ? d.count : 1);
			b->f->local_size = align_up(b->f->local_size, d.align);
			if (!map_put(&b->names, d.name, d.nlen, K_LOCAL, b->f->local_size, d.type))
				return -ENOMEM;
			b->f->local_size += size;
		} else if (tok_is(dt, ".param")) {
			size_t size = ptx_type_size(d.type) * d.vec * (d.count ? d.count : 1);
			b->f->fparam_size = align_up(b->f->fparam_size, d.align > 8 ? d.align : 8);
			if (!map_put(&b->names, d.name, d.nlen, K_FPARAM, b->f->fparam_size, d.type))
				return -ENOMEM;
			b->f->fparam_size += size;
		} else if (tok_is(dt, ".shared")) {
			struct ptx_symbol *s = new_symbol(p, &d, SP_SHARED);
			if (!s)
				return -ENOMEM;
			place_static_shared(p, s, d.align);
			b->f->shared_size += s->size;
		} else {
			return perr(p, dt->line, "'%.*s' is not supported inside a function",
				    (int)dt->len, dt->p);
		}
		if (peek(p)->kind != ',')
			break;
		p->i++;
		/* another name of the same type */
		struct tok *n = peek(p);
		d.name = n->p;
		d.nlen = n->len;
		d.range = 0;
		d.count = 1;
		p->i++;
		if (peek(p)->kind == '<') {
			p->i++;
			d.count = strtoull(peek(p)->p, NULL, 0);
			d.range = 1;
			p->i += 2;
		}
	}
	if (peek(p)->kind == '=')
		return perr(p, dt->line, "initialised function-scope variables are not supported");
	if (peek(p)->kind != ';')
		return perr(p, peek(p)->line, "expected ';'");
	p->i++;
	return 0;
}

/* The key of a source position in fbuild.locs. */
static int loc_key(char *key, size_t len, const unsigned v[3])
{
	return snprintf(key, len, "%u:%u:%u", v[0], v[1], v[2]);
}

/* A new locnode at position v, inlined at parent. Returns its index + 1, 0 on ENOMEM. */
static uint32_t loc_add(struct parser *p, struct fbuild *b, const unsigned v[3], uint32_t parent)
{
	char key[48];
	int n = loc_key(key, sizeof key, v);
	if (grow((void **)&p->locs, &p->loccap, p->nlocs + 1, sizeof(*p->locs)))
		return 0;
	p->locs[p->nlocs] = (struct locnode){ v[1], (uint16_t)v[0], parent };
	if (!map_put(&b->locs, key, (size_t)n, K_LABEL, p->nlocs, 0))
		return 0;
	return (uint32_t)++p->nlocs;
}

/* The locnode of an inlined_at position: the latest .loc at that position (which has
 * its own inlined_at), or a new outermost one. Returns index + 1, 0 on ENOMEM. */
static uint32_t loc_parent(struct parser *p, struct fbuild *b, const unsigned v[3])
{
	char key[48];
	int n = loc_key(key, sizeof key, v);
	struct ment *e = map_get(&b->locs, key, (size_t)n);
	return e ? (uint32_t)e->val + 1 : loc_add(p, b, v, 0);
}

/* .loc FILE LINE COL [, function_name X, inlined_at F L C]: nvcc emits one .loc per
 * level of inlining, each naming the position it was inlined at, so the chain up to
 * the kernel's line is rebuilt from the earlier ones. */
static void body_loc(struct parser *p, struct fbuild *b, unsigned line)
{
	p->i++;
	unsigned v[3] = { 0, 0, 0 }, iv[3] = { 0, 0, 0 };
	int k = 0, inl = 0;
	while (p->i < p->nt && p->t[p->i].line == line) {
		struct tok *t = &p->t[p->i++];
		if (tok_is(t, "inlined_at")) {
			inl = 1;
			k = 0;
			continue;
		}
		if (t->kind == 'w' && isdigit((unsigned char)t->p[0]) && k < 3) {
			unsigned x = (unsigned)strtoul(t->p, NULL, 10);
			if (inl)
				iv[k++] = x;
			else
				v[k++] = x;
		}
	}
	if (v[1] == 0) /* line 0: compiler-generated; keep the previous line */
		return;
	b->cur_file = v[0];
	b->cur_line = v[1];
	b->cur_inl = 0;
	if (inl) {
		uint32_t parent = loc_parent(p, b, iv);
		b->cur_inl = parent ? loc_add(p, b, v, parent) : 0; /* ENOMEM: just no chain */
	}
}

static int parse_body(struct parser *p, struct fbuild *b)
{
	int depth = 0;
	for (;;) {
		struct tok *t = peek(p);
		if (!t->kind)
			return perr(p, t->line, "unexpected end of file inside '%s'", b->f->name);
		if (t->kind == '{') {
			depth++;
			p->i++;
			continue;
		}
		if (t->kind == '}') {
			p->i++;
			if (--depth == 0)
				return 0;
			continue;
		}
		if (t->kind == ';') {
			p->i++;
			continue;
		}
		if (t->kind == 'w' && t->p[0] == '.') {
			if (tok_is(t, ".loc")) {
				body_loc(p, b, t->line);
			} else if (tok_is(t, ".pragma")) {
				while (peek(p)->kind && peek(p)->kind != ';')
					p->i++;
			} else if (tok_is(t, ".reg") || tok_is(t, ".local") || tok_is(t, ".param") ||
				   tok_is(t, ".shared")) {
				if (body_decl(p, b, t))
					return p->rc;
			} else {
				/* other directives inside a body: skip the line */
				unsigned l = t->line;
				while (p->i < p->nt && p->t[p->i].line == l && p->t[p->i].kind != ';')
					p->i++;
			}
			continue;
		}
		if (t->kind == 'w' && p->i + 1 < p->nt && p->t[p->i + 1].kind == ':') {
			if (!map_put(&b->names, t->p, t->len, K_LABEL, b->f->ncode, 0))
				return -ENOMEM;
			p->i += 2;
			continue;
		}
		/* an instruction, possibly guarded */
		struct ptx_insn *in;
		if (add_insn(b, &in))
			return -ENOMEM;
		struct ctx c = { p, b, in, t->line, 0, -1, NULL };
		if (t->kind == '@') {
			p->i++;
			if (peek(p)->kind == '!') {
				in->guard_neg = 1;
				p->i++;
			}
			struct ment *e = map_get(&b->names, peek(p)->p, peek(p)->len);
			if (!e || e->kind != K_REG)
				return perr(p, t->line, "unknown guard predicate");
			in->guard = (int32_t)e->val;
			p->i++;
		}
		size_t end = p->i;
		while (end < p->nt && p->t[end].kind != ';')
			end++;
		if (end >= p->nt)
			return perr(p, t->line, "missing ';'");
		if (peek(p)->kind != 'w')
			return perr(p, t->line, "expected an instruction");
		int rc = decode_insn(&c, end);
		if (rc)
			return p->rc ? p->rc : rc;
		p->i = end + 1;
		b->f->ncode++;
	}
}

/* "( .param .b32 name, ... )" into params[]. */
static int parse_params(struct parser *p, struct ptx_func *f, struct fbuild *b, int is_ret)
{
	p->i++; /* ( */
	size_t off = 0;
	while (peek(p)->kind && peek(p)->kind != ')') {
		if (peek(p)->kind == ',') {
			p->i++;
			continue;
		}
		if (!tok_is(peek(p), ".param") && !tok_is(peek(p), ".reg"))
			return perr(p, peek(p)->line, "expected .param");
		p->i++;
		struct decl d;
		if (parse_decl(p, &d))
			return p->rc;
		size_t size = ptx_type_size(d.type) * d.vec * (d.count ? d.count : 1);
		size_t al = d.align;
		if (!is_ret && f->is_entry && !d.is_array && al < size)
			al = size;
		off = align_up(off, al);
		struct ptx_param pr = { strndup(d.name, d.nlen), size, al, off };
		if (!pr.name)
			return -ENOMEM;
		if (!f->is_entry) {
			/* a .func's params live in its frame's per-lane .param area */
			f->fparam_size = align_up(f->fparam_size, 8);
			pr.offset = f->fparam_size;
			f->fparam_size += size;
		}
		if (is_ret) {
			f->ret = pr;
			f->has_ret = 1;
		} else {
			struct ptx_param *np = realloc(f->params, (f->nparams + 1) * sizeof(*np));
			if (!np) {
				free(pr.name);
				return -ENOMEM;
			}
			f->params = np;
			f->params[f->nparams++] = pr;
		}
		off += size;
		if (b) {
			int kind = f->is_entry ? K_KPARAM : K_FPARAM;
			if (!map_put(&b->names, d.name, d.nlen, kind, pr.offset, d.type))
				return -ENOMEM;
		}
	}
	p->i++;
	if (f->is_entry && !is_ret)
		f->param_size = off;
	return 0;
}

static void fbuild_release(struct fbuild *b)
{
	map_free(&b->names);
	map_free(&b->locs);
	free(b->imm_reloc);
	for (size_t i = 0; i < b->nbr; i++)
		free(b->br[i].name);
	free(b->br);
}

int ptx_file_is_system(const char *path)
{
	return path && (strstr(path, "/cuda") || strstr(path, "/targets/")) &&
	       (strstr(path, "/include/") || strstr(path, "/targets/"));
}

/* .entry / .func (header, params, optional body). */
int parse_function(struct parser *p, int is_entry, int is_extern)
{
	struct tok *t = peek(p);
	unsigned line = t->line;
	p->i++;
	/* optional return parameter list for .func */
	size_t save = p->i;
	int has_ret = 0;
	if (peek(p)->kind == '(') {
		has_ret = 1;
		while (peek(p)->kind && peek(p)->kind != ')')
			p->i++;
		p->i++;
	}
	struct tok *name = peek(p);
	if (name->kind != 'w')
		return perr(p, name->line, "expected a function name");
	unsigned fidx;
	struct ptx_func *f = func_new(p, name->p, name->len, &fidx);
	if (!f)
		return -ENOMEM;
	p->i++;
	/* reset the signature: a prototype may precede the definition */
	for (unsigned i = 0; i < f->nparams; i++)
		free(f->params[i].name);
	free(f->params);
	free(f->ret.name);
	f->params = NULL;
	f->nparams = 0;
	f->has_ret = 0;
	f->ret.name = NULL;
	f->fparam_size = 0;
	f->is_entry = is_entry;
	f->is_extern = is_extern;
	f->line = line;
	struct fbuild b = { 0 };
	b.f = f;
	b.fidx = fidx;
	f->nslots = SR__COUNT;
	if (has_ret) {
		size_t after = p->i;
		p->i = save;
		if (parse_params(p, f, &b, 1))
			goto fail;
		p->i = after;
		f->fparam_ret_off = (uint32_t)f->ret.offset;
	}
	if (peek(p)->kind == '(') {
		if (parse_params(p, f, &b, 0))
			goto fail;
	}
	/* performance directives up to the body or ';' */
	while (peek(p)->kind && peek(p)->kind != '{' && peek(p)->kind != ';')
		p->i++;
	if (peek(p)->kind == ';') {
		p->i++;
		fbuild_release(&b);
		return 0;
	}
	if (f->defined) {
		perr(p, line, "function '%s' defined twice", f->name);
		goto fail;
	}
	if (parse_body(p, &b))
		goto fail;
	f->defined = 1;
	if (finish_function(p, &b))
		goto fail;
	fbuild_release(&b);
	return 0;
fail:
	fbuild_release(&b);
	return p->rc ? p->rc : -ENOMEM;
}
