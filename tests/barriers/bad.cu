// Known-bad kernels for the barrier and race checks (issue 6). Each bug is marked by a
// comment "MARK:<name>" on the line a finding must point at; test_barriers.c reads the
// marks from this file, so lines may move. The bugs are the classic ones of PMPP:
// missing barriers in tiled matrix multiplication, reduction and scan, a barrier only
// part of the block reaches, and a non-atomic histogram update. (In matmul a warp reads
// only Mds rows it wrote itself; the hazard between warps is on Nds: marks are there.)
#define TILE 16

// Tiled matmul (PMPP ch. 5) without the barrier after loading the tiles: a thread reads
// its neighbours' elements before they are written.
extern "C" __global__ void mm_no_first_sync(const float *M, const float *N, float *P, int n)
{
	__shared__ float Mds[TILE][TILE];
	__shared__ float Nds[TILE][TILE];
	int tx = threadIdx.x, ty = threadIdx.y;
	int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
	float v = 0;
	for (int ph = 0; ph < n / TILE; ph++) {
		Mds[ty][tx] = M[row * n + ph * TILE + tx];
		Nds[ty][tx] = N[(ph * TILE + ty) * n + col]; // MARK:mm1_write
		for (int k = 0; k < TILE; k++)
			v += Mds[ty][k] * Nds[k][tx]; // MARK:mm1_read
		__syncthreads();
	}
	P[row * n + col] = v;
}

// The same without the second barrier: the next phase overwrites a tile that slower
// threads are still reading.
extern "C" __global__ void mm_no_second_sync(const float *M, const float *N, float *P, int n)
{
	__shared__ float Mds[TILE][TILE];
	__shared__ float Nds[TILE][TILE];
	int tx = threadIdx.x, ty = threadIdx.y;
	int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
	float v = 0;
	for (int ph = 0; ph < n / TILE; ph++) {
		Mds[ty][tx] = M[row * n + ph * TILE + tx];
		Nds[ty][tx] = N[(ph * TILE + ty) * n + col]; // MARK:mm2_write
		__syncthreads(); // MARK:mm2_bar
		for (int k = 0; k < TILE; k++)
			v += Mds[ty][k] * Nds[k][tx]; // MARK:mm2_read
	}
	P[row * n + col] = v;
}

// Boundary check around the whole phase loop: threads outside the matrix skip the
// barriers that the others wait at.
extern "C" __global__ void mm_sync_in_if(const float *M, const float *N, float *P, int n)
{
	__shared__ float Mds[TILE][TILE];
	__shared__ float Nds[TILE][TILE];
	int tx = threadIdx.x, ty = threadIdx.y;
	int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
	if (row < n && col < n) { // MARK:mm3_cond
		float v = 0;
		for (int ph = 0; ph < (n + TILE - 1) / TILE; ph++) {
			int mc = ph * TILE + tx, nr = ph * TILE + ty;
			Mds[ty][tx] = mc < n ? M[row * n + mc] : 0.0f;
			Nds[ty][tx] = nr < n ? N[nr * n + col] : 0.0f;
			__syncthreads(); // MARK:mm3_bar
			for (int k = 0; k < TILE; k++)
				v += Mds[ty][k] * Nds[k][tx];
			__syncthreads();
		}
		P[row * n + col] = v;
	}
}

// Early return of the threads outside the matrix, then the barriers.
extern "C" __global__ void mm_return_then_sync(const float *M, const float *N, float *P, int n)
{
	__shared__ float Mds[TILE][TILE];
	__shared__ float Nds[TILE][TILE];
	int tx = threadIdx.x, ty = threadIdx.y;
	int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
	if (row >= n || col >= n) // MARK:mm4_cond
		return;
	float v = 0;
	for (int ph = 0; ph < (n + TILE - 1) / TILE; ph++) {
		int mc = ph * TILE + tx, nr = ph * TILE + ty;
		Mds[ty][tx] = mc < n ? M[row * n + mc] : 0.0f;
		Nds[ty][tx] = nr < n ? N[nr * n + col] : 0.0f;
		__syncthreads(); // MARK:mm4_bar
		for (int k = 0; k < TILE; k++)
			v += Mds[ty][k] * Nds[k][tx];
		__syncthreads();
	}
	P[row * n + col] = v;
}

