// Emulator core tests: a surface reduction the emulator must refuse by name, a texture
// fetch through a handle that was never created, and kernels
// that need a module of their own (the first .shared variable at offset 0).

__global__ void plain(int *p)
{
	p[threadIdx.x] = threadIdx.x;
}

__global__ void texFetch(cudaTextureObject_t tex, float *c)
{
	c[threadIdx.x] = tex1Dfetch<float>(tex, threadIdx.x); // TEX_LINE
}

__global__ void surfReduce(cudaSurfaceObject_t s, int *c)
{
	int x = (int)threadIdx.x * 4, v = c[0];
	asm volatile("sured.b.add.1d.u32.trap [%0, {%1}], %2;" ::"l"(s), "r"(x), "r"(v)); // SURED_LINE
}

// 2-D convolution, halo from global memory (kernels/07-convolution's cached-halo): the
// shared address of N_s[ty][tx] is formed in 32-bit registers that go below zero for
// halo taps the in-range check then skips; shared addresses must wrap modulo 2^32 like
// the hardware's (a regression test; N_s must be the module's first .shared variable).
__constant__ float c_filter[5][5];
__global__ void convCachedHalo(const float *N, float *P, int width, int height)
{
	int col = blockIdx.x * 32 + threadIdx.x;
	int row = blockIdx.y * 32 + threadIdx.y;
	__shared__ float N_s[32][32];
	if (row < height && col < width) {
		N_s[threadIdx.y][threadIdx.x] = N[row * width + col];
	} else {
		N_s[threadIdx.y][threadIdx.x] = 0.0f;
	}
	__syncthreads();
	if (row < height && col < width) {
		float sum = 0.0f;
		for (int fRow = 0; fRow < 5; fRow++) {
			for (int fCol = 0; fCol < 5; fCol++) {
				int ty = (int)threadIdx.y - 2 + fRow;
				int tx = (int)threadIdx.x - 2 + fCol;
				if (ty >= 0 && ty < 32 && tx >= 0 && tx < 32) {
					sum += c_filter[fRow][fCol] * N_s[ty][tx];
				} else {
					int r = row - 2 + fRow;
					int c = col - 2 + fCol;
					if (r >= 0 && r < height && c >= 0 && c < width) {
						sum += c_filter[fRow][fCol] * N[r * width + c];
					}
				}
			}
		}
		P[row * width + col] = sum;
	}
}

// The asynchronous copies of sm_90 the emulator refuses by name (cp.async, the 1-D bulk
// copy and mbarrier run: tests/emu/programs/cp_async_*.cu, mbarrier.cu): a tensor bulk
// copy (TMA). And an mbarrier used after mbarrier.inval: stopped at its line. After
// convCachedHalo: its N_s must stay the module's first .shared variable.
__global__ void bulkCopy(const int *g, int *c)
{
	__shared__ __align__(16) int s[32];
	__shared__ unsigned long long bar;
	unsigned sa = (unsigned)__cvta_generic_to_shared(s), ba = (unsigned)__cvta_generic_to_shared(&bar);
	asm volatile("cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2}], [%3];"
		     ::"r"(sa), "l"(g), "r"(0), "r"(ba) : "memory"); // BULK_LINE
	c[threadIdx.x] = s[threadIdx.x];
}

__global__ void mbarrierInit(int *c)
{
	__shared__ unsigned long long bar2;
	unsigned ba = (unsigned)__cvta_generic_to_shared(&bar2);
	unsigned long long st;
	asm volatile("mbarrier.inval.shared.b64 [%0];" ::"r"(ba) : "memory");
	asm volatile("mbarrier.arrive.shared.b64 %0, [%1];" : "=l"(st) : "r"(ba) : "memory"); // MBARRIER_LINE
	c[threadIdx.x] = (int)st;
}
