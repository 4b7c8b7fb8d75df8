// Known-right (issue 14): rectangular tiles. Each block of 32 x 8 threads computes a
// 32 x 8 output tile; it first loads the (32 + 4) x (8 + 4) input tile with its halo into
// shared memory, several elements per thread.
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#define FILTER_RADIUS 2
#define FILTER_DIM (2 * FILTER_RADIUS + 1)
#define OUT_W 32
#define OUT_H 8
#define IN_W (OUT_W + 2 * FILTER_RADIUS)
#define IN_H (OUT_H + 2 * FILTER_RADIUS)

__constant__ float F_c[FILTER_DIM][FILTER_DIM];

__global__ void convolution2DKernel(const float *N, float *P, int width, int height)
{
    __shared__ float N_s[IN_H][IN_W];
    int x0 = blockIdx.x * OUT_W - FILTER_RADIUS, y0 = blockIdx.y * OUT_H - FILTER_RADIUS;
    for (int i = threadIdx.y * OUT_W + threadIdx.x; i < IN_W * IN_H; i += OUT_W * OUT_H) {
        int r = y0 + i / IN_W, c = x0 + i % IN_W;
        N_s[i / IN_W][i % IN_W] = r >= 0 && r < height && c >= 0 && c < width ? N[r * width + c] : 0.0f;
    }
    __syncthreads();
    int col = blockIdx.x * OUT_W + threadIdx.x, row = blockIdx.y * OUT_H + threadIdx.y;
    if (col < width && row < height) {
        float sum = 0.0f;
        for (int fr = 0; fr < FILTER_DIM; fr++) {
            for (int fc = 0; fc < FILTER_DIM; fc++) {
                sum += F_c[fr][fc] * N_s[threadIdx.y + fr][threadIdx.x + fc];
            }
        }
        P[row * width + col] = sum;
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
    dim3 grid((width + OUT_W - 1) / OUT_W, (height + OUT_H - 1) / OUT_H);
    convolution2DKernel<<<grid, dim3(OUT_W, OUT_H)>>>(N_d, P_d, width, height);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(P_h, P_d, bytes, cudaMemcpyDeviceToHost));
    CHECK(cudaFree(N_d));
    CHECK(cudaFree(P_d));
}
