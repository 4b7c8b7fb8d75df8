/* ptx_decl — declarations: the "[.align N] [.vN] .type name[N]" every variable and
 * parameter is written as, and module-scope .global/.const/.shared variables with their
 * initialisers. Separate: a declaration is not an instruction.
 */
#include "ptx_parser.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* ---- declarations --------------------------------------------------------------- */

/* Parses "[.align N] [.vN] .type name[<N>|[N]...]" at the cursor. */
int parse_decl(struct parser *p, struct decl *d)
{
	memset(d, 0, sizeof(*d));
	d->vec = 1;
	d->count = 1;
	for (;;) {
		struct tok *t = peek(p);
		if (t->kind != 'w')
			return perr(p, t->line, "expected a declaration");
		if (tok_is(t, ".align")) {
			p->i++;
			d->align = (unsigned)strtoul(peek(p)->p, NULL, 0);
			p->i++;
		} else if (tok_is(t, ".v2") || tok_is(t, ".v4") || tok_is(t, ".v8")) {
			d->vec = (unsigned)(t->p[2] - '0');
			p->i++;
		} else if (tok_is(t, ".attribute")) {
			p->i++;
			if (peek(p)->kind == '(') {
				while (peek(p)->kind && peek(p)->kind != ')') {
					if (tok_is(peek(p), ".managed"))
						d->managed = 1;
					p->i++;
				}
				p->i++;
			}
		} else if (tok_is(t, ".ptr") || tok_is(t, ".global") || tok_is(t, ".const") ||
			   tok_is(t, ".shared") || tok_is(t, ".local") || tok_is(t, ".volatile")) {
			p->i++;
		} else if (t->p[0] == '.') {
			unsigned ty = parse_type_word(t->p, t->len);
			if (!ty) {
				if (tok_is(t, ".texref") || tok_is(t, ".surfref") ||
				    tok_is(t, ".samplerref")) {
					d->type = PT_B64;
					p->i++;
					continue;
				}
				return perr(p, t->line, "unknown type '%.*s'", (int)t->len, t->p);
			}
			d->type = ty;
			p->i++;
		} else {
			break;
		}
	}
	struct tok *n = peek(p);
	d->name = n->p;
	d->nlen = n->len;
	p->i++;
	if (peek(p)->kind == '<') {
		p->i++;
		d->count = strtoull(peek(p)->p, NULL, 0);
		d->range = 1;
		p->i += 2;
	}
	while (peek(p)->kind == '[') {
		p->i++;
		d->is_array = 1;
		if (peek(p)->kind == ']') {
			d->count = 0;
		} else {
			d->count *= strtoull(peek(p)->p, NULL, 0);
			p->i++;
		}
		if (peek(p)->kind != ']')
			return perr(p, peek(p)->line, "expected ']'");
		p->i++;
	}
	if (!d->type)
		return perr(p, n->line, "declaration of '%.*s' without a type", (int)n->len, n->p);
	if (!d->align)
		d->align = ptx_type_size(d->type) * d->vec;
	if (!d->align)
		d->align = 1;
	return 0;
}

size_t align_up(size_t v, size_t a)
{
	return a ? (v + a - 1) / a * a : v;
}

