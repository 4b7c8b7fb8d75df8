/* exec_mma — the tensor-core instructions: wmma.load/store/mma, mma.sync, ldmatrix,
 * stmatrix and movmatrix (decoded by ptx_mma.c).
 *
 * Which matrix element each lane holds in each fragment register is the H100's, as
 * measured (tests/emu/programs/wmma_*.cu print it) and as the PTX ISA's tables give for
 * mma.sync: on sm_80 and later wmma is built from the m16n8 mma tiles (m8n32k16 from the
 * m32n8k16 ones, transposed), and an f16 matrix_a/matrix_b fragment repeats its elements
 * to fill 16 (m16n16k16: 8 twice; m32n8k16's B and m8n32k16's A: 4 four times).
 * How the products are summed: mma_model.c (the H100's model) and mma_fast.c.
 */
#include "exec_internal.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include "mma_fast.h"
#include "mma_frag16.h"
#include "mma_model.h"
#include "trace.h"

#define MAXD MMA_MAXD

/* ---- fragment layouts ------------------------------------------------------------------ */

/* 1: 16-bit inputs, 2: 8-bit, 0: tf32 (f64 is handled apart). */
static unsigned width_class(unsigned t)
{
	return t == MT_F16 || t == MT_BF16 ? 1 : t == MT_S8 || t == MT_U8 ? 2 : 0;
}

/* The m16n8 mma tiles of the PTX ISA (g = lane / 4, t = lane % 4): element i of A
 * (16 x k), as (row, col). */
static void tile_a(unsigned wc, unsigned k, unsigned g, unsigned t, unsigned i, unsigned *r,
		   unsigned *c)
{
	if (wc == 1 && k == 16)
		*r = g + 8 * ((i >> 1) & 1), *c = 2 * t + (i & 1) + 8 * (i >> 2);
	else if (wc == 1) /* k8 */
		*r = g + 8 * (i >> 1), *c = 2 * t + (i & 1);
	else if (wc == 2 && k == 32)
		*r = g + 8 * ((i >> 2) & 1), *c = 4 * t + (i & 3) + 16 * (i >> 3);
	else if (wc == 2) /* k16 */
		*r = g + 8 * (i >> 2), *c = 4 * t + (i & 3);
	else if (k == 8) /* tf32 */
		*r = g + 8 * (i & 1), *c = t + 4 * (i >> 1);
	else /* tf32 k4 */
		*r = g + 8 * i, *c = t;
}

/* ... of B (k x 8): its k; the column is g. */
static unsigned tile_b(unsigned wc, unsigned k, unsigned t, unsigned i)
{
	if (wc == 1)
		return k == 16 ? 2 * t + (i & 1) + 8 * (i >> 1) : 2 * t + i;
	if (wc == 2)
		return k == 32 ? 4 * t + (i & 3) + 16 * (i >> 2) : 4 * t + i;
	return k == 8 ? t + 4 * i : t;
}

/* ... of C and D (16 x 8). */
static void tile_c(unsigned g, unsigned t, unsigned i, unsigned *r, unsigned *c)
{
	*r = g + 8 * (i >> 1), *c = 2 * t + (i & 1);
}

/* wmma's m16n16k16 and m32n8k16 (M x 16 by 16 x N) and m16n16k8 (tf32). */
static void wmma_pos(unsigned M, unsigned N, unsigned frag, unsigned wc, unsigned g,
		     unsigned t, unsigned i, unsigned *r, unsigned *c)
{
	if (frag == MF_A && wc == 0) { /* tf32: the m16n8k8 tile */
		tile_a(0, 8, g, t, i, r, c);
	} else if (frag == MF_A) { /* 16-row blocks of the k16 tile; f16 repeats them */
		i %= M / 2;
		tile_a(wc, 16, g, t, i % 8, r, c);
		*r += 16 * (i / 8);
	} else if (frag == MF_B && wc == 0) { /* tf32: two 8-column blocks */
		*r = t + 4 * (i & 1), *c = g + 8 * (i >> 1);
	} else if (frag == MF_B) { /* 8-column blocks of the k16 tile; f16 repeats them */
		i %= N / 2;
		*r = tile_b(wc, 16, t, i % 4);
		*c = g + 8 * (i / 4);
	} else { /* C and D: 16 x 8 tiles along n (m16n16) or m (m32n8) */
		tile_c(g, t, i % 4, r, c);
		if (N == 16)
			*c += 8 * (i / 4);
		else
			*r += 16 * (i / 4);
	}
}