// Reduction (PMPP ch. 10) without the barrier between strides.
extern "C" __global__ void reduce_no_sync(const float *in, float *out)
{
	__shared__ float s[256];
	unsigned t = threadIdx.x;
	s[t] = in[blockIdx.x * blockDim.x + t];
	__syncthreads();
	for (unsigned stride = blockDim.x / 2; stride >= 1; stride /= 2) {
		if (t < stride)
			s[t] += s[t + stride]; // MARK:red_rw
	}
	if (t == 0)
		out[blockIdx.x] = s[0];
}

// Kogge-Stone scan (PMPP ch. 11) updating XY in place: in one step a thread reads
// XY[t - stride] while thread t - stride overwrites it.
extern "C" __global__ void ks_inplace(const float *x, float *y, int n)
{
	__shared__ float XY[256];
	unsigned t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
	XY[t] = i < n ? x[i] : 0.0f;
	for (unsigned stride = 1; stride < blockDim.x; stride *= 2) {
		__syncthreads();
		if (t >= stride)
			XY[t] += XY[t - stride]; // MARK:ks_rw
	}
	if (i < n)
		y[i] = XY[t];
}

// Privatised histogram (PMPP ch. 9) with a plain increment of the shared bins.
extern "C" __global__ void hist_plain(const unsigned char *data, int n, unsigned *hist)
{
	__shared__ unsigned bins[64];
	unsigned t = threadIdx.x;
	if (t < 64)
		bins[t] = 0;
	__syncthreads();
	for (int i = blockIdx.x * blockDim.x + t; i < n; i += blockDim.x * gridDim.x)
		bins[data[i] % 64]++; // MARK:hist_inc
	__syncthreads();
	if (t < 64)
		atomicAdd(&hist[t], bins[t]);
}

// Shared memory read before any thread wrote it (the initialisation was forgotten).
extern "C" __global__ void hist_no_init(const unsigned char *data, int n, unsigned *hist)
{
	__shared__ unsigned bins[64];
	unsigned t = threadIdx.x;
	for (int i = blockIdx.x * blockDim.x + t; i < n; i += blockDim.x * gridDim.x)
		atomicAdd(&bins[data[i] % 64], 1u); // MARK:uninit
	__syncthreads();
	if (t < 64)
		atomicAdd(&hist[t], bins[t]);
}

// Two different barriers: even warps wait at one, odd warps at the other.
extern "C" __global__ void two_barriers(float *out)
{
	__shared__ float s[128];
	unsigned t = threadIdx.x;
	s[t] = (float)t;
	if ((t / 32) % 2 == 0) { // MARK:two_cond
		__syncthreads(); // MARK:two_bar_a
		out[t] = s[127 - t];
	} else {
		__syncthreads(); // MARK:two_bar_b
		out[t] = s[127 - t] + 1.0f;
	}
}

// Warp-synchronous tail of a reduction without __syncwarp(): lanes of one warp race.
extern "C" __global__ void warp_tail_no_syncwarp(const float *in, float *out)
{
	__shared__ float s[64];
	unsigned t = threadIdx.x;
	s[t] = in[blockIdx.x * 64 + t];
	__syncthreads();
	if (t < 32) {
		volatile float *v = s;
		for (unsigned stride = 32; stride > 0; stride /= 2)
			v[t] += v[t + stride]; // MARK:warp_rw
	}
	if (t == 0)
		out[blockIdx.x] = s[0];
}

// Warps 2 and 3 read past the end of `in` before a barrier that every thread reaches:
// the kernel stops at the read while warps 0 and 1 wait at the barrier. The barrier is
// right; only the read is a finding (memcheck's), never "reached by 64 of 128 threads".
extern "C" __global__ void fault_before_sync(const float *in, float *out, int n)
{
	__shared__ float s[128];
	unsigned t = threadIdx.x;
	s[t] = in[t < 64 ? t : t + n]; // MARK:fault_read
	__syncthreads(); // MARK:fault_bar
	out[t] = s[127 - t];
}
