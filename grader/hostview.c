/* hostview: the host view of a CUDA file; see hostview.h. */
#include "hostview.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clex.h"

#define MAX_DEPTH 256
#define MAX_IFS 64

/* What an open brace belongs to. */
enum brace {
	BR_OPEN,   /* namespace or extern "C": declarations go on inside */
	BR_OTHER,  /* a type, an initialiser, a block inside a body */
	BR_HOST,   /* the body of a function with host code (__host__ __device__ too) */
	BR_DEVICE, /* the body of a device-only function */
};

/* The declaration being read at namespace scope: what came since the last ';' or body. */
struct decl {
	bool global, device, host; /* __global__, __device__, __host__ */
	bool templ, stat;          /* template, static */
	bool space;                /* __constant__ or __managed__ */
	bool ns, ext;              /* namespace; extern */
	bool type_kw;              /* struct, class, union or enum before any '(' */
	bool eq;                   /* an '=' outside parentheses */
	bool params;               /* a parenthesised list closed */
	int paren;                 /* parentheses open */
	bool started;              /* a token of it read (its first is reader.decl_start) */
};

struct reader {
	const struct clex *lx;
	const char *doubt;
	enum brace stack[MAX_DEPTH];
	unsigned depth;
	int device_at;         /* the depth just inside the open device body, or -1 */
	int if_depth[MAX_IFS]; /* brace depth at each open #if */
	unsigned nifs;
	struct decl d;
	bool last_string;      /* the last token was a string literal */
	FILE *out;
	unsigned n_device;
	size_t decl_start;     /* the first token of the declaration being read */
	char *device;          /* the device view being made (a copy of the source) */
	bool device_doubt;     /* the device view cannot be trusted */
};

/* The device view: blanks the bytes of tokens FROM..TO, but not those of directives (a
 * #define in a host body counts for the device code below) and not newlines, so every
 * line and column stays where it was. */
static void blank(struct reader *r, size_t from, size_t to)
{
	for (size_t k = from; k <= to; k++) {
		const struct clex_token *t = &r->lx->tok[k];
		if (t->flags & CLEX_DIRECTIVE)
			continue;
		for (size_t b = t->off; b < t->off + t->len; b++)
			if (r->device[b] != '\n')
				r->device[b] = ' ';
	}
}

/* Headers of the host's C library that NVRTC cannot open; what device code takes from
 * them (printf, malloc, memcpy, the math functions with their float overloads) NVRTC
 * declares itself, and what it does not (a macro: INT_MAX, M_PI) is an error there, so
 * nvcc builds it. */
static void blank_host_include(struct reader *r, size_t hash)
{
	static const char *const host_only[] = { "<stdio.h>", "<stdlib.h>", "<string.h>", "<math.h>",
						 "<limits.h>", "<cstdio>", "<cstdlib>", "<cstring>",
						 "<cmath>", "<climits>" };
	const struct clex *lx = r->lx;
	size_t i = hash + 2;
	if (i >= lx->n || lx->tok[i].kind != CLEX_HEADER || lx->tok[i].directive != (long)hash)
		return;
	for (unsigned k = 0; k < sizeof(host_only) / sizeof(host_only[0]); k++)
		if (lx->tok[i].len == strlen(host_only[k]) &&
		    memcmp(lx->src + lx->tok[i].off, host_only[k], lx->tok[i].len) == 0)
			memset(r->device + lx->tok[hash].off, ' ', lx->tok[i].off + lx->tok[i].len - lx->tok[hash].off);
}

static void doubt(struct reader *r, const char *why)
{
	if (!r->doubt)
		r->doubt = why;
}

/* Are we reading declarations (every open brace a namespace's)? */
static bool at_decl_level(const struct reader *r)
{
	return r->depth == 0 || r->stack[r->depth - 1] == BR_OPEN;
}