/* Element i of lane l of a fragment (MF_A, MF_B, MF_C/MF_D) of instruction mm whose
 * input type is `it`: its row and column in the matrix (A m x k, B k x n, C m x n). */
static void frag_pos(const struct ptx_mma *mm, unsigned frag, unsigned it, unsigned l,
		     unsigned i, unsigned *r, unsigned *c)
{
	unsigned g = l >> 2, t = l & 3, wc = width_class(it);
	if (it == MT_F64 || (mm->m == 8 && mm->n == 8)) { /* m8n8k4 f64, m8n8k16 s8 */
		unsigned kq = it == MT_F64 ? t : 4 * t + i;
		if (frag == MF_A)
			*r = g, *c = kq;
		else if (frag == MF_B)
			*r = kq, *c = g;
		else
			*r = g, *c = 2 * t + i;
		return;
	}
	if (mm->kind == MMA_SYNC) {
		if (frag == MF_A)
			tile_a(wc, mm->k, g, t, i, r, c);
		else if (frag == MF_B)
			*r = tile_b(wc, mm->k, t, i), *c = g;
		else
			tile_c(g, t, i, r, c);
		return;
	}
	if (mm->m != 8) {
		wmma_pos(mm->m, mm->n, frag, wc, g, t, i, r, c);
		return;
	}
	/* m8n32k16: the m32n8k16 layouts transposed, A and B swapping roles */
	unsigned rr, cc;
	wmma_pos(32, 8, frag == MF_A ? MF_B : frag == MF_B ? MF_A : frag, wc, g, t, i, &rr, &cc);
	*r = cc, *c = rr;
}

/* Elements of a fragment per lane, as the decoder counted its registers. */
static unsigned frag_elems(unsigned nregs, unsigned t)
{
	unsigned b = ptx_mtype_bits(t);
	return b >= 32 ? nregs : nregs * (32 / b);
}

/* Element i of a fragment of b-bit elements in registers `slots` of lane l. */
static inline uint64_t frag_get(const uint64_t *R, const uint32_t *slots, unsigned b,
				unsigned l, unsigned i)
{
	if (b >= 32)
		return R[(size_t)slots[i] * 32 + l] & width_mask(b / 8);
	unsigned per = 32 / b;
	return R[(size_t)slots[i / per] * 32 + l] >> (b * (i % per)) & ((1u << b) - 1);
}

static inline void frag_set(uint64_t *R, const uint32_t *slots, unsigned b, unsigned l,
			    unsigned i, uint64_t v)
{
	if (b >= 32) {
		R[(size_t)slots[i] * 32 + l] = v & width_mask(b / 8);
		return;
	}
	unsigned per = 32 / b, sh = b * (i % per);
	uint64_t *p = &R[(size_t)slots[i / per] * 32 + l];
	*p = (*p & ~((uint64_t)((1u << b) - 1) << sh) & 0xffffffffu) | (v & ((1u << b) - 1)) << sh;
}

/* frag_pos of every element of every lane of one fragment layout, computed once per
 * worker and layout: a wmma or mma moves 32 x up to 16 elements, and working out each
 * one's place took a third of the tensor-core instructions' time. pos: the same places
 * as indices of a MAXD x MAXD matrix, by row (pos[0]: r * MAXD + c) and by column
 * (pos[1]: c * MAXD + r), for the whole-matrix moves (frag_to_mat, mat_to_frag). */
