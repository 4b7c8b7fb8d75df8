/* cudart_async — see cudart_async.h. */
#include "cudart_async.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cudart_errors.h"
#include "cudart_report.h"
#include "exec.h"

struct rt_op {
	struct rt_op *next;
	rt_async_fn run;
	void *arg;
	uint64_t seq;
	unsigned flags;
};

static pthread_mutex_t rt_async_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t rt_async_work = PTHREAD_COND_INITIALIZER; /* the queue got an op */
static pthread_cond_t rt_async_progress = PTHREAD_COND_INITIALIZER; /* an op completed */
static struct rt_op *rt_async_head, *rt_async_tail;
static uint64_t rt_async_issued, rt_async_completed;
static int rt_async_started; /* 1: the device thread runs; -1: it could not be started */
static int rt_async_held;    /* a host thread runs rt_async_run's work: the device thread waits */

/* Held-back device printf output (under rt_async_lock). */
static char *rt_async_out;
static size_t rt_async_outlen;

static _Thread_local int rt_async_is_worker;
static _Thread_local int rt_async_skip;

int rt_async_skipping(void)
{
	return rt_async_skip;
}

/* Appends a kernel's printf output to what the next flush writes. */
static void rt_async_hold_output(const char *text, size_t n)
{
	if (!n)
		return;
	pthread_mutex_lock(&rt_async_lock);
	char *grown = realloc(rt_async_out, rt_async_outlen + n);
	if (grown) {
		memcpy(grown + rt_async_outlen, text, n);
		rt_async_out = grown;
		rt_async_outlen += n;
	}
	pthread_mutex_unlock(&rt_async_lock);
	if (!grown) /* out of memory: better out of order than lost */
		fwrite(text, 1, n, stdout);
}

void rt_async_flush(void)
{
	pthread_mutex_lock(&rt_async_lock);
	char *text = rt_async_out;
	size_t n = rt_async_outlen;
	rt_async_out = NULL;
	rt_async_outlen = 0;
	pthread_mutex_unlock(&rt_async_lock);
	if (!text)
		return;
	fflush(stdout); /* the host's output before the kernels' */
	fwrite(text, 1, n, stdout);
	fflush(stdout);
	free(text);
}

/* Runs one operation on the calling thread. A kernel's printf output (written by the
 * interpreter at its end) goes to a memory stream, then to the held-back output. */
static void rt_async_execute(struct rt_op *op)
{
	int device_work = op->flags & RT_WORK_DEVICE;
	rt_async_skip = device_work && rt_error_device() != cudaSuccess;
	if (!device_work || rt_async_skip) {
		op->run(op->arg);
		rt_async_skip = 0;
		if (op->flags & RT_WORK_OWNED)
			free(op->arg);
		return;
	}
	char *text = NULL;
	size_t n = 0;
	FILE *mem = open_memstream(&text, &n);
	emu_set_printf_stream(mem); /* NULL (stdout) when no stream could be made */
	op->run(op->arg);
	emu_set_printf_stream(NULL);
	if (op->flags & RT_WORK_OWNED)
		free(op->arg);
	if (mem) {
		fclose(mem);
		rt_async_hold_output(text, n);
		free(text);
	}
}

static void *rt_async_main(void *unused)
{
	(void)unused;
	rt_async_is_worker = 1;
	pthread_mutex_lock(&rt_async_lock);
	for (;;) {
		while (!rt_async_head || rt_async_held)
			pthread_cond_wait(&rt_async_work, &rt_async_lock);
		struct rt_op *op = rt_async_head;
		rt_async_head = op->next;
		if (!rt_async_head)
			rt_async_tail = NULL;
		pthread_mutex_unlock(&rt_async_lock);
		rt_async_execute(op);
		pthread_mutex_lock(&rt_async_lock);
		rt_async_completed = op->seq;
		pthread_cond_broadcast(&rt_async_progress);
		free(op);
	}
	return NULL;
}

/* At exit: the work still queued runs to its end and its output is written (the
 * runtime's teardown would otherwise free modules under a running kernel). Registered
 * after nvcc's registration code's atexit, so it runs before that unloads anything. */
static void rt_async_exit(void)
{
	if (!rt_async_is_worker)
		rt_async_idle();
	rt_report_stats();
}

/* Starts the device thread once (under rt_async_lock); nonzero when it runs. */
static int rt_async_start(void)
{
	if (!rt_async_started) {
		pthread_t th;
		pthread_attr_t attr;
		pthread_attr_init(&attr);
		pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
		rt_async_started = pthread_create(&th, &attr, rt_async_main, NULL) == 0 ? 1 : -1;
		pthread_attr_destroy(&attr);
		if (rt_async_started == 1)
			atexit(rt_async_exit);
	}
	return rt_async_started == 1;
}

uint64_t rt_async_submit(rt_async_fn run, void *arg, unsigned flags)
{
	struct rt_op *op = malloc(sizeof *op);
	pthread_mutex_lock(&rt_async_lock);
	uint64_t seq = ++rt_async_issued;
	if (op && rt_async_start()) {
		*op = (struct rt_op){NULL, run, arg, seq, flags};
		if (rt_async_tail)
			rt_async_tail->next = op;
		else
			rt_async_head = op;
		rt_async_tail = op;
		pthread_cond_signal(&rt_async_work);
		pthread_mutex_unlock(&rt_async_lock);
		return seq;
	}
	pthread_mutex_unlock(&rt_async_lock);
	free(op);
	/* No thread (or no memory for the op): run it here, after what is queued. */
	rt_async_wait(seq - 1);
	struct rt_op now = {NULL, run, arg, seq, flags};
	rt_async_execute(&now);
	pthread_mutex_lock(&rt_async_lock);
	rt_async_completed = seq;
	pthread_cond_broadcast(&rt_async_progress);
	pthread_mutex_unlock(&rt_async_lock);
	rt_async_flush();
	return seq;
}

void rt_async_run(rt_async_fn run, void *arg)
{
	if (rt_async_is_worker) {
		run(arg);
		return;
	}
	/* Nothing queued and no other host thread here: run it on this thread with the device
	 * thread held off (a thread switch would cost a small cudaMemcpy 0.3 -> 8 us). */
	pthread_mutex_lock(&rt_async_lock);
	int here = rt_async_completed == rt_async_issued && !rt_async_held;
	rt_async_held |= here;
	pthread_mutex_unlock(&rt_async_lock);
	if (!here) {
		rt_async_wait(rt_async_submit(run, arg, 0));
		return;
	}
	run(arg);
	pthread_mutex_lock(&rt_async_lock);
	rt_async_held = 0;
	pthread_cond_broadcast(&rt_async_work);
	pthread_mutex_unlock(&rt_async_lock);
	rt_async_flush();
}

int rt_async_done(uint64_t seq)
{
	pthread_mutex_lock(&rt_async_lock);
	int done = rt_async_completed >= seq;
	pthread_mutex_unlock(&rt_async_lock);
	return done;
}

void rt_async_wait(uint64_t seq)
{
	if (rt_async_is_worker)
		return;
	pthread_mutex_lock(&rt_async_lock);
	while (rt_async_completed < seq)
		pthread_cond_wait(&rt_async_progress, &rt_async_lock);
	pthread_mutex_unlock(&rt_async_lock);
	rt_async_flush();
}

void rt_async_idle(void)
{
	pthread_mutex_lock(&rt_async_lock);
	uint64_t last = rt_async_issued;
	pthread_mutex_unlock(&rt_async_lock);
	rt_async_wait(last);
}