/* A directive (its '#' is token I): what it may change for the view. */
static void directive(struct reader *r, size_t i)
{
	const struct clex *lx = r->lx;
	bool word = i + 1 < lx->n && lx->tok[i + 1].directive == (long)i;
	if (!word)
		return;
#define IS(w) clex_is(lx, i + 1, w)
	if (IS("include") && i + 2 < lx->n && lx->tok[i + 2].kind == CLEX_STRING)
		doubt(r, "it includes a header of its own, which the host view does not hold");
	if (IS("include"))
		blank_host_include(r, i);
	if (IS("define"))
		for (size_t k = i + 2; k < lx->n && lx->tok[k].directive == (long)i; k++)
			if (clex_is(lx, k, "__global__") || clex_is(lx, k, "__device__") ||
			    clex_is(lx, k, "__host__"))
				doubt(r, "a macro stands for __global__, __device__ or __host__");
	if (IS("if") || IS("ifdef") || IS("ifndef")) {
		if (r->nifs == MAX_IFS)
			doubt(r, "#if nested too deeply");
		else
			r->if_depth[r->nifs++] = (int)r->depth;
	}
	if (IS("endif") && (!r->nifs || r->if_depth[--r->nifs] != (int)r->depth))
		doubt(r, "an #if ... #endif opens or closes a brace");
	if (IS("else") || IS("elif") || IS("line"))
		doubt(r, "#else, #elif or #line");
#undef IS
}

static void decl_word(struct reader *r, size_t i)
{
	const struct clex *lx = r->lx;
	struct decl *d = &r->d;
	if (clex_is(lx, i, "__global__"))
		d->global = true;
	else if (clex_is(lx, i, "__device__"))
		d->device = true;
	else if (clex_is(lx, i, "__host__"))
		d->host = true;
	else if (clex_is(lx, i, "__constant__") || clex_is(lx, i, "__managed__"))
		d->space = true;
	else if (clex_is(lx, i, "template"))
		d->templ = true;
	else if (clex_is(lx, i, "static"))
		d->stat = true;
	else if (clex_is(lx, i, "namespace"))
		d->ns = true;
	if (clex_is(lx, i, "namespace") && i + 1 < lx->n && clex_is(lx, i + 1, "{"))
		r->device_doubt = true; /* an anonymous one: what of it NVRTC keeps, below */
	else if (clex_is(lx, i, "extern"))
		d->ext = true;
	else if ((clex_is(lx, i, "struct") || clex_is(lx, i, "class") || clex_is(lx, i, "union") ||
		  clex_is(lx, i, "enum")) && !d->params && d->paren == 0)
		d->type_kw = true;
}

/* The device view cannot stand for the file where the PTX needs what only host code
 * asks for: a kernel template's instances (host code instantiates them, and host code
 * is not in the view), a kernel or a device variable of internal linkage (static, or in
 * an anonymous namespace: NVRTC leaves out what nothing in the view uses). */
static void device_decl(struct reader *r)
{
	const struct decl *d = &r->d;
	if ((d->global && (d->templ || d->stat)) || ((d->device || d->space) && d->stat && !d->params))
		r->device_doubt = true;
}

static void open_brace(struct reader *r)
{
	enum brace kind = BR_OTHER;
	if (at_decl_level(r) && r->d.paren == 0) {
		struct decl *d = &r->d;
		if (d->ns || (d->ext && r->last_string))
			kind = BR_OPEN;
		else if (d->params && !d->eq && !d->type_kw)
			kind = (d->global || d->device) && !d->host ? BR_DEVICE : BR_HOST;
		if (kind != BR_OPEN)
			device_decl(r);
		if (kind == BR_OPEN)
			memset(d, 0, sizeof(*d));
	}
	if (r->depth == MAX_DEPTH) {
		doubt(r, "braces nested too deeply");
		return;
	}
	r->stack[r->depth++] = kind;
	if (kind == BR_DEVICE)
		r->device_at = (int)r->depth;
}

static void close_brace(struct reader *r, size_t i)
{
	if (r->depth == 0) {
		doubt(r, "a } closes nothing");
		return;
	}
	enum brace kind = r->stack[--r->depth];
	if (kind == BR_DEVICE) {
		r->device_at = -1;
		r->n_device++;
	}
	if (kind == BR_HOST && at_decl_level(r) && !r->d.global && !r->d.device)
		blank(r, r->decl_start, i); /* a host-only function: NVRTC has no host code */
	/* A body ends its declaration; a type or an initialiser goes on to its ';'. */
	if (kind != BR_OTHER && at_decl_level(r))
		memset(&r->d, 0, sizeof(r->d));
}

