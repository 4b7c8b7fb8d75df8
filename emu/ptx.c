/* ptx — parse the PTX nvcc emits and decode it once into the compact form of
 * ptx_internal.h: opcodes from opcodes.h, operands resolved to register slots,
 * immediates pre-converted, branch targets and call targets resolved, the .cu line of
 * every instruction attached, and the reconvergence point (immediate post-dominator) of
 * every branch precomputed for the SIMT stack of exec.c.
 *
 * Instructions the emulator does not implement, and instructions with a modifier it does
 * not know (opcodes.h lists the ones each accepts), are decoded to OP_UNSUPPORTED with a
 * message naming the feature; a launch of a kernel that can reach one fails at once.
 */
#include "ptx_internal.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
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

static const char *const ptx_type_names[PT__COUNT] = {
	"", "b8", "b16", "b32", "b64", "b128", "u8", "u16", "u32", "u64", "s8", "s16", "s32",
	"s64", "f16", "f16x2", "bf16", "bf16x2", "f32", "f64", "pred",
};
static const unsigned char ptx_type_sizes[PT__COUNT] = {
	0, 1, 2, 4, 8, 16, 1, 2, 4, 8, 1, 2, 4, 8, 2, 4, 2, 4, 4, 8, 1,
};

unsigned ptx_type_size(unsigned t)
{
	return t < PT__COUNT ? ptx_type_sizes[t] : 0;
}

static int type_is_float(unsigned t)
{
	return t == PT_F32 || t == PT_F64 || t == PT_F16 || t == PT_BF16;
}

/* ---- lexer ---------------------------------------------------------------------- */

struct tok {
	const char *p;
	unsigned len, line;
	char kind; /* 'w' word, 's' string, else the punctuation character */
};

static int lex_wordch(int c)
{
	return isalnum(c) || c == '_' || c == '$' || c == '%' || c == '.';
}

/* Splits text into tokens. Returns 0 or -ENOMEM. */
static int lex(const char *s, size_t n, struct tok **out, size_t *nout)
{
	size_t cap = n / 3 + 16, nt = 0;
	struct tok *t = malloc(cap * sizeof(*t));
	unsigned line = 1;
	if (!t)
		return -ENOMEM;
	for (size_t i = 0; i < n;) {
		char c = s[i];
		if (c == '\n') {
			line++;
			i++;
			continue;
		}
		if (isspace((unsigned char)c)) {
			i++;
			continue;
		}
		if (c == '/' && i + 1 < n && s[i + 1] == '/') {
			while (i < n && s[i] != '\n')
				i++;
			continue;
		}
		if (c == '/' && i + 1 < n && s[i + 1] == '*') {
			for (i += 2; i + 1 < n && !(s[i] == '*' && s[i + 1] == '/'); i++)
				if (s[i] == '\n')
					line++;
			i += 2;
			continue;
		}
		if (nt + 1 >= cap) {
			cap *= 2;
			struct tok *nt2 = realloc(t, cap * sizeof(*t));
			if (!nt2) {
				free(t);
				return -ENOMEM;
			}
			t = nt2;
		}
		struct tok *k = &t[nt++];
		k->p = s + i;
		k->line = line;
		if (c == '"') {
			size_t j = i + 1;
			while (j < n && s[j] != '"' && s[j] != '\n')
				j += (s[j] == '\\') ? 2 : 1;
			k->kind = 's';
			k->p = s + i + 1;
			k->len = (unsigned)(j - i - 1);
			i = j + 1;
		} else if (lex_wordch((unsigned char)c)) {
			size_t j = i;
			while (j < n && (lex_wordch((unsigned char)s[j]) ||
					 (s[j] == ':' && j + 1 < n && s[j + 1] == ':') ||
					 (s[j] == ':' && j > i && s[j - 1] == ':')))
				j++;
			k->kind = 'w';
			k->len = (unsigned)(j - i);
			i = j;
		} else {
			k->kind = c;
			k->len = 1;
			i++;
		}
	}
	*out = t;
	*nout = nt;
	return 0;
}

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

static uint64_t map_hash(const char *k, size_t len)
{
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)k[i]) * 1099511628211ull;
	return h;
}

static struct ment *map_get(const struct map *m, const char *k, size_t len)
{
	if (!m->cap)
		return NULL;
	for (size_t i = map_hash(k, len) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
		struct ment *e = &m->e[i];
		if (!e->key)
			return NULL;
		if (strlen(e->key) == len && !memcmp(e->key, k, len))
			return e;
	}
}

