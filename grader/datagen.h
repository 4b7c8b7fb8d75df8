/* datagen: the inputs of one dataset, generated from the spec with a seed, written as a
 * request file for the lab program (see harness/pl_io.h). The same seed gives the same
 * inputs, so a failure can be reproduced (--seed). */
#ifndef PMPPLAB_DATAGEN_H
#define PMPPLAB_DATAGEN_H

#include <stdint.h>

#include "harness/pl_io.h"
#include "spec.h"

/* Fills REQ with the dataset's params, generated inputs and output sizes. Returns 0 or
 * -ENOMEM / -EINVAL (a size that does not evaluate). */
int datagen_request(const struct lab_spec *spec, const struct spec_dataset *d, uint64_t seed,
		    struct pl_file *req);
/* The request file of dataset D at PATH, from the grading's SEED (each dataset draws
 * from SEED plus its index, so every check of one grading sees the dataset's inputs),
 * unless a step of this grading wrote it already. Returns 0, or a negative code with
 * ERR saying why. */
int datagen_request_file(const struct lab_spec *spec, const struct spec_dataset *d,
			 uint64_t seed, const char *path, char *err, size_t errlen);
/* A fresh seed from the clock and pid (never 0). */
uint64_t datagen_fresh_seed(void);

#endif