#define MAXE 16 /* elements a lane, at most: the decoder's shapes (ptx_mma.c) */
struct frag_map {
	uint64_t key; /* 0: unused */
	uint8_t r[32][MAXE], c[32][MAXE];
	uint16_t pos[2][MAXE][32];
	/* words[v]: the elements of each register (f16: 2, s8: 4) are consecutive in pos[v];
	 * rep[q]: register q only repeats elements of lower ones (f16, s8 matrix_a/b);
	 * simple: no place is held by two lanes (the whole-matrix moves need it) */
	uint8_t words[2], rep[MAXE], simple;
	uint8_t rows, cols; /* the matrix's: its places' largest row and column + 1 */
};

/* Each worker's working space for the matrix instructions, found once an instruction:
 * in the runtime's shared library every access to a thread-local variable is a call
 * (__tls_get_addr), and with one for each map and matrix they took a tenth of a
 * tensor-core GEMM's time. */
enum { NMAPS = 16 }; /* a kernel has a few layouts; round-robin beyond that */
struct mma_space {
	struct frag_map maps[NMAPS];
	unsigned next;
	uint8_t held[MAXD * MAXD]; /* frag_map's: by which lane + 1 */
	union mma_mat X;           /* ldst_rows' */
	struct mma_mats x;         /* product's */
};

static const struct frag_map *frag_map(struct mma_space *ws, const struct ptx_mma *mm,
				       unsigned frag, unsigned it, unsigned n, unsigned bits)
{
	struct frag_map *maps = ws->maps;
	uint8_t *held = ws->held;
	uint64_t key = 1 | (uint64_t)(mm->kind == MMA_SYNC) << 1 | (uint64_t)frag << 2 |
		       (uint64_t)it << 8 | (uint64_t)n << 16 | (uint64_t)mm->m << 24 |
		       (uint64_t)mm->n << 32 | (uint64_t)mm->k << 40 | (uint64_t)bits << 48;
	for (unsigned k = 0; k < NMAPS; k++)
		if (maps[k].key == key)
			return &maps[k];
	struct frag_map *fm = &maps[ws->next++ % NMAPS];
	memset(held, 0, sizeof ws->held);
	unsigned per = bits >= 32 ? 1 : 32 / bits;
	fm->simple = n <= MAXE;
	fm->words[0] = fm->words[1] = 1;
	fm->rows = fm->cols = 0;
	for (unsigned i = 0; i < MAXE; i++)
		fm->rep[i] = 1;
	for (unsigned l = 0; l < 32; l++)
		for (unsigned i = 0; i < n && i < MAXE; i++) {
			unsigned r, c, first = 1;
			frag_pos(mm, frag, it, l, i, &r, &c);
			fm->r[l][i] = (uint8_t)r, fm->c[l][i] = (uint8_t)c;
			fm->rows = (uint8_t)(r + 1 > fm->rows ? r + 1 : fm->rows);
			fm->cols = (uint8_t)(c + 1 > fm->cols ? c + 1 : fm->cols);
			fm->pos[0][i][l] = (uint16_t)(r * MAXD + c);
			fm->pos[1][i][l] = (uint16_t)(c * MAXD + r);
			for (unsigned j = 0; j < i; j++)
				first &= fm->pos[0][j][l] != fm->pos[0][i][l];
			if (first && held[r * MAXD + c])
				fm->simple = 0;
			held[r * MAXD + c] = (uint8_t)(l + 1);
			fm->rep[i / per] &= (uint8_t)!first;
			for (unsigned v = 0; v < 2; v++)
				fm->words[v] &= fm->pos[v][i][l] == fm->pos[v][i - i % per][l] + i % per;
		}
	fm->key = key;
	return fm;
}

/* The nregs registers `slots` of a fragment of es-byte elements (per to a register) into
 * matrix X (es-byte elements, rows MAXD apart) by fm->pos[v]; of a repeated element the
 * lowest register's copy (the others are skipped). fm->simple. */