/* Inserts or replaces. Returns the entry or NULL on ENOMEM. */
static struct ment *map_put(struct map *m, const char *k, size_t len, int kind, uint64_t val,
			    unsigned type)
{
	if ((m->n + 1) * 2 > m->cap) {
		size_t ncap = m->cap ? m->cap * 2 : 64;
		struct ment *ne = calloc(ncap, sizeof(*ne));
		if (!ne)
			return NULL;
		for (size_t i = 0; i < m->cap; i++) {
			if (!m->e[i].key)
				continue;
			size_t j = map_hash(m->e[i].key, strlen(m->e[i].key)) & (ncap - 1);
			while (ne[j].key)
				j = (j + 1) & (ncap - 1);
			ne[j] = m->e[i];
		}
		free(m->e);
		m->e = ne;
		m->cap = ncap;
	}
	struct ment *e = map_get(m, k, len);
	if (!e) {
		size_t i = map_hash(k, len) & (m->cap - 1);
		while (m->e[i].key)
			i = (i + 1) & (m->cap - 1);
		e = &m->e[i];
		if (!(e->key = strndup(k, len)))
			return NULL;
		m->n++;
	}
	e->kind = kind;
	e->val = val;
	e->type = (unsigned char)type;
	return e;
}

static void map_free(struct map *m)
{
	for (size_t i = 0; i < m->cap; i++)
		free(m->e[i].key);
	free(m->e);
	m->e = NULL;
	m->cap = m->n = 0;
}

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

static int perr(struct parser *p, unsigned line, const char *fmt, ...)
{
	if (p->rc)
		return p->rc;
	p->rc = -EINVAL;
	if (p->err && p->errlen) {
		int k = snprintf(p->err, p->errlen, "%s:%u: ", p->path, line);
		va_list ap;
		va_start(ap, fmt);
		if (k >= 0 && (size_t)k < p->errlen)
			vsnprintf(p->err + k, p->errlen - (size_t)k, fmt, ap);
		va_end(ap);
	}
	return p->rc;
}

static int tok_is(const struct tok *t, const char *s)
{
	return t->kind == 'w' && strlen(s) == t->len && !memcmp(t->p, s, t->len);
}

static struct tok *peek(struct parser *p)
{
	static struct tok eof = { "", 0, 0, 0 };
	return p->i < p->nt ? &p->t[p->i] : &eof;
}

static int grow(void **arr, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return 0;
	size_t nc = *cap ? *cap : 16;
	while (nc < need)
		nc *= 2;
	void *n = realloc(*arr, nc * elem);
	if (!n)
		return -ENOMEM;
	memset((char *)n + *cap * elem, 0, (nc - *cap) * elem);
	*arr = n;
	*cap = nc;
	return 0;
}

static unsigned parse_type_word(const char *s, size_t len)
{
	if (len && s[0] == '.') {
		s++;
		len--;
	}
	for (unsigned t = 1; t < PT__COUNT; t++)
		if (strlen(ptx_type_names[t]) == len && !memcmp(ptx_type_names[t], s, len))
			return t;
	return PT_NONE;
}

/* Parses an integer or float literal token (0f/0d hex floats, hex, decimal).
 * *is_float: 1 for 0f (f32 bits), 2 for 0d (f64 bits), 3 for a decimal float (double). */
static int parse_number(const struct tok *t, uint64_t *val, int *is_float)
{
	char buf[80];
	if (t->kind != 'w' || t->len >= sizeof(buf) || !isdigit((unsigned char)t->p[0]))
		return -1;
	memcpy(buf, t->p, t->len);
	buf[t->len] = 0;
	*is_float = 0;
	char *end;
	if ((buf[1] == 'f' || buf[1] == 'F') && buf[0] == '0' && t->len == 10) {
		*val = strtoull(buf + 2, &end, 16);
		*is_float = 1;
	} else if ((buf[1] == 'd' || buf[1] == 'D') && buf[0] == '0' && t->len == 18) {
		*val = strtoull(buf + 2, &end, 16);
		*is_float = 2;
	} else if (strchr(buf, '.') || ((strchr(buf, 'e') || strchr(buf, 'E')) &&
					 !(buf[1] == 'x' || buf[1] == 'X'))) {
		double d = strtod(buf, &end);
		memcpy(val, &d, 8);
		*is_float = 3;
	} else {
		*val = strtoull(buf, &end, 0);
	}
	if (*end == 'U' || *end == 'u')
		end++;
	return *end ? -1 : 0;
}

