/* mma_frag16 — wmma m16n16k16's fragments moved between the warp's registers and the
 * product's matrices by their layout (mma_frag16.h): the general way (exec_mma.c's
 * frag_to_mat/mat_to_frag) finds each element's place in a table, element by element. */
#include "mma_frag16.h"

#include <string.h>

#include "mma_fast.h" /* struct mma_mats */

#if EMU_CLONES
#define CLONES __attribute__((target_clones("arch=x86-64-v3", "default"))) /* emu/meson.build */
#else
#define CLONES
#endif

/* GCC's vector extensions (clang has them too): 4 lanes of 64 bits */
typedef int64_t v4di __attribute__((vector_size(32)));
typedef uint64_t v4du __attribute__((vector_size(32)));
#define LOADV(T, p) ({ T v_; memcpy(&v_, (p), sizeof v_); v_; })
#define STOREV(p, v) do { __typeof__(v) v_ = (v); memcpy((p), &v_, sizeof v_); } while (0)

/* wmma m16n16k16's fragments (lane l = 4g + t; frag_pos in exec_mma.c): A's register h
 * (0, 1) holds row g + 8h, k 0..7 (16-bit: the pair 2t, 2t + 1; its register 2 + h k 8..15)
 * or k 0..15 (8-bit: 4t..4t + 3); B's likewise by column (16-bit: register 2h column
 * g + 8h, k 0..7, register 2h + 1 k 8..15; 8-bit: register h); C's and D's register i,
 * row g + 8 (i >> 1 & 1), column 2t + (i & 1) + 8 (i >> 2). So four lanes' low words are
 * a run of A's row, and C's registers i, i + 1 together a row's eight columns. */
int mma_frag16_applies(const struct ptx_mma *mm)
{
	unsigned t = mm->atype;
	return mm->kind == MMA_WMMA && mm->m == 16 && mm->n == 16 && mm->k == 16 &&
	       (t == MT_F16 || t == MT_BF16 || t == MT_S8 || t == MT_U8) &&
	       ptx_mtype_bits(mm->ctype) == 32 && ptx_mtype_bits(mm->dtype) == 32;
}

/* Lanes L..L+3's low words (R + L), a run of 16 bytes of a fragment's matrix. */
#if defined(__SSE2__)
#include <emmintrin.h>
typedef __m128i run16;
static inline run16 lanes4(const uint64_t *p)
{
	__m128 lo = _mm_loadu_ps((const float *)p), hi = _mm_loadu_ps((const float *)(p + 2));
	return _mm_castps_si128(_mm_shuffle_ps(lo, hi, _MM_SHUFFLE(2, 0, 2, 0)));
}
/* out[2i], out[2i + 1]: rows i and i + n/2 interleaved by w-byte elements (low halves,
 * high halves): a rotation of each element's (row, column) index bits by one, so that
 * log2(n) of them transpose n rows of n elements (w 2, n 8; w 1, n 16). */
static inline __attribute__((always_inline)) void shuffle_rows(const run16 *r, run16 *o, unsigned n,
								 unsigned w)
{
#pragma GCC unroll 8
	for (unsigned i = 0; i < n / 2; i++) {
		o[2 * i] = w == 1 ? _mm_unpacklo_epi8(r[i], r[i + n / 2]) : _mm_unpacklo_epi16(r[i], r[i + n / 2]);
		o[2 * i + 1] = w == 1 ? _mm_unpackhi_epi8(r[i], r[i + n / 2]) : _mm_unpackhi_epi16(r[i], r[i + n / 2]);
	}
}
#else
typedef struct { uint8_t b[16]; } run16;
static inline run16 lanes4(const uint64_t *p)
{
	run16 v;
	for (unsigned l = 0; l < 4; l++) {
		uint32_t w = (uint32_t)p[l];
		memcpy(v.b + 4 * l, &w, 4);
	}
	return v;
}
static inline void shuffle_rows(const run16 *r, run16 *o, unsigned n, unsigned w)
{
	for (unsigned i = 0; i < n / 2; i++)
		for (unsigned h = 0; h < 2; h++)
			for (unsigned j = 0; j < n / 2; j++) {
				memcpy(o[2 * i + h].b + 2 * j * w, r[i].b + 8 * h + j * w, w);
				memcpy(o[2 * i + h].b + (2 * j + 1) * w, r[i + n / 2].b + 8 * h + j * w, w);
			}
}
#endif