static void frag_to_mat(unsigned char *X, unsigned es, unsigned per, const struct frag_map *fm,
			int v, unsigned nregs, const uint64_t *R, const uint32_t *slots)
{
	for (unsigned q = 0; q < nregs; q++) {
		if (fm->rep[q])
			continue;
		const uint64_t *src = R + (size_t)slots[q] * 32;
		const uint16_t *pos = fm->pos[v][q * per];
		if (fm->words[v] && es * per == 4)
			for (unsigned l = 0; l < 32; l++) {
				uint32_t x = (uint32_t)src[l];
				memcpy(X + (size_t)pos[l] * es, &x, 4);
			}
		else if (es == 8)
			for (unsigned l = 0; l < 32; l++)
				memcpy(X + (size_t)pos[l] * 8, &src[l], 8);
		else if (es == 2) /* f16, bf16 pairs apart in X (matrix_b by row) */
			for (unsigned l = 0; l < 32; l++) {
				uint16_t lo = (uint16_t)src[l], hi = (uint16_t)(src[l] >> 16);
				memcpy(X + (size_t)pos[l] * 2, &lo, 2);
				memcpy(X + (size_t)fm->pos[v][q * per + 1][l] * 2, &hi, 2);
			}
		else
			for (unsigned j = 0; j < per; j++)
				for (unsigned l = 0; l < 32; l++)
					store_n(X + (size_t)fm->pos[v][q * per + j][l] * es, es,
						src[l] >> (8 * es * j));
	}
}

/* The reverse: every register of the fragment from matrix X (repeated elements too),
 * zero above 32 bits as the fragment's 32-bit registers are. */
static void mat_to_frag(const unsigned char *X, unsigned es, unsigned per,
			const struct frag_map *fm, int v, unsigned nregs, uint64_t *R,
			const uint32_t *slots)
{
	for (unsigned q = 0; q < nregs; q++) {
		uint64_t *dst = R + (size_t)slots[q] * 32;
		const uint16_t *pos = fm->pos[v][q * per];
		if (fm->words[v] && es * per == 4)
			for (unsigned l = 0; l < 32; l++) {
				uint32_t x;
				memcpy(&x, X + (size_t)pos[l] * es, 4);
				dst[l] = x;
			}
		else if (es == 8)
			for (unsigned l = 0; l < 32; l++)
				memcpy(&dst[l], X + (size_t)pos[l] * 8, 8);
		else
			for (unsigned l = 0; l < 32; l++) {
				uint64_t x = 0;
				for (unsigned j = 0; j < per; j++)
					x |= load_n(X + (size_t)fm->pos[v][q * per + j][l] * es, es, 0)
					     << (8 * es * j);
				dst[l] = x;
			}
	}
}

/* ---- memory ------------------------------------------------------------------------------ */

/* One lane's access through the path ld and st take: the checked address (a fault names
 * the line), then the race checker's and the counters' hook. */
static void *access_lane(struct block *b, struct warp *w, const struct ptx_insn *in,
			 unsigned l, int sp, uint64_t addr, unsigned size, int is_write)
{
	void *p = mem_at(b, w, l, in, sp, addr, size, is_write);
#if EMU_HOOKS
	const struct emu_hooks *h = b->L->hooks;
	if (p && h && h->on_access)
		h->on_access(h->ctx, b->idx, w->id, l, sp, addr, size, is_write, in->line);
#endif
	return p;
}

static int require_warp(struct block *b, struct warp *w, const struct ptx_insn *in, uint32_t m,
			const char *what)
{
	if (m == FULL)
		return 0;
	return fault_set(b, w, (unsigned)__builtin_ctz(~m), in, EMU_FAULT_BARRIER, -EDEADLK,
			 "%s was executed by only some threads of warp %u (lanes 0x%08x): all 32 "
			 "threads of the warp must execute it together, outside divergent code "
			 "(.sync.aligned)", what, w->id, m);
}

/* A row of a fragment's matrix: 4 to 256 bytes; memcpy of a length known only here
 * was a rep movs, slow to start for so few bytes. */
static inline void copy_run(void *dst, const void *src, size_t bytes)
{
	switch (bytes) {
	case 16: memcpy(dst, src, 16); break;
	case 32: memcpy(dst, src, 32); break;
	case 64: memcpy(dst, src, 64); break;
	case 128: memcpy(dst, src, 128); break;
	default: memcpy(dst, src, bytes); break;
	}
}