/* Converts a literal to the bit pattern an operand of type ty holds. */
static uint64_t literal_bits(uint64_t v, int is_float, int neg, unsigned ty)
{
	double d;
	if (is_float == 1) {
		uint32_t u = (uint32_t)v;
		float f;
		memcpy(&f, &u, 4);
		d = f;
	} else if (is_float >= 2) {
		memcpy(&d, &v, 8);
	} else if (type_is_float(ty)) {
		d = (double)(int64_t)v;
	} else {
		if (neg)
			v = (uint64_t)0 - v;
		unsigned sz = ptx_type_size(ty);
		if (ty == PT_PRED)
			return v != 0;
		return sz && sz < 8 ? v & ((1ull << (sz * 8)) - 1) : v;
	}
	if (neg)
		d = -d;
	if (ty == PT_F64) {
		memcpy(&v, &d, 8);
		return v;
	}
	if (ty == PT_F32 || !type_is_float(ty)) {
		if (!type_is_float(ty) && is_float == 0)
			return v;
		float f = (float)d;
		uint32_t u;
		memcpy(&u, &f, 4);
		return u;
	}
	return v;
}

/* ---- functions and slots -------------------------------------------------------- */

/* The slot of immediate v. Equal immediates share a slot, except relocated ones
 * (reloc: the address of extern __shared__, moved past the static .shared at the end of
 * the module): a plain 0 sharing the slot of a relocated 0 would become the dynamic
 * shared base too. */
static int slot_imm(struct fbuild *b, uint64_t v, int reloc)
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

static int add_message(struct parser *p, const char *msg)
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

/* ---- declarations --------------------------------------------------------------- */

struct decl {
	unsigned type, align, vec;
	const char *name;
	unsigned nlen;
	size_t count; /* elements (1 for scalars); 0 for name[] */
	int is_array, range; /* range: name<N> */
	int managed;         /* .attribute(.managed): a __managed__ variable */
};

/* Parses "[.align N] [.vN] .type name[<N>|[N]...]" at the cursor. */
static int parse_decl(struct parser *p, struct decl *d)
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

static size_t align_up(size_t v, size_t a)
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