/* Parses an initialiser list into buf (elements of esize bytes). */
static int parse_init(struct parser *p, unsigned type, unsigned char *buf, size_t size)
{
	size_t esz = ptx_type_size(type), pos = 0;
	int depth = 0;
	for (;;) {
		struct tok *t = peek(p);
		if (t->kind == '{') {
			depth++;
			p->i++;
			continue;
		}
		if (t->kind == '}') {
			depth--;
			p->i++;
			if (depth <= 0)
				break;
			continue;
		}
		if (t->kind == ',') {
			p->i++;
			continue;
		}
		if (t->kind == ';' || !t->kind)
			break;
		int neg = 0;
		if (t->kind == '-') {
			neg = 1;
			p->i++;
			t = peek(p);
		}
		uint64_t v = 0;
		int isf;
		if (parse_number(t, &v, &isf) == 0) {
			v = literal_bits(v, isf, neg, type);
			p->i++;
		} else if (t->kind == 'w') {
			/* generic(sym) or sym: an address */
			const struct tok *s = t;
			if (tok_is(t, "generic")) {
				p->i += 2;
				s = peek(p);
			}
			struct ment *e = map_get(&p->globals, s->p, s->len);
			if (e && e->kind == K_SYM)
				v = p->m->syms[e->val].addr;
			else if (e && e->kind == K_FUNC) /* vtables, function pointer tables */
				v = ptx_func_addr(p->m, (unsigned)e->val);
			p->i++;
			if (peek(p)->kind == ')')
				p->i++;
			if (peek(p)->kind == '+') {
				p->i++;
				uint64_t a = 0;
				int f2;
				if (!parse_number(peek(p), &a, &f2))
					v += a;
				p->i++;
			}
		} else {
			return perr(p, t->line, "bad initialiser");
		}
		if (pos + esz <= size)
			memcpy(buf + pos, &v, esz);
		pos += esz;
		if (depth == 0)
			break;
	}
	return 0;
}

/* The module's next symbol for declaration D in SP, named, sized (type x vector x
 * count) and registered under its name; its address is the caller's to set. NULL: no
 * memory. */
struct ptx_symbol *new_symbol(struct parser *p, const struct decl *d, enum ptx_space sp)
{
	struct ptx_module *m = p->m;
	if (grow((void **)&m->syms, &p->scap, m->nsyms + 1, sizeof(*m->syms)))
		return NULL;
	struct ptx_symbol *s = &m->syms[m->nsyms];
	if (!(s->name = strndup(d->name, d->nlen)))
		return NULL;
	s->space = sp;
	s->size = ptx_type_size(d->type) * d->vec * d->count;
	if (!map_put(&p->globals, d->name, d->nlen, K_SYM, m->nsyms, d->type))
		return NULL;
	m->nsyms++;
	return s;
}

/* Gives S the next ALIGN-aligned offset of the module's static shared memory, and
 * leaves its red zone after it. */
void place_static_shared(struct parser *p, struct ptx_symbol *s, unsigned align)
{
	p->shared_next = align_up(p->shared_next, align);
	s->addr = p->shared_next;
	p->shared_next += s->size + ptx_shared_redzone(s->size);
}

/* A module-level .global/.const/.shared variable. */
int parse_module_var(struct parser *p, enum ptx_space sp, int is_extern)
{
	struct decl d;
	if (parse_decl(p, &d))
		return p->rc;
	struct ptx_module *m = p->m;
	struct ptx_symbol *s = new_symbol(p, &d, sp);
	if (!s)
		return -ENOMEM;
	size_t size = s->size;
	if (sp == SP_SHARED) {
		if (is_extern && d.count == 0) {
			s->addr = (devaddr_t)-1; /* dynamic: fixed up at the end */
			if (d.align > m->extern_shared_align)
				m->extern_shared_align = d.align;
		} else {
			place_static_shared(p, s, d.align);
			m->module_shared += size;
		}
	} else {
		/* __managed__ variables have one address on host and device, like managed
		 * memory; the runtime points the host variable at it */
		int rc = devmem_alloc(size ? size : 1, d.managed ? DEVMEM_MANAGED : DEVMEM_SYMBOL,
				      s->name, &s->addr);
		if (rc)
			return rc;
	}
	if (peek(p)->kind == '=') {
		p->i++;
		unsigned char *buf = devmem_host(s->addr, size);
		if (!buf)
			return perr(p, peek(p)->line, "initialiser for a variable without storage");
		if (parse_init(p, d.type, buf, size))
			return p->rc;
	}
	if (peek(p)->kind != ';')
		return perr(p, peek(p)->line, "expected ';' after the declaration of '%s'",
			    s->name);
	p->i++;
	return 0;
}