/* wmma.load / wmma.store of a whole warp with one pointer and one ldm (as the CUDA API
 * gives them), when the matrix lies inside one allocation or shared array: its rows
 * (row-major) or columns copied whole between memory and a matrix, and that matrix
 * from or to the fragment (mat_to_frag, frag_to_mat). 0: not so; the caller goes lane by
 * lane. */
static int ldst_rows(struct block *b, struct warp *w, const struct ptx_mma *mm,
		     const struct frag_map *fm, int sp, const uint64_t *a0, const uint64_t *ld,
		     uint64_t *R, union mma_mat *mat)
{
	uint64_t or = 0;
	for (unsigned l = 0; l < 32; l++)
		or |= (a0[l] ^ a0[0]) | (ld[l] ^ ld[0]);
	/* a run: a row of a row-major matrix, a column of a column-major one */
	int v = !mm->arow;
	unsigned runs = v ? fm->cols : fm->rows, len = v ? fm->rows : fm->cols;
	unsigned bits = ptx_mtype_bits(mm->atype), es = bits / 8, per = bits >= 32 ? 1 : 32 / bits;
	if (or || !fm->simple || ld[0] < len)
		return 0;
	uint64_t a = a0[0];
	if (sp == SP_GENERIC && (a & WIN_MASK) == SHARED_WIN) /* shared memory, generically */
		sp = SP_SHARED, a -= SHARED_WIN;
	uint64_t ends[2] = {a, a + ((runs - 1) * ld[0] + len - 1) * es};
	uintptr_t p0, w0;
	if (ends[1] < ends[0] || !(p0 = warp_span(b, w, sp, ends, 0, es, 3, &w0)))
		return 0;
	unsigned char *mem = (unsigned char *)(p0 + a);
	size_t stride = ld[0] * es, bytes = len * es;
	int direct = mma_frag16_ldst(R, mm, mem, ld[0]); /* by layout, no matrix */
	if (mm->kind == MMA_STORE) {
		if (!direct) {
			frag_to_mat((uint8_t *)mat, es, per, fm, v, mm->nd, R, mm->d);
			for (unsigned r = 0; r < runs; r++)
				copy_run(mem + r * stride, (uint8_t *)mat + r * MAXD * es, bytes);
		}
		if (w0) /* global memory: a kernel's work (provenance) */
			for (unsigned r = 0; r < runs; r++)
				devmem_mark_by_kernel(w0 + a + r * stride, bytes);
	} else if (!direct) {
		for (unsigned r = 0; r < runs; r++)
			copy_run((uint8_t *)mat + r * MAXD * es, mem + r * stride, bytes);
		mat_to_frag((uint8_t *)mat, es, per, fm, v, mm->nd, R, mm->d);
	}
	return 1;
}

/* wmma.load / wmma.store: element (r, c) at base + (r * ldm + c) * size (row-major) or
 * (c * ldm + r) * size (column-major). */
