/* cudart_errors — see cudart_errors.h. */
#include "cudart_errors.h"

#include <stdatomic.h>
#include <stddef.h>

struct rt_errdesc {
	int value;
	const char *name;
	const char *message;
};

static const struct rt_errdesc rt_errors[] = {
#define RT_ERR(value, name, message) {value, #name, message},
#include "cudart_errtab.h"
#undef RT_ERR
};

static const char rt_unrecognized[] = "unrecognized error code";

static _Thread_local cudaError_t rt_last_error = cudaSuccess;
static atomic_int rt_sticky = cudaSuccess;
static atomic_int rt_pending = cudaSuccess;

static const struct rt_errdesc *rt_error_find(int e)
{
	for (size_t i = 0; i < sizeof rt_errors / sizeof rt_errors[0]; i++)
		if (rt_errors[i].value == e)
			return &rt_errors[i];
	return NULL;
}

const char *rt_error_name(cudaError_t e)
{
	const struct rt_errdesc *d = rt_error_find((int)e);
	return d ? d->name : rt_unrecognized;
}

const char *rt_error_string(cudaError_t e)
{
	const struct rt_errdesc *d = rt_error_find((int)e);
	return d ? d->message : rt_unrecognized;
}

int rt_error_known(int e)
{
	return rt_error_find(e) != NULL;
}

cudaError_t rt_error_set(cudaError_t e)
{
	if (e != cudaSuccess)
		rt_last_error = e;
	return e;
}

cudaError_t rt_error_enter(void)
{
	int pending = atomic_exchange(&rt_pending, cudaSuccess);
	if (pending != cudaSuccess) {
		int expected = cudaSuccess;
		/* the first fault wins, as the first sticky error does on a GPU */
		atomic_compare_exchange_strong(&rt_sticky, &expected, pending);
	}
	cudaError_t sticky = (cudaError_t)atomic_load(&rt_sticky);
	return rt_error_set(sticky);
}

void rt_error_set_pending(cudaError_t e)
{
	int expected = cudaSuccess;
	atomic_compare_exchange_strong(&rt_pending, &expected, (int)e);
}

cudaError_t rt_error_sticky(void)
{
	return (cudaError_t)atomic_load(&rt_sticky);
}

cudaError_t rt_error_device(void)
{
	int pending = atomic_load(&rt_pending);
	return (cudaError_t)(pending != cudaSuccess ? pending : atomic_load(&rt_sticky));
}

void rt_error_reset(void)
{
	atomic_store(&rt_sticky, cudaSuccess);
	atomic_store(&rt_pending, cudaSuccess);
	rt_last_error = cudaSuccess;
}

/* Reads only the last error: the sticky error comes back through every context call
 * (rt_error_enter), not through these two. */
cudaError_t cudaGetLastError(void)
{
	cudaError_t e = rt_last_error;
	rt_last_error = cudaSuccess;
	return e;
}

cudaError_t cudaPeekAtLastError(void)
{
	return rt_last_error;
}

const char *cudaGetErrorName(cudaError_t error)
{
	return rt_error_name(error);
}

const char *cudaGetErrorString(cudaError_t error)
{
	return rt_error_string(error);
}