/* A module-level .global/.const/.shared variable. */
static int parse_module_var(struct parser *p, enum ptx_space sp, int is_extern)
{
	struct decl d;
	if (parse_decl(p, &d))
		return p->rc;
	size_t size = ptx_type_size(d.type) * d.vec * d.count;
	struct ptx_module *m = p->m;
	if (grow((void **)&m->syms, &p->scap, m->nsyms + 1, sizeof(*m->syms)))
		return -ENOMEM;
	struct ptx_symbol *s = &m->syms[m->nsyms];
	if (!(s->name = strndup(d.name, d.nlen)))
		return -ENOMEM;
	s->space = sp;
	s->size = size;
	if (sp == SP_SHARED) {
		if (is_extern && d.count == 0) {
			s->addr = (devaddr_t)-1; /* dynamic: fixed up at the end */
			if (d.align > m->extern_shared_align)
				m->extern_shared_align = d.align;
		} else {
			p->shared_next = align_up(p->shared_next, d.align);
			s->addr = p->shared_next;
			p->shared_next += size;
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
	if (!map_put(&p->globals, d.name, d.nlen, K_SYM, m->nsyms, d.type))
		return -ENOMEM;
	m->nsyms++;
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

/* ---- instructions --------------------------------------------------------------- */

struct opnd {
	struct tok *t; /* first token */
	size_t n;      /* tokens */
};

/* Splits the tokens of an instruction into comma-separated operands at depth 0. */
static int split_operands(struct parser *p, size_t end, struct opnd *ops, int max)
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
		if (strlen(ptx_sregs[i].name) == t->len && !memcmp(ptx_sregs[i].name, t->p, t->len))
			return ptx_sregs[i].slot;
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
		if (s->space == SP_SHARED && s->addr == (devaddr_t)-1)
			return reloc_imm(c, 0);
		return slot_imm(c->b, s->addr, 0);
	}
	if (g && g->kind == K_FUNC)
		return slot_imm(c->b, g->val, 0);
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
static int scalar_operand(struct ctx *c, struct tok *t, size_t n, unsigned ty)
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
static int address_operand(struct ctx *c, struct tok *t, size_t n)
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
static int vector_operand(struct ctx *c, struct tok *t, size_t n, uint32_t *slots, int max,
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

static const char *const cmp_names[] = { "eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi",
					 "hs", "equ", "neu", "ltu", "leu", "gtu", "geu", "num",
					 "nan" };

static int word_in(const char *w, size_t len, const char *const *list, int n)
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
	if (MN("wmma") || MN("mma") || MN("wgmma") || MN("ldmatrix") || MN("stmatrix") ||
	    MN("movmatrix") || MN("tcgen05"))
		return "wmma/mma (tensor cores) is not emulated";
	if (MN("tex") || MN("tld4") || MN("txq") || MN("suld") || MN("sust") || MN("sured") ||
	    MN("suq") || MN("istypep"))
		return "textures and surfaces are not emulated";
	if (MN("mbarrier") || MN("cp") || MN("cp.async"))
		return "asynchronous copies and mbarrier (cp.async, TMA) are not emulated";
	if (MN("tensormap"))
		return "tensor maps (TMA) are not emulated";
	if (MN("griddepcontrol"))
		return "programmatic dependent launch is not emulated";
	if (MN("multimem"))
		return "multimem (NVLink multicast) is not emulated";
	if (MN("elect") || MN("setmaxnreg") || MN("stackrestore") || MN("stacksave") ||
	    MN("alloca"))
		return NULL;
	return NULL;
#undef MN
}

struct mods {
	unsigned types[3];
	int ntypes;
	const char *w[16];
	size_t wl[16];
	int nw;
	int overflow; /* more modifiers than w[] holds */
};

static int has_mod(const struct mods *md, const char *s)
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

static int add_unsupported(struct ctx *c, const char *what, const struct tok *t)
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
	if (e && e->kind == K_REG) {
		return add_unsupported(c, "indirect calls through function pointers are not "
					  "emulated", NULL);
	}
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
	/* the callee is resolved once the whole module is read */
	if (grow((void **)&p->calls, &p->callcap, p->ncalls + 1, sizeof(*p->calls)))
		return -ENOMEM;
	p->calls[p->ncalls].pc = (c->b->fidx << 20) | c->b->f->ncode;
	if (!(p->calls[p->ncalls].name = strndup(fn->p, fn->len)))
		return -ENOMEM;
	p->ncalls++;
	in->op = OP_CALL;
	return 0;
}

/* Decodes one instruction (tokens [p->i, end)) into in. */
static int decode_insn(struct ctx *c, size_t end)
{
	struct parser *p = c->p;
	struct ptx_insn *in = c->in;
	struct tok *ot = &p->t[p->i];
	size_t mlen;
	struct mods md;
	split_mods(ot, &mlen, &md);
	p->i++;
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
	static const char *const rnds[] = { "", "rn", "rz", "rm", "rp", "rni", "rzi", "rmi", "rpi" };
	for (int i = 0; i < md.nw; i++) {
		int r = word_in(md.w[i], md.wl[i], rnds, 9);
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
	if ((mlen == 9 && !memcmp(ot->p, "nanosleep", 9)) ||
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
		if (!found || in->vec > 1 || in->type == PT_F16 || in->type == PT_F16X2 ||
		    in->type == PT_BF16 || in->type == PT_BF16X2 || in->type == PT_B128)
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
	if (op == OP_PRMT && md.nw > 0)
		return add_unsupported(c, "prmt with a mode (.f4e, .b4e, ...) is not emulated", NULL);
	if (op == OP_LD || op == OP_ST || op == OP_CVTA || op == OP_ISSPACEP)
		decode_space(in, &md);
	if (op == OP_LD && in->space == SP_FPARAM && c->b->f->is_entry)
		in->space = SP_KPARAM; /* ld.param [%rd] in a kernel; named params override */
	if (op == OP_CVTA)
		in->cvta_to = has_mod(&md, "to");
	if ((op == OP_LD || op == OP_ST) && (in->type == PT_B128))
		return add_unsupported(c, "128-bit loads and stores are not emulated", NULL);
	if (type_is_float(in->type) && in->type != PT_F32 && in->type != PT_F64 &&
	    op != OP_LD && op != OP_ST && op != OP_MOV && op != OP_CVT)
		return add_unsupported(c, "half-precision (f16/bf16) arithmetic is not emulated",
				       NULL);
	if (in->type == PT_F16X2 || in->type == PT_BF16X2 || in->type2 == PT_F16X2 ||
	    in->type2 == PT_BF16X2)
		if (op != OP_LD && op != OP_ST && op != OP_MOV)
			return add_unsupported(c, "packed half-precision (f16x2) arithmetic is not "
						  "emulated", NULL);

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
		else if (s->len >= 7 && !memcmp(s->p, "%envreg", 7)) /* the grid's barrier */
			snprintf(what, sizeof what, "grid-wide synchronisation (this_grid().sync()) "
				 "is not emulated");
		else
			snprintf(what, sizeof what, "the special register %.*s is not emulated",
				 (int)s->len, s->p);
		return add_unsupported(c, what, NULL);
	}
	if (c->clock) {
		in->op = OP_CLOCK;
		in->mod = (uint8_t)c->clock;
	}
	if (op == OP_LD && (in->type == PT_F16 || in->type == PT_BF16))
		in->type = PT_B16;
	if (op == OP_ST && (in->type == PT_F16 || in->type == PT_BF16))
		in->type = PT_B16;
	if (op == OP_ST && in->space == SP_KPARAM)
		return perr(p, c->line, "st.param to a kernel parameter");
	return 0;
}

/* ---- function bodies ------------------------------------------------------------ */

static int add_insn(struct fbuild *b, struct ptx_insn **out)
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
			size_t size = ptx_type_size(d.type) * d.vec * d.count;
			struct ptx_module *m = p->m;
			if (grow((void **)&m->syms, &p->scap, m->nsyms + 1, sizeof(*m->syms)))
				return -ENOMEM;
			struct ptx_symbol *s = &m->syms[m->nsyms];
			if (!(s->name = strndup(d.name, d.nlen)))
				return -ENOMEM;
			s->space = SP_SHARED;
			s->size = size;
			p->shared_next = align_up(p->shared_next, d.align);
			s->addr = p->shared_next;
			p->shared_next += size;
			b->f->shared_size += size;
			if (!map_put(&p->globals, d.name, d.nlen, K_SYM, m->nsyms, d.type))
				return -ENOMEM;
			m->nsyms++;
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

static int finish_function(struct parser *p, struct fbuild *b);

/* .entry / .func (header, params, optional body). */
static int parse_function(struct parser *p, int is_entry, int is_extern)
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

static int finish_function(struct parser *p, struct fbuild *b)
{
	struct ptx_func *f = b->f;
	for (size_t i = 0; i < b->nbr; i++) {
		struct ment *e = map_get(&b->names, b->br[i].name, strlen(b->br[i].name));
		if (!e || e->kind != K_LABEL)
			return perr(p, f->code[b->br[i].pc].line ? f->line : f->line,
				    "unknown label '%s' in '%s'", b->br[i].name, f->name);
		f->code[b->br[i].pc].target = (uint32_t)e->val;
	}
	if (f->ncode == 0 || !is_terminator(&f->code[f->ncode - 1]) ||
	    f->code[f->ncode - 1].guard >= 0) {
		/* falling off the end returns */
		struct ptx_insn *in;
		if (add_insn(b, &in))
			return -ENOMEM;
		in->op = OP_RET;
		f->ncode++;
	}
	return compute_reconvergence(f);
}

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
		if (!strncmp(name, "cudaLaunchDevice", 16) || !strncmp(name, "cudaGetParameterBuffer", 22) ||
		    !strncmp(name, "__cudaCDP", 9))
			what = "dynamic parallelism (a kernel launching kernels) is not emulated; run "
			       "with --backend gpu";
		else if (!strncmp(name, "cudaCG", 6)) /* the grid barrier of older toolkits */
			what = "grid-wide synchronisation (this_grid().sync()) is not emulated; run "
			       "with --backend gpu";
		else if (!strcmp(name, "malloc") || !strcmp(name, "free"))
			what = "device-side malloc/free is not emulated; run with --backend gpu";
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
				if (in->op == OP_CALL &&
				    m->funcs[in->target].unsupported != PTX_NOPC) {
					f->unsupported = pc;
					changed = 1;
					break;
				}
			}
		}
	}
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
