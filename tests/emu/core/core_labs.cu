// Emulator core tests: the common lab kernels (compiled to PTX at build time).
#include <cstdio>

__constant__ float c_mask[9];
__device__ int g_counter;

__global__ void vecAdd(const float *a, const float *b, float *c, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		c[i] = a[i] + b[i];
}

// 2-D grid: out[r][c] = in[r][c] * 2 + r - c
__global__ void grid2d(const int *in, int *out, int rows, int cols)
{
	int c = blockIdx.x * blockDim.x + threadIdx.x;
	int r = blockIdx.y * blockDim.y + threadIdx.y;
	if (r < rows && c < cols)
		out[r * cols + c] = in[r * cols + c] * 2 + r - c;
}

#define TILE 16
__global__ void matmulTiled(const float *A, const float *B, float *C, int n)
{
	__shared__ float As[TILE][TILE];
	__shared__ float Bs[TILE][TILE];
	int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
	float acc = 0;
	for (int t = 0; t < (n + TILE - 1) / TILE; t++) {
		int ac = t * TILE + threadIdx.x, br = t * TILE + threadIdx.y;
		As[threadIdx.y][threadIdx.x] = (row < n && ac < n) ? A[row * n + ac] : 0.0f;
		Bs[threadIdx.y][threadIdx.x] = (br < n && col < n) ? B[br * n + col] : 0.0f;
		__syncthreads();
		for (int k = 0; k < TILE; k++)
			acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
		__syncthreads();
	}
	if (row < n && col < n)
		C[row * n + col] = acc;
}

__global__ void conv1d(const float *in, float *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	float s = 0;
	for (int k = 0; k < 9; k++) {
		int j = i + k - 4;
		if (j >= 0 && j < n)
			s += c_mask[k] * in[j];
	}
	out[i] = s;
}

__global__ void histogram(const unsigned char *data, unsigned *bins, int n)
{
	__shared__ unsigned local[64];
	for (int b = threadIdx.x; b < 64; b += blockDim.x)
		local[b] = 0;
	__syncthreads();
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
		atomicAdd(&local[data[i] % 64], 1u);
	__syncthreads();
	for (int b = threadIdx.x; b < 64; b += blockDim.x)
		atomicAdd(&bins[b], local[b]);
}

// sum with warp shuffles and dynamic shared memory
__global__ void reduceShfl(const float *in, float *out, int n)
{
	extern __shared__ float warpSums[];
	float v = 0;
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
		v += in[i];
	for (int o = 16; o > 0; o >>= 1)
		v += __shfl_down_sync(0xffffffff, v, o);
	if ((threadIdx.x & 31) == 0)
		warpSums[threadIdx.x / 32] = v;
	__syncthreads();
	if (threadIdx.x < 32) {
		v = threadIdx.x < blockDim.x / 32 ? warpSums[threadIdx.x] : 0;
		for (int o = 16; o > 0; o >>= 1)
			v += __shfl_xor_sync(0xffffffff, v, o);
		if (threadIdx.x == 0)
			atomicAdd(out, v);
	}
}

// classic shared-memory tree reduction (integers: exact)
__global__ void reduceShared(const int *in, int *out, int n)
{
	__shared__ int s[256];
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	s[threadIdx.x] = i < n ? in[i] : 0;
	__syncthreads();
	for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
		if (threadIdx.x < stride)
			s[threadIdx.x] += s[threadIdx.x + stride];
		__syncthreads();
	}
	if (threadIdx.x == 0)
		out[blockIdx.x] = s[0];
}

// inclusive Kogge-Stone scan of one block of 256
__global__ void scanBlock(const int *in, int *out, int n)
{
	__shared__ int s[256];
	int i = threadIdx.x;
	s[i] = i < n ? in[i] : 0;
	__syncthreads();
	for (int off = 1; off < blockDim.x; off *= 2) {
		int v = i >= off ? s[i - off] : 0;
		__syncthreads();
		s[i] += v;
		__syncthreads();
	}
	if (i < n)
		out[i] = s[i];
}

__global__ void transposeTiled(const float *in, float *out, int w, int h)
{
	__shared__ float tile[32][33];
	int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
	for (int j = 0; j < 32; j += blockDim.y)
		if (x < w && y + j < h)
			tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * w + x];
	__syncthreads();
	x = blockIdx.y * 32 + threadIdx.x;
	y = blockIdx.x * 32 + threadIdx.y;
	for (int j = 0; j < 32; j += blockDim.y)
		if (x < h && y + j < w)
			out[(y + j) * h + x] = tile[threadIdx.x][threadIdx.y + j];
}

__global__ void countBlocks(void)
{
	if (threadIdx.x == 0)
		atomicAdd(&g_counter, 1);
}