static int wmma_ldst(struct block *b, struct warp *w, const struct ptx_insn *in,
		     const struct ptx_mma *mm, uint64_t *R, uint32_t m, struct mma_space *ws)
{
	int store = mm->kind == MMA_STORE;
	if (require_warp(b, w, in, m, store ? "wmma::store_matrix_sync" : "wmma::load_matrix_sync"))
		return -EDEADLK;
	unsigned t = mm->atype, bits = ptx_mtype_bits(t), es = bits / 8, ne = frag_elems(mm->nd, t);
	unsigned sp = in->space;
	const uint64_t *base = R + (size_t)in->s[0] * 32, *ldm = R + (size_t)in->s[1] * 32;
	const struct frag_map *fm =
		frag_map(ws, mm, mm->frag, mm->frag <= MF_B || t == MT_F64 ? t : MT_F32, ne, bits);
	const struct emu_hooks *hooks = EMU_HOOKS ? b->L->hooks : NULL;
	struct emu_trace_sm *tsm = b->tsm;
	uint64_t addr[32], a0[32], ld[32];
	/* The PTX ISA: each row (column) starts aligned to the size of the fragment in bytes
	 * (32 for an f16 matrix_a or an f32 accumulator, 8 for an s8/u8 matrix_a, as NVIDIA's
	 * immaTensorCoreGemm loads them 16 bytes apart). The stride: a multiple of 16 bytes
	 * (the CUDA C++ guide) or of the fragment's size when smaller; the ISA asks the
	 * fragment's size always, but GPUs run 16-byte strides of 32-byte fragments. */
	unsigned fbytes = mm->nd * (t == MT_F64 ? 8u : 4u), sbytes = fbytes < 16 ? fbytes : 16;
	for (unsigned l = 0; l < 32; l++) {
		a0[l] = (base[l] + (uint64_t)in->off) & space_addr_mask((int)sp);
		ld[l] = (uint32_t)ldm[l];
		/* both sizes are powers of two in every shape the decoder takes: no division */
		if (a0[l] & (fbytes - 1) || (ld[l] * es) & (sbytes - 1))
			return fault_set(b, w, l, in, EMU_FAULT_MISALIGNED, -EFAULT,
					 "%s: the matrix at 0x%llx with a leading dimension of %u "
					 "elements: the pointer must be %u-byte aligned (the size of "
					 "this fragment) and ldm a multiple of %u bytes",
					 store ? "wmma::store_matrix_sync" : "wmma::load_matrix_sync",
					 (unsigned long long)a0[l], (unsigned)ld[l], fbytes, sbytes);
	}
	if (!hooks && !tsm && ldst_rows(b, w, mm, fm, (int)sp, a0, ld, R, &ws->X))
		return 0;
	for (unsigned i = 0; i < ne; i++) {
		for (unsigned l = 0; l < 32; l++) {
			uint64_t r = fm->r[l][i], c = fm->c[l][i];
			addr[l] = (a0[l] + (mm->arow ? r * ld[l] + c : c * ld[l] + r) * es) &
				  space_addr_mask((int)sp);
		}
		if (__builtin_expect(tsm != NULL, 0))
			emu_trace_mem(tsm, in, (int)sp, addr, 0, es, FULL, store);
		uintptr_t p0, w0;
		if (!hooks && (p0 = warp_span(b, w, (int)sp, addr, 0, es, FULL, &w0))) {
			/* the whole warp inside one allocation: no check lane by lane */
			for (unsigned l = 0; l < 32; l++) {
				void *p = (void *)(p0 + addr[l]);
				if (store)
					store_n(p, es, frag_get(R, mm->d, bits, l, i));
				else
					frag_set(R, mm->d, bits, l, i, load_n(p, es, 0));
			}
			if (store && w0) /* global memory: a kernel's work (provenance) */
				for (unsigned l = 0; l < 32; l++)
					devmem_mark_by_kernel(w0 + addr[l], es);
			continue;
		}
		for (unsigned l = 0; l < 32; l++) {
			unsigned char *p = access_lane(b, w, in, l, (int)sp, addr[l], es, store);
			if (!p)
				return -EFAULT;
			if (store) {
				store_n(p, es, frag_get(R, mm->d, bits, l, i));
				mem_mark_written(w, p, es); /* a kernel's work (provenance) */
			} else
				frag_set(R, mm->d, bits, l, i, load_n(p, es, 0));
		}
	}
	return 0;
}

/* ldmatrix / stmatrix: lane 8q + j gives the address of row j of matrix q; each matrix
 * is 8 rows of 8 16-bit elements, lane l's register q holding row l/4, columns 2(l%4) and
 * 2(l%4)+1 (their transpose with .trans). */