/* Token I outside every directive: the structure it changes. */
static void structure(struct reader *r, size_t i)
{
	const struct clex *lx = r->lx;
	const struct clex_token *t = &lx->tok[i];
	bool decl = at_decl_level(r);
	if (decl && r->nifs)
		doubt(r, "code under #if at file scope");
	if (decl && !r->d.started) {
		r->d.started = true;
		r->decl_start = i;
	}
	if (t->kind == CLEX_IDENT && decl)
		decl_word(r, i);
	if (t->kind == CLEX_STRING && lx->src[t->off + t->len - 1] != '"')
		doubt(r, "a string literal is not closed");
	if (t->kind == CLEX_STRING && i && lx->tok[i - 1].kind == CLEX_IDENT &&
	    lx->tok[i - 1].off + lx->tok[i - 1].len == t->off &&
	    lx->src[t->off - 1] == 'R')
		doubt(r, "a raw string literal");
	if (clex_is(lx, i, "__COUNTER__"))
		doubt(r, "__COUNTER__ (device bodies count too)");
	if (clex_is(lx, i, "{"))
		open_brace(r);
	else if (clex_is(lx, i, "}"))
		close_brace(r, i);
	else if (decl && clex_is(lx, i, "("))
		r->d.paren++;
	else if (decl && clex_is(lx, i, ")") && --r->d.paren == 0)
		r->d.params = true;
	else if (decl && clex_is(lx, i, "=") && r->d.paren == 0)
		r->d.eq = true;
	else if (decl && clex_is(lx, i, ";") && r->d.paren == 0) {
		device_decl(r);
		memset(&r->d, 0, sizeof(r->d));
	}
	if (r->d.paren < 0)
		doubt(r, "a ) closes nothing");
	r->last_string = t->kind == CLEX_STRING;
}

int hostview_make(const char *src, size_t len, struct hostview *out)
{
	memset(out, 0, sizeof(*out));
	struct clex lx;
	if (clex_lex(&lx, src, len) < 0)
		return -ENOMEM;
	struct reader r = { .lx = &lx, .device_at = -1, .device = malloc(len + 1) };
	r.out = r.device ? open_memstream(&out->text, &out->len) : NULL;
	if (!r.out) {
		free(r.device);
		clex_release(&lx);
		return -ENOMEM;
	}
	memcpy(r.device, src, len);
	r.device[len] = '\0';
	out->device = r.device;
	if (memchr(src, '\0', len))
		doubt(&r, "a NUL byte in the file");
	for (size_t i = 0; i < lx.n; i++) {
		const struct clex_token *t = &lx.tok[i];
		bool dir = t->flags & CLEX_DIRECTIVE;
		if (dir && t->directive == (long)i)
			directive(&r, i);
		if (clex_is(&lx, i, "__NVCC__") || clex_is(&lx, i, "__CUDACC_RTC__"))
			r.device_doubt = true; /* what tells nvcc and NVRTC apart */
		/* a device body's own braces are in the view, what is between them is not */
		bool before = r.device_at >= 0;
		if (!dir)
			structure(&r, i);
		if (!dir && before && r.device_at >= 0)
			continue;
		bool space = i == 0 || lx.tok[i - 1].off + lx.tok[i - 1].len < t->off;
		fprintf(r.out, "%u%c%.*s\n", t->line, space ? ' ' : '|', (int)t->len, src + t->off);
	}
	if (r.depth || r.d.paren || r.nifs)
		doubt(&r, "braces, parentheses or #if not closed at the end");
	out->doubt = r.doubt;
	if (r.device_doubt) {
		free(out->device);
		out->device = NULL;
	}
	out->n_device = r.n_device;
	clex_release(&lx);
	return fclose(r.out) == 0 && out->text ? 0 : -ENOMEM;
}

void hostview_release(struct hostview *v)
{
	free(v->text);
	free(v->device);
	memset(v, 0, sizeof(*v));
}