/* r transposed: n 8 (w 2) ends in o, n 16 (w 1) in r */
static inline __attribute__((always_inline)) void transpose(run16 *r, run16 *o, unsigned n,
							    unsigned w)
{
	shuffle_rows(r, o, n, w);
	shuffle_rows(o, r, n, w);
	shuffle_rows(r, o, n, w);
	if (n == 16)
		shuffle_rows(o, r, n, w);
}

/* C's and D's registers i, i + 1: row g + 8 (i >> 1 & 1)'s even and odd columns of the
 * 16 x 16 32-bit matrix at m (rows stride bytes apart), from (regs_to_rows) or to
 * (rows_to_regs) the registers regs. */
static inline __attribute__((always_inline)) void regs_to_rows(const uint64_t *R, const uint32_t *regs,
								unsigned char *m, size_t stride)
{
	for (unsigned i = 0; i < 8; i += 2) {
		const uint64_t *ev = R + (size_t)regs[i] * 32, *od = R + (size_t)regs[i + 1] * 32;
		unsigned r0 = 8 * (i >> 1 & 1), c0 = 8 * (i >> 2);
#pragma GCC unroll 8
		for (unsigned g = 0; g < 8; g++) {
			v4di lo = LOADV(v4di, ev + 4 * g), hi = LOADV(v4di, od + 4 * g);
			STOREV(m + (r0 + g) * stride + 4 * c0, (lo & 0xffffffff) | hi << 32);
		}
	}
}

static inline __attribute__((always_inline)) void rows_to_regs(uint64_t *R, const uint32_t *regs,
								const unsigned char *m, size_t stride)
{
	for (unsigned i = 0; i < 8; i += 2) {
		uint64_t *ev = R + (size_t)regs[i] * 32, *od = R + (size_t)regs[i + 1] * 32;
		unsigned r0 = 8 * (i >> 1 & 1), c0 = 8 * (i >> 2);
#pragma GCC unroll 8
		for (unsigned g = 0; g < 8; g++) {
			v4di d = LOADV(v4di, m + (r0 + g) * stride + 4 * c0);
			STOREV(ev + 4 * g, d & 0xffffffff);
			STOREV(od + 4 * g, (v4di)((v4du)d >> 32));
		}
	}
}

CLONES void mma_frag16_gather(const uint64_t *R, const struct ptx_mma *mm, struct mma_mats *x)
{
	const uint64_t *A, *B;
	run16 r[16], o[16];
	if (ptx_mtype_bits(mm->atype) == 16) {
		/* A by row; B's columns, 8 x 8 blocks, transposed to its rows */
		for (unsigned q = 0; q < 4; q++) {
			A = R + (size_t)mm->a[q] * 32, B = R + (size_t)mm->b[q] * 32;
			unsigned h = q & 1, k0 = 8 * (q >> 1);
#pragma GCC unroll 8
			for (unsigned g = 0; g < 8; g++) {
				run16 v = lanes4(A + 4 * g);
				memcpy(&x->a.u16[g + 8 * h][k0], &v, 16);
				r[g] = lanes4(B + 4 * g);
			}
			transpose(r, o, 8, 2);
			for (unsigned j = 0; j < 8; j++) /* register q: columns 8 (q >> 1), k 8 (q & 1) */
				memcpy(&x->b.u16[8 * (q & 1) + j][8 * (q >> 1)], &o[j], 16);
		}
	} else {
		for (unsigned h = 0; h < 2; h++) {
			A = R + (size_t)mm->a[h] * 32, B = R + (size_t)mm->b[h] * 32;
#pragma GCC unroll 8
			for (unsigned g = 0; g < 8; g++) {
				run16 v = lanes4(A + 4 * g);
				memcpy(&x->a.u8[g + 8 * h][0], &v, 16);
				r[8 * h + g] = lanes4(B + 4 * g);
			}
		}
		transpose(r, o, 16, 1);
		for (unsigned k = 0; k < 16; k++)
			memcpy(&x->b.u8[k][0], &r[k], 16);
	}
	regs_to_rows(R, mm->c, (unsigned char *)x->c.u32, sizeof x->c.u32[0]);
}

