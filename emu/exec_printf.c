/* exec_printf — device printf and the strings of __assertfail: the format read from
 * device memory lane by lane and printed into the block's buffer, which exec.c writes
 * out in block order. Separate: nothing else in the interpreter formats text.
 */
#include "exec_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- device printf -------------------------------------------------------------- */

static void out_append(struct block *b, const char *s, size_t n)
{
	if (b->outlen + n + 1 > b->outcap) {
		size_t nc = b->outcap ? b->outcap * 2 : 1024;
		while (nc < b->outlen + n + 1)
			nc *= 2;
		char *p = realloc(b->out, nc);
		if (!p)
			return;
		b->out = p;
		b->outcap = nc;
	}
	memcpy(b->out + b->outlen, s, n);
	b->outlen += n;
	b->out[b->outlen] = 0;
}


/* Reads a NUL-terminated string at a generic address (at most max bytes). */
int read_cstr(struct block *b, struct warp *w, unsigned lane, const struct ptx_insn *in,
	      uint64_t addr, char *buf, size_t max)
{
	size_t n = 0;
	for (; n + 1 < max; n++) {
		const char *p = mem_at(b, w, lane, in, SP_GENERIC, addr + n, 1, 0);
		if (!p)
			return -EFAULT;
		buf[n] = *p;
		if (!*p)
			return 0;
	}
	buf[n] = 0;
	return 0;
}

static int isdigit_c(char c)
{
	return c >= '0' && c <= '9';
}

/* vprintf(fmt, args): formats one lane's printf into the block's buffer. */
int do_printf(struct block *b, struct warp *w, unsigned lane, const struct ptx_insn *in,
	      uint64_t fmtp, uint64_t argp, int *nargs)
{
	char fmt[1024], out[2048];
	size_t o = 0;
	if (read_cstr(b, w, lane, in, fmtp, fmt, sizeof fmt))
		return -EFAULT;
	uint64_t ap = argp;
	*nargs = 0;
	for (const char *f = fmt; *f; f++) {
		if (*f != '%' || f[1] == '%') {
			if (*f == '%')
				f++;
			if (o + 1 < sizeof out)
				out[o++] = *f;
			continue;
		}
		char spec[32];
		size_t k = 0;
		const char *s = f;
		spec[k++] = *s++;
		while (*s && strchr("-+ #0", *s) && k < 20)
			spec[k++] = *s++;
		int star = 0;
		while (*s && (isdigit_c(*s) || *s == '.' || *s == '*') && k < 20) {
			if (*s == '*')
				star = 1;
			spec[k++] = *s++;
		}
		int lng = 0;
		while (*s == 'l' || *s == 'h' || *s == 'z' || *s == 'j' || *s == 't') {
			if (*s == 'l' || *s == 'z' || *s == 'j' || *s == 't')
				lng++;
			s++;
		}
		char conv = *s;
		if (!conv)
			break;
		f = s;
		(void)star;
		unsigned asz = (conv == 'f' || conv == 'F' || conv == 'e' || conv == 'E' ||
				conv == 'g' || conv == 'G' || conv == 'a' || conv == 'A' ||
				conv == 's' || conv == 'p' || lng)
				   ? 8 : 4;
		ap = (ap + asz - 1) & ~(uint64_t)(asz - 1);
		const void *pa = mem_at(b, w, lane, in, SP_GENERIC, ap, asz, 0);
		if (!pa)
			return -EFAULT;
		uint64_t v = load_n(pa, asz, 0);
		ap += asz;
		(*nargs)++;
		char piece[600];
		int n = 0;
		if (strchr("fFeEgGaA", conv)) {
			spec[k++] = conv;
			spec[k] = 0;
			n = snprintf(piece, sizeof piece, spec, f64(v));
		} else if (conv == 's') {
			char str[512];
			if (v == 0)
				strcpy(str, "(null)");
			else if (read_cstr(b, w, lane, in, v, str, sizeof str))
				return -EFAULT;
			spec[k++] = 's';
			spec[k] = 0;
			n = snprintf(piece, sizeof piece, spec, str);
		} else if (conv == 'p') {
			n = snprintf(piece, sizeof piece, "0x%llx", (unsigned long long)v);
		} else if (conv == 'c') {
			spec[k++] = 'c';
			spec[k] = 0;
			n = snprintf(piece, sizeof piece, spec, (int)(uint32_t)v);
		} else if (strchr("diouxX", conv)) {
			spec[k++] = 'l';
			spec[k++] = 'l';
			spec[k++] = conv;
			spec[k] = 0;
			long long x = asz == 8 ? (long long)v
				      : (conv == 'd' || conv == 'i') ? (long long)(int32_t)v
								     : (long long)(uint32_t)v;
			n = snprintf(piece, sizeof piece, spec, x);
		} else {
			n = snprintf(piece, sizeof piece, "%%%c", conv);
		}
		if (n > 0) {
			size_t cp = (size_t)n < sizeof piece ? (size_t)n : sizeof piece - 1;
			if (o + cp < sizeof out) {
				memcpy(out + o, piece, cp);
				o += cp;
			}
		}
	}
	out_append(b, out, o);
	return 0;
}