static int ldst_matrix(struct block *b, struct warp *w, const struct ptx_insn *in,
		       const struct ptx_mma *mm, uint64_t *R, uint32_t m)
{
	int store = mm->kind == MMA_STMATRIX;
	if (require_warp(b, w, in, m, store ? "stmatrix" : "ldmatrix"))
		return -EDEADLK;
	unsigned sp = in->space;
	const uint64_t *base = R + (size_t)in->s[0] * 32;
	uint16_t mat[4][8][8];
	if (store)
		for (unsigned q = 0; q < mm->k; q++)
			for (unsigned l = 0; l < 32; l++)
				for (unsigned h = 0; h < 2; h++) {
					unsigned r = l / 4, c = 2 * (l % 4) + h;
					uint16_t v = (uint16_t)(R[(size_t)mm->d[q] * 32 + l] >> (16 * h));
					if (mm->trans)
						mat[q][c][r] = v;
					else
						mat[q][r][c] = v;
				}
	struct emu_trace_sm *tsm = b->tsm;
	uint64_t addr[32];
	/* the lanes giving addresses: 8 per matrix (k == 4: all 32; 1u << 32 is undefined) */
	uint32_t rows = mm->k >= 4 ? FULL : (1u << (8 * mm->k)) - 1;
	for (unsigned l = 0; l < 32; l++)
		addr[l] = (base[l] + (uint64_t)in->off) & space_addr_mask((int)sp);
	if (__builtin_expect(tsm != NULL, 0))
		emu_trace_mem(tsm, in, (int)sp, addr, 0, 16, rows, store);
	for (unsigned l = 0; l < 8 * mm->k; l++) {
		if (addr[l] & 15)
			return fault_set(b, w, l, in, EMU_FAULT_MISALIGNED, -EFAULT,
					 "%s: row address 0x%llx is not 16-byte aligned",
					 store ? "stmatrix" : "ldmatrix", (unsigned long long)addr[l]);
		unsigned char *p = access_lane(b, w, in, l, (int)sp, addr[l], 16, store);
		if (!p)
			return -EFAULT;
		if (store) {
			memcpy(p, mat[l / 8][l % 8], 16);
			mem_mark_written(w, p, 16);
		} else
			memcpy(mat[l / 8][l % 8], p, 16);
	}
	if (!store)
		for (unsigned q = 0; q < mm->k; q++)
			for (unsigned l = 0; l < 32; l++) {
				unsigned r = l / 4, c = 2 * (l % 4);
				uint32_t lo = mm->trans ? mat[q][c][r] : mat[q][r][c];
				uint32_t hi = mm->trans ? mat[q][c + 1][r] : mat[q][r][c + 1];
				R[(size_t)mm->d[q] * 32 + l] = hi << 16 | lo;
			}
	return 0;
}

/* movmatrix.trans: the 8x8 matrix of an ldmatrix fragment, transposed, as one. */
static int move_matrix(struct block *b, struct warp *w, const struct ptx_insn *in,
		       const struct ptx_mma *mm, uint64_t *R, uint32_t m)
{
	if (require_warp(b, w, in, m, "movmatrix"))
		return -EDEADLK;
	uint16_t mat[8][8];
	for (unsigned l = 0; l < 32; l++)
		for (unsigned h = 0; h < 2; h++)
			mat[l / 4][2 * (l % 4) + h] = (uint16_t)(R[(size_t)mm->a[0] * 32 + l] >> (16 * h));
	for (unsigned l = 0; l < 32; l++) {
		unsigned r = l / 4, c = 2 * (l % 4);
		R[(size_t)mm->d[0] * 32 + l] = (uint32_t)mat[c + 1][r] << 16 | mat[c][r];
	}
	return 0;
}