CLONES void mma_frag16_scatter(uint64_t *R, const struct ptx_mma *mm, const struct mma_mats *x)
{
	rows_to_regs(R, mm->d, (const unsigned char *)x->d.u32, sizeof x->d.u32[0]);
}

/* wmma.load of A by row or B by column (16 or 8-bit), of 32-bit C by row, and wmma.store
 * of 32-bit D by row, straight between the matrix at mem (ld elements a row or column)
 * and the registers: a lane's word of A or B is 4 bytes of one run of memory (lanes
 * 4g..4g+3 16 bytes of it), C's and D's registers i, i + 1 a row's even and odd columns.
 * The general way copies the runs into a matrix and then places each element by a table. */
static int ldst_takes(const struct ptx_mma *mm)
{
	unsigned bits = ptx_mtype_bits(mm->atype);
	if (mm->m != 16 || mm->n != 16 || mm->k != 16 || !(mm->kind == MMA_LOAD || mm->kind == MMA_STORE))
		return 0;
	if (mm->frag == MF_A || mm->frag == MF_B) /* runs along k: A by row, B by column */
		return mm->kind == MMA_LOAD && (mm->frag == MF_A) == (mm->arow != 0) &&
		       (bits == 16 || bits == 8);
	return bits == 32 && mm->arow && mm->nd == 8;
}

CLONES int mma_frag16_ldst(uint64_t *R, const struct ptx_mma *mm, unsigned char *mem, size_t ld)
{
	if (!ldst_takes(mm))
		return 0;
	unsigned bits = ptx_mtype_bits(mm->atype);
	if (mm->frag == MF_A || mm->frag == MF_B) {
		unsigned nq = bits == 16 ? 4 : 2;
		for (unsigned q = 0; q < nq; q++) {
			/* the register's runs: rows (A) or columns (B) 8v.., from k0 */
			unsigned v = bits == 8 ? q : mm->frag == MF_A ? (q & 1) : (q >> 1);
			unsigned k0 = bits == 8 ? 0 : mm->frag == MF_A ? 8 * (q >> 1) : 8 * (q & 1);
			uint64_t *d = R + (size_t)mm->d[q] * 32;
			/* f16's repeated registers (nd 8): q + 4 the same */
			uint64_t *rep = mm->nd > nq ? R + (size_t)mm->d[q + nq] * 32 : NULL;
#pragma GCC unroll 8
			for (unsigned g = 0; g < 8; g++) {
				const unsigned char *p = mem + ((8 * v + g) * ld + k0) * (bits / 8);
				v4du w = { 0, 0, 0, 0 };
				for (unsigned t = 0; t < 4; t++) {
					uint32_t x;
					memcpy(&x, p + 4 * t, 4);
					w[t] = x;
				}
				STOREV(d + 4 * g, w);
				if (rep)
					STOREV(rep + 4 * g, w);
			}
		}
		return 1;
	}
	if (mm->kind == MMA_LOAD)
		rows_to_regs(R, mm->d, mem, 4 * ld);
	else
		regs_to_rows(R, mm->d, mem, 4 * ld);
	return 1;
}
