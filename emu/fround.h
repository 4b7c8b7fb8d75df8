/* fround — float arithmetic in the directed rounding modes of PTX (.rz, .rm, .rp).
 *
 * The interpreter computes in the host's default mode, round to nearest even, which is
 * PTX's .rn and its default. An instruction that names another mode (__fadd_rz,
 * __ddiv_ru, __fsqrt_rd... compile to them) runs here instead: the host's rounding
 * mode is switched around the whole warp's operation, so every result is the correctly
 * rounded one a GPU gives. fround.c is compiled with -frounding-math, so the compiler
 * neither folds the operations nor moves them out of the fesetround() bracket.
 */
#ifndef PMPPLAB_EMU_FROUND_H
#define PMPPLAB_EMU_FROUND_H

#include <stdint.h>

enum fround_op { FROUND_ADD, FROUND_SUB, FROUND_MUL, FROUND_FMA, FROUND_DIV, FROUND_SQRT,
		 FROUND_RCP };

/* d[l] = op(a[l], b[l], c[l]) for every lane l set in mask, the registers holding the
 * bits of an f32 (wide == 0) or an f64 (wide == 1); unary operations read a only, FROUND_FMA is
 * a * b + c rounded once. mode is ptx_internal.h's RND_RZ, RND_RM or RND_RP (anything
 * else rounds to nearest). d may be one of the sources. */
void fround_lanes(enum fround_op op, int wide, unsigned mode, uint64_t *d, const uint64_t *a,
		  const uint64_t *b, const uint64_t *c, uint32_t mask);

#endif