/* wmma.mma / mma.sync: the warp's fragments to whole matrices, D = A B + C, and back. */
static int product(struct block *b, struct warp *w, const struct ptx_insn *in,
		   const struct ptx_mma *mm, uint64_t *R, uint32_t m, struct mma_space *ws)
{
	if (require_warp(b, w, in, m, mm->kind == MMA_WMMA ? "wmma::mma_sync" : "mma.sync"))
		return -EDEADLK;
	if (mm->atype == MT_F64 && mm->m == 8 && mm->n == 8 && mm->k == 4 && mma_fast_dmma(R, mm))
		return 0;
	struct mma_mats *x = &ws->x;
	if (mma_frag16_applies(mm)) {
		mma_frag16_gather(R, mm, x);
		mma_products(mm, x, 0);
		mma_frag16_scatter(R, mm, x);
		return 0;
	}
	unsigned it = mm->atype, ib = ptx_mtype_bits(it);
	unsigned cb = ptx_mtype_bits(mm->ctype), db = ptx_mtype_bits(mm->dtype);
	const struct frag_map *fa = frag_map(ws, mm, MF_A, it, frag_elems(mm->na, it), ib);
	const struct frag_map *fb = frag_map(ws, mm, MF_B, it, frag_elems(mm->nb, it), ib);
	const struct frag_map *fc = frag_map(ws, mm, MF_C, it, frag_elems(mm->nc, mm->ctype), cb);
	const struct frag_map *fd = frag_map(ws, mm, MF_D, it, frag_elems(mm->nd, mm->dtype), db);
	if (!fa->simple || !fb->simple || !fc->simple || !fd->simple)
		return fault_set(b, w, 0, in, EMU_FAULT_UNSUPPORTED, -ENOTSUP,
				 "this matrix shape's fragments overlap: not emulated");
	frag_to_mat((uint8_t *)&x->a, ib / 8, ib >= 32 ? 1 : 32 / ib, fa, 0, mm->na, R, mm->a);
	frag_to_mat((uint8_t *)&x->b, ib / 8, ib >= 32 ? 1 : 32 / ib, fb, 0, mm->nb, R, mm->b);
	frag_to_mat((uint8_t *)&x->c, cb / 8, cb >= 32 ? 1 : 32 / cb, fc, 0, mm->nc, R, mm->c);
	mma_products(mm, x, 0);
	mat_to_frag((uint8_t *)&x->d, db / 8, db >= 32 ? 1 : 32 / db, fd, 0, mm->nd, R, mm->d);
	return 0;
}

/* The worker's mma_space, by one call (inlined, the compiler looked it up at every use). */
static __attribute__((noinline)) struct mma_space *mma_space(void)
{
	static _Thread_local struct mma_space space;
	return &space;
}

/* NVIDIA's GEMM samples unroll their k loop whole (K_TILES is a constant), so each
 * wmma.load and wmma.mma writes registers that nothing wrote before: 35000 of them in
 * cudaTensorCoreGemm at full size, each a 256-byte slot (32 lanes of 64 bits), megabytes
 * a warp. Every fragment written was then 32 cache lines missed, the stores waiting on
 * them (most of wmma_ldst's and the scatter's time). The destinations of the matrix
 * instruction after the next (within a few instructions) fetched while this one and the
 * next run: each fragment once, one instruction a cache line. */
enum { LOOK = 12 };

static void prefetch_ahead(const struct warp *w, const struct ptx_insn *in, const uint64_t *R,
			   const struct ptx_mma *mmas)
{
	const struct ptx_func *f = w->frames[w->nframes - 1].f;
	const struct ptx_insn *end = f->code + f->ncode, *stop = end - in > LOOK ? in + LOOK : end;
	unsigned seen = 0;
	for (const struct ptx_insn *n = in + 1; n < stop; n++) {
		if (n->op != OP_MMA)
			continue;
		const struct ptx_mma *nm = &mmas[n->target];
		if (nm->kind == MMA_STORE || nm->kind == MMA_STMATRIX) /* d[]: what they read */
			continue;
		if (!seen++) /* the next: fetched by the one before this */
			continue;
		for (unsigned q = 0; q < nm->nd; q++) {
			const char *p = (const char *)(R + (size_t)nm->d[q] * 32);
			for (unsigned o = 0; o < 32 * 8; o += 64)
				__builtin_prefetch(p + o, 1, 3);
		}
		return;
	}
}

int mma_exec(struct block *b, struct warp *w, const struct ptx_insn *in, uint64_t *R,
	     uint32_t m)
{
	struct mma_space *ws = mma_space();
	const struct ptx_mma *mm = &b->L->m->mmas[in->target];
	prefetch_ahead(w, in, R, b->L->m->mmas);
	switch (mm->kind) {
	case MMA_LOAD: case MMA_STORE: return wmma_ldst(b, w, in, mm, R, m, ws);
	case MMA_LDMATRIX: case MMA_STMATRIX: return ldst_matrix(b, w, in, mm, R, m);
	case MMA_MOVMATRIX: return move_matrix(b, w, in, mm, R, m);
	default: return product(b, w, in, mm, R, m, ws);
	}
}
