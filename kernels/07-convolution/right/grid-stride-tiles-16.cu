// Known-right (issue 14): 16 x 16 input tiles (12 x 12 outputs) and a fixed grid whose
// blocks stride over the tiles of the image.
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#define FILTER_RADIUS 2
#define FILTER_DIM (2 * FILTER_RADIUS + 1)
#define IN_TILE 16
#define OUT_TILE (IN_TILE - 2 * FILTER_RADIUS)

__constant__ float F_c[FILTER_DIM][FILTER_DIM];

__global__ void convolution2DKernel(const float *N, float *P, int width, int height)
{
    __shared__ float N_s[IN_TILE][IN_TILE];
    int tilesX = (width + OUT_TILE - 1) / OUT_TILE, tilesY = (height + OUT_TILE - 1) / OUT_TILE;
    for (int t = blockIdx.x; t < tilesX * tilesY; t += gridDim.x) {
        int col = (t % tilesX) * OUT_TILE + threadIdx.x - FILTER_RADIUS;
        int row = (t / tilesX) * OUT_TILE + threadIdx.y - FILTER_RADIUS;
        bool inside = row >= 0 && row < height && col >= 0 && col < width;
        N_s[threadIdx.y][threadIdx.x] = inside ? N[row * width + col] : 0.0f;
        __syncthreads();
        int tc = threadIdx.x - FILTER_RADIUS, tr = threadIdx.y - FILTER_RADIUS;
        if (inside && tc >= 0 && tc < OUT_TILE && tr >= 0 && tr < OUT_TILE) {
            float sum = 0.0f;
            for (int fr = 0; fr < FILTER_DIM; fr++) {
                for (int fc = 0; fc < FILTER_DIM; fc++) {
                    sum += F_c[fr][fc] * N_s[tr + fr][tc + fc];
                }
            }
            P[row * width + col] = sum;
        }
        __syncthreads(); // the tile is used before the next one overwrites it
    }
}

#define CHECK(call)                                                              \
    do {                                                                         \
        cudaError_t err_ = (call);                                               \
        if (err_ != cudaSuccess) {                                               \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,                  \
                    cudaGetErrorString(err_));                                   \
            exit(1);                                                             \
        }                                                                        \
    } while (0)

void convolution2D(const float *N_h, const float *F_h, float *P_h, int width, int height)
{
    size_t bytes = (size_t)width * height * sizeof(float);
    float *N_d, *P_d;
    CHECK(cudaMalloc((void **)&N_d, bytes));
    CHECK(cudaMalloc((void **)&P_d, bytes));
    CHECK(cudaMemcpy(N_d, N_h, bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpyToSymbol(F_c, F_h, FILTER_DIM * FILTER_DIM * sizeof(float)));
    int sms = 0;
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    convolution2DKernel<<<8 * sms, dim3(IN_TILE, IN_TILE)>>>(N_d, P_d, width, height);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(P_h, P_d, bytes, cudaMemcpyDeviceToHost));
    CHECK(cudaFree(N_d));
    CHECK(cudaFree(P_d));
}
