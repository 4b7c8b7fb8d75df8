// Thrust as a course assignment uses it: device_vector, transform with a saxpy functor,
// reduce, and sort twice: plain ints (cub's radix sort, whose bit tricks compile to
// bmsk) and with a comparator (merge sort, launched through cudaLaunchKernelEx).
#include <cmath>
#include <thrust/device_vector.h>
#include <thrust/host_vector.h>
#include <thrust/reduce.h>
#include <thrust/sequence.h>
#include <thrust/sort.h>
#include <thrust/transform.h>
#include "check.h"

struct saxpy_functor {
	const float a;
	saxpy_functor(float a_) : a(a_) {}
	__host__ __device__ float operator()(const float &x, const float &y) const
	{
		return a * x + y;
	}
};

struct my_less {
	__host__ __device__ bool operator()(int a, int b) const
	{
		return a < b;
	}
};

// Sorts 0..999 shuffled, with the comparator or without; 1 when the result is 0..999.
static int sortedOk(bool comparator)
{
	thrust::host_vector<int> h(1000);
	for (int i = 0; i < 1000; i++)
		h[i] = (i * 7919) % 1000;
	thrust::device_vector<int> d = h;
	if (comparator)
		thrust::sort(d.begin(), d.end(), my_less());
	else
		thrust::sort(d.begin(), d.end());
	thrust::host_vector<int> s = d;
	for (int i = 0; i < 1000; i++)
		if (s[i] != i)
			return 0;
	return 1;
}

int main()
{
	const int n = 1 << 16;
	thrust::device_vector<float> x(n), y(n, 1.0f);
	thrust::sequence(x.begin(), x.end());
	thrust::transform(x.begin(), x.end(), y.begin(), y.begin(), saxpy_functor(2.0f));
	float sum = thrust::reduce(y.begin(), y.end(), 0.0f, thrust::plus<float>());
	double ref = 0;
	for (int i = 0; i < n; i++)
		ref += 2.0 * i + 1.0;
	int radix = sortedOk(false), merge = sortedOk(true);
	int ok = fabs(sum - ref) < 1e-4 * ref && radix && merge;
	printf("thrust: sum %.0f vs %.0f, radix sort %s, merge sort %s\n", sum, ref,
	       radix ? "ok" : "WRONG", merge ? "ok" : "WRONG");
	printf("%s\n", ok ? "PASS" : "FAIL");
	return !ok;
}
