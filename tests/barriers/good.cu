// Known-good kernels for the barrier and race checks (issue 6): neither the static
// analysis nor the emulator's tracker may report anything here.
#define TILE 16

// Tiled matmul with both barriers and boundary checks that keep every thread in the loop.
extern "C" __global__ void mm_good(const float *M, const float *N, float *P, int n)
{
	__shared__ float Mds[TILE][TILE];
	__shared__ float Nds[TILE][TILE];
	int tx = threadIdx.x, ty = threadIdx.y;
	int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
	float v = 0;
	for (int ph = 0; ph < (n + TILE - 1) / TILE; ph++) {
		int mc = ph * TILE + tx, nr = ph * TILE + ty;
		Mds[ty][tx] = row < n && mc < n ? M[row * n + mc] : 0.0f;
		Nds[ty][tx] = nr < n && col < n ? N[nr * n + col] : 0.0f;
		__syncthreads();
		for (int k = 0; k < TILE; k++)
			v += Mds[ty][k] * Nds[k][tx];
		__syncthreads();
	}
	if (row < n && col < n)
		P[row * n + col] = v;
}

// Reduction with a barrier per stride down to 64, then a warp-synchronous tail that
// uses __syncwarp() between the read and the write of every step.
extern "C" __global__ void reduce_syncwarp(const float *in, float *out)
{
	__shared__ float s[256];
	unsigned t = threadIdx.x;
	s[t] = in[blockIdx.x * blockDim.x + t];
	__syncthreads();
	for (unsigned stride = blockDim.x / 2; stride >= 32; stride /= 2) {
		if (t < stride)
			s[t] += s[t + stride];
		__syncthreads();
	}
	if (t < 32) {
		for (unsigned stride = 16; stride > 0; stride /= 2) {
			float v = s[t] + s[t + stride];
			__syncwarp();
			s[t] = v;
			__syncwarp();
		}
	}
	if (t == 0)
		out[blockIdx.x] = s[0];
}

// Shuffle reduction: warps reduce in registers, one shared slot per warp.
extern "C" __global__ void reduce_shuffle(const float *in, float *out)
{
	__shared__ float partial[32];
	unsigned t = threadIdx.x;
	float v = in[blockIdx.x * blockDim.x + t];
	for (int o = 16; o > 0; o /= 2)
		v += __shfl_down_sync(0xffffffffu, v, o);
	if (t % 32 == 0)
		partial[t / 32] = v;
	__syncthreads();
	if (t < 32) {
		v = t < blockDim.x / 32 ? partial[t] : 0.0f;
		for (int o = 16; o > 0; o /= 2)
			v += __shfl_down_sync(0xffffffffu, v, o);
		if (t == 0)
			out[blockIdx.x] = v;
	}
}

// Barriers under conditions every thread of a block evaluates the same way.
extern "C" __global__ void uniform_conditions(float *out, int flag)
{
	__shared__ float s[256];
	unsigned t = threadIdx.x;
	s[t] = (float)t;
	if (blockDim.x > 32)
		__syncthreads();
	else
		__syncwarp();
	float v = s[blockDim.x - 1 - t];
	if (blockIdx.x == 0) {
		__syncthreads();
		s[t] = v * 2.0f;
		__syncthreads();
		v = s[(t + 1) % blockDim.x];
	}
	if (flag > 0)
		__syncthreads();
	out[blockIdx.x * blockDim.x + t] = v;
}

// Privatised histogram with atomics, barriers around the shared phase.
extern "C" __global__ void hist_atomic(const unsigned char *data, int n, unsigned *hist)
{
	__shared__ unsigned bins[64];
	unsigned t = threadIdx.x;
	if (t < 64)
		bins[t] = 0;
	__syncthreads();
	for (int i = blockIdx.x * blockDim.x + t; i < n; i += blockDim.x * gridDim.x)
		atomicAdd(&bins[data[i] % 64], 1u);
	__syncthreads();
	if (t < 64)
		atomicAdd(&hist[t], bins[t]);
}

// Kogge-Stone scan with a temporary and two barriers per step (PMPP Fig. 11.3).
extern "C" __global__ void ks_good(const float *x, float *y, int n)
{
	__shared__ float XY[256];
	unsigned t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
	XY[t] = i < n ? x[i] : 0.0f;
	for (unsigned stride = 1; stride < blockDim.x; stride *= 2) {
		__syncthreads();
		float tmp = 0.0f;
		if (t >= stride)
			tmp = XY[t] + XY[t - stride];
		__syncthreads();
		if (t >= stride)
			XY[t] = tmp;
	}
	if (i < n)
		y[i] = XY[t];
}

// A barrier in a loop whose trip count is read from shared memory at a uniform address.
extern "C" __global__ void loop_from_shared(const int *counts, float *out)
{
	__shared__ int trips;
	__shared__ float acc[128];
	unsigned t = threadIdx.x;
	if (t == 0)
		trips = counts[blockIdx.x];
	acc[t] = 0.0f;
	__syncthreads();
	for (int k = 0; k < trips; k++) {
		acc[t] += 1.0f;
		__syncthreads();
	}
	out[blockIdx.x * blockDim.x + t] = acc[(t + 1) % blockDim.x];
}
