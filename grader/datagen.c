/* datagen: splitmix64-seeded xoshiro256** streams, one per buffer. */
#include "datagen.h"

#include <errno.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct rng { uint64_t s[4]; };

static uint64_t splitmix(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static uint64_t rng_next(struct rng *r)
{
	uint64_t *s = r->s;
	uint64_t result = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

/* Each buffer gets its own stream (seed, buffer name), so adding a buffer to a spec does
 * not change the others' data. */
static void rng_seed(struct rng *r, uint64_t seed, const char *name)
{
	uint64_t x = seed;
	for (const char *p = name; *p; p++)
		x = (x ^ (unsigned char)*p) * 0x100000001b3ULL;
	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix(&x);
}

static double rng_unit(struct rng *r)
{
	return (rng_next(r) >> 11) * 0x1.0p-53;
}

static double gen_value(const struct spec_generator *g, struct rng *r, uint64_t i, bool integer)
{
	switch (g->kind) {
	case SPEC_GEN_CONST:
		return g->value;
	case SPEC_GEN_IOTA: {
		double span = g->max - g->min;
		double v = (double)i;
		return g->min + (span > 0 ? fmod(v, span + (integer ? 1 : 0)) : v);
	}
	case SPEC_GEN_BITS:
		return (double)(rng_next(r) & 1);
	case SPEC_GEN_UNIFORM:
		if (integer)
			return floor(g->min + rng_unit(r) * (g->max - g->min + 1));
		return g->min + rng_unit(r) * (g->max - g->min);
	}
	return 0;
}

static void store(void *data, enum spec_dtype t, uint64_t i, double v)
{
	switch (t) {
	case SPEC_F32: ((float *)data)[i] = (float)v; break;
	case SPEC_F64: ((double *)data)[i] = v; break;
	case SPEC_I32: ((int32_t *)data)[i] = (int32_t)v; break;
	case SPEC_U32: ((uint32_t *)data)[i] = (uint32_t)v; break;
	case SPEC_U8: ((uint8_t *)data)[i] = (uint8_t)v; break;
	}
}

static int add_input(const struct lab_spec *spec, const struct spec_buffer *b,
		     const struct spec_dataset *d, uint64_t seed, struct pl_file *req)
{
	uint64_t count;
	if (spec_buffer_count(spec, b, d, &count) < 0)
		return -EINVAL;
	size_t bytes = (size_t)count * spec_dtype_size(b->type);
	void *data = malloc(bytes ? bytes : 1);
	if (!data)
		return -ENOMEM;
	struct rng r;
	rng_seed(&r, seed, b->name);
	bool integer = b->type != SPEC_F32 && b->type != SPEC_F64;
	const struct spec_generator *g = spec_dataset_generator(d, b);
	for (uint64_t i = 0; i < count; i++)
		store(data, b->type, i, gen_value(g, &r, i, integer));
	if (!pl_add(req, PL_INPUT, (uint32_t)b->type, b->name, count, data)) {
		free(data);
		return -ENOMEM;
	}
	return 0;
}

int datagen_request(const struct lab_spec *spec, const struct spec_dataset *d, uint64_t seed,
		    struct pl_file *req)
{
	memset(req, 0, sizeof(*req));
	int rc = 0;
	for (unsigned i = 0; i < spec->params_count && rc == 0; i++) {
		int64_t v = 0;
		spec_dataset_value(d, spec->params[i].name, &v);
		struct pl_item *it = pl_add(req, PL_PARAM, (uint32_t)spec->params[i].type,
					    spec->params[i].name, 1, NULL);
		if (!it)
			rc = -ENOMEM;
		else
			it->ival = v;
	}
	for (unsigned i = 0; i < spec->inputs_count && rc == 0; i++)
		rc = add_input(spec, &spec->inputs[i], d, seed, req);
	for (unsigned i = 0; i < spec->outputs_count && rc == 0; i++) {
		uint64_t count;
		if (spec_buffer_count(spec, &spec->outputs[i], d, &count) < 0)
			rc = -EINVAL;
		else if (!pl_add(req, PL_OUTPUT, (uint32_t)spec->outputs[i].type,
				 spec->outputs[i].name, count, NULL))
			rc = -ENOMEM;
	}
	if (rc < 0)
		pl_release(req);
	return rc;
}

uint64_t datagen_fresh_seed(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	uint64_t x = (uint64_t)ts.tv_sec * 1000000007ULL ^ (uint64_t)ts.tv_nsec ^ ((uint64_t)getpid() << 32);
	uint64_t s = splitmix(&x) & 0xffffffffffffULL; /* short enough to type back */
	return s ? s : 1;
}

int datagen_request_file(const struct lab_spec *spec, const struct spec_dataset *d,
			 uint64_t seed, const char *path, char *err, size_t errlen)
{
	if (access(path, R_OK) == 0)
		return 0;
	struct pl_file req;
	int rc = datagen_request(spec, d, seed + (uint64_t)(d - spec->datasets), &req);
	if (rc < 0) {
		snprintf(err, errlen, "%s", rc == -ENOMEM ? "out of memory" : "a size that does not evaluate");
		return rc;
	}
	if (pl_write(&req, path, err, errlen) < 0)
		rc = -EIO;
	pl_release(&req);
	return rc;
}
