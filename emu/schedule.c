/* schedule — see schedule.h. */
#include "schedule.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static pthread_mutex_t sched_lock = PTHREAD_MUTEX_INITIALIZER;
static int sched_set;
static struct emu_schedule sched_cur;

int emu_schedule_parse(const char *text, struct emu_schedule *out)
{
	static const char *const names[] = { "forward", "reverse", "random" };
	struct emu_schedule s = { EMU_ORDER_FORWARD, 0, 0 };
	size_t n = strcspn(text, ":/");
	unsigned k;
	for (k = 0; k < 3; k++)
		if (strlen(names[k]) == n && !strncmp(text, names[k], n))
			break;
	if (k == 3)
		return -EINVAL;
	s.order = (enum emu_order)k;
	const char *p = text + n;
	char *end;
	if (*p == ':') {
		s.seed = strtoull(p + 1, &end, 10);
		if (end == p + 1)
			return -EINVAL;
		p = end;
	}
	if (*p == '/') {
		unsigned long v = strtoul(p + 1, &end, 10);
		if (end == p + 1 || v == 0 || v > 1000000000ul)
			return -EINVAL;
		s.slice = (unsigned)v;
		p = end;
	}
	if (*p)
		return -EINVAL;
	*out = s;
	return 0;
}

void emu_set_schedule(const struct emu_schedule *s)
{
	pthread_mutex_lock(&sched_lock);
	sched_set = s != NULL;
	if (s)
		sched_cur = *s;
	pthread_mutex_unlock(&sched_lock);
}

void emu_schedule_current(struct emu_schedule *out)
{
	pthread_mutex_lock(&sched_lock);
	int set = sched_set;
	if (set)
		*out = sched_cur;
	pthread_mutex_unlock(&sched_lock);
	if (set)
		return;
	const char *e = getenv("PMPPLAB_EMU_SCHEDULE");
	*out = (struct emu_schedule){ EMU_ORDER_FORWARD, 0, 0 };
	if (e && *e && emu_schedule_parse(e, out) < 0)
		*out = (struct emu_schedule){ EMU_ORDER_FORWARD, 0, 0 };
}

/* splitmix64: a good 64-bit mix of a counter. */
static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static uint64_t gcd(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;
		a = b;
		b = t;
	}
	return a;
}

unsigned emu_schedule_block(const struct emu_schedule *s, unsigned i, unsigned n)
{
	if (n <= 1 || s->order == EMU_ORDER_FORWARD)
		return i;
	if (s->order == EMU_ORDER_REVERSE)
		return n - 1 - i;
	/* a random affine bijection i -> (a*i + b) mod n, a coprime with n */
	uint64_t a = mix(s->seed) % n, b = mix(s->seed ^ 0x5bd1e995u) % n;
	while (gcd(a ? a : 1, n) != 1 || a == 0)
		a = (a + 1) % n;
	return (unsigned)((a * i + b) % n);
}

void emu_schedule_warps(const struct emu_schedule *s, unsigned block, unsigned round,
			unsigned *order, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		order[i] = s->order == EMU_ORDER_REVERSE ? n - 1 - i : i;
	if (s->order != EMU_ORDER_RANDOM)
		return;
	uint64_t st = mix(s->seed ^ ((uint64_t)block << 32) ^ round);
	for (unsigned i = n; i > 1; i--) { /* Fisher-Yates */
		st = mix(st);
		unsigned j = (unsigned)(st % i), t = order[i - 1];
		order[i - 1] = order[j];
		order[j] = t;
	}
}
