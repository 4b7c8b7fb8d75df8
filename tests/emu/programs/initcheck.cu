// PMPPLAB_EMU_INITCHECK (emu/initcheck.h): reads of device memory nothing wrote. Two
// launches read cudaMalloc'd memory never set (an atomicAdd into a sum never cleared, a
// `+=` into an output never zeroed): each is reported at its line. Every other launch
// reads memory something wrote first, in each way a correct program does: none may be.
#include <cstdio>
#include <cstring>
#include "check.h"

__device__ float dev_acc[4];

__global__ void sumNeverCleared(float *sum, const float *x, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		atomicAdd(sum, x[i]);
}

__global__ void outputNeverSet(float *out, const float *x, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] += x[i];
}

__global__ void addTo(float *acc, const float *x, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		atomicAdd(&acc[i % 4], x[i]);
}

__global__ void plusEq(float *out, const float *x, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] += x[i];
}

__global__ void fill(float *p, int n, float v)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		p[i] = v;
}

__global__ void exchange(float *p)
{
	if (threadIdx.x < 4)
		atomicExch(&p[threadIdx.x], 1.0f);
}

__global__ void addToGlobal(const float *x, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		atomicAdd(&dev_acc[i % 4], x[i]);
}

static void show(const char *what, const float *d, int n)
{
	float h[64];
	CHECK(cudaMemcpy(h, d, n * sizeof(float), cudaMemcpyDefault));
	float s = 0;
	for (int i = 0; i < n; i++)
		s += h[i];
	printf("%s: %g\n", what, s);
}

int main()
{
	const int n = 64;
	float xh[n];
	for (int i = 0; i < n; i++)
		xh[i] = (float)(i % 5);
	float *x, *a[12];
	CHECK(cudaMalloc(&x, n * sizeof(float)));
	CHECK(cudaMemcpy(x, xh, sizeof xh, cudaMemcpyHostToDevice));
	for (int k = 0; k < 12; k++)
		CHECK(cudaMalloc(&a[k], n * sizeof(float)));

	// wrong: never set (on a GPU often zeros, so the sums come out right by luck)
	sumNeverCleared<<<1, n>>>(a[0], x, n);
	outputNeverSet<<<1, n>>>(a[1], x, n);

	// right: cudaMemset, cudaMemsetAsync, cudaMemcpy from the host, a kernel, atomicExch
	CHECK(cudaMemset(a[2], 0, n * sizeof(float)));
	addTo<<<1, n>>>(a[2], x, n);
	cudaStream_t s;
	CHECK(cudaStreamCreate(&s));
	CHECK(cudaMemsetAsync(a[3], 0, n * sizeof(float), s));
	plusEq<<<2, 32, 0, s>>>(a[3], x, n);
	CHECK(cudaStreamSynchronize(s));
	float zeros[n] = {0};
	CHECK(cudaMemcpy(a[4], zeros, sizeof zeros, cudaMemcpyHostToDevice));
	plusEq<<<2, 32>>>(a[4], x, n);
	fill<<<1, n>>>(a[5], n, 0.0f);
	plusEq<<<2, 32>>>(a[5], x, n);
	exchange<<<1, 32>>>(a[6]);
	addTo<<<1, n>>>(a[6], x, n);
	// device to device: of bytes a kernel wrote, and of bytes the host copied in
	CHECK(cudaMemcpy(a[7], a[5], n * sizeof(float), cudaMemcpyDeviceToDevice));
	plusEq<<<2, 32>>>(a[7], x, n);
	CHECK(cudaMemcpy(a[8], a[4], n * sizeof(float), cudaMemcpyDeviceToDevice));
	plusEq<<<2, 32>>>(a[8], x, n);
	// 2-D: rows of a pitched allocation
	float *p;
	size_t pitch;
	CHECK(cudaMallocPitch(&p, &pitch, 16 * sizeof(float), 4));
	CHECK(cudaMemcpy2D(p, pitch, xh, 16 * sizeof(float), 16 * sizeof(float), 4,
			   cudaMemcpyHostToDevice));
	for (int r = 0; r < 4; r++)
		plusEq<<<1, 16>>>((float *)((char *)p + r * pitch), x, 16);
	// a __device__ variable (zero by definition), managed memory the host wrote
	addToGlobal<<<1, n>>>(x, n);
	float *m;
	CHECK(cudaMallocManaged(&m, n * sizeof(float)));
	for (int i = 0; i < n; i++)
		m[i] = 1.0f;
	plusEq<<<2, 32>>>(m, x, n);
	CHECK(cudaDeviceSynchronize());

	show("memset", a[2], 4);
	show("memset async", a[3], n);
	show("copied in", a[4], n);
	show("kernel wrote", a[5], n);
	show("exchanged", a[6], 4);
	show("copied from kernel's", a[7], n);
	show("copied from host's", a[8], n);
	show("2-D row 3", (float *)((char *)p + 3 * pitch), 16);
	float g[4];
	CHECK(cudaMemcpyFromSymbol(g, dev_acc, sizeof g));
	printf("__device__: %g\n", g[0] + g[1] + g[2] + g[3]);
	show("managed", m, n);
	return 0;
}
