// Matrix transpose (CUDA samples "transpose" style): a copy kernel, a naive transpose,
// and a tiled one through shared memory padded against bank conflicts, on a matrix
// whose sides are not multiples of the tile.
#include "check.h"

#define TILE_DIM 32
#define BLOCK_ROWS 8

__global__ void copyKernel(float *out, const float *in, int w, int h)
{
	int x = blockIdx.x * TILE_DIM + threadIdx.x, y = blockIdx.y * TILE_DIM + threadIdx.y;
	for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
		if (x < w && y + j < h)
			out[(y + j) * w + x] = in[(y + j) * w + x];
}

__global__ void transposeNaive(float *out, const float *in, int w, int h)
{
	int x = blockIdx.x * TILE_DIM + threadIdx.x, y = blockIdx.y * TILE_DIM + threadIdx.y;
	for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
		if (x < w && y + j < h)
			out[x * h + y + j] = in[(y + j) * w + x];
}

__global__ void transposeTiled(float *out, const float *in, int w, int h)
{
	__shared__ float tile[TILE_DIM][TILE_DIM + 1];
	int x = blockIdx.x * TILE_DIM + threadIdx.x, y = blockIdx.y * TILE_DIM + threadIdx.y;
	for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
		if (x < w && y + j < h)
			tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * w + x];
	__syncthreads();
	x = blockIdx.y * TILE_DIM + threadIdx.x; // transposed block offset
	y = blockIdx.x * TILE_DIM + threadIdx.y;
	for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
		if (x < h && y + j < w)
			out[(y + j) * h + x] = tile[threadIdx.x][threadIdx.y + j];
}

int main()
{
	const int w = 1000, h = 700;
	size_t bytes = (size_t)w * h * sizeof(float);
	float *in = (float *)malloc(bytes), *out = (float *)malloc(bytes);
	for (int i = 0; i < w * h; i++)
		in[i] = (float)(i % 9973);
	float *dIn, *dOut;
	CHECK(cudaMalloc(&dIn, bytes));
	CHECK(cudaMalloc(&dOut, bytes));
	CHECK(cudaMemcpy(dIn, in, bytes, cudaMemcpyHostToDevice));
	dim3 grid((w + TILE_DIM - 1) / TILE_DIM, (h + TILE_DIM - 1) / TILE_DIM), block(TILE_DIM, BLOCK_ROWS);

	GpuTimer t;
	int totalBad = 0;
	const char *names[3] = {"copy", "naive transpose", "tiled transpose"};
	for (int v = 0; v < 3; v++) {
		CHECK(cudaMemset(dOut, 0, bytes));
		t.begin();
		if (v == 0)
			copyKernel<<<grid, block>>>(dOut, dIn, w, h);
		else if (v == 1)
			transposeNaive<<<grid, block>>>(dOut, dIn, w, h);
		else
			transposeTiled<<<grid, block>>>(dOut, dIn, w, h);
		CHECK(cudaGetLastError());
		t.end(names[v]);
		CHECK(cudaMemcpy(out, dOut, bytes, cudaMemcpyDeviceToHost));
		int bad = 0;
		for (int y = 0; y < h; y++)
			for (int x = 0; x < w; x++) {
				float want = in[y * w + x];
				float got = v == 0 ? out[y * w + x] : out[x * h + y];
				bad += got != want;
			}
		totalBad += bad;
		printf("%s: out[1]=%.0f out[%d]=%.0f mismatches=%d\n", names[v], out[1], w * h - 2, out[w * h - 2], bad);
	}
	CHECK(cudaFree(dIn));
	CHECK(cudaFree(dOut));
	free(in), free(out);
	printf("%s\n", totalBad ? "FAIL" : "PASS");
	return totalBad != 0;
}
