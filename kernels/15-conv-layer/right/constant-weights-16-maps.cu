// Known-right: version 3 with the weights in __constant__ memory (one cudaMemcpyToSymbol;
// the lanes of a warp read the same weight, a broadcast) instead of shared memory, 16
// output maps per thread in registers (the sums of maps past M are never stored), __ldg
// input loads; versions 1 and 2 as in the solution.
#include <cuda_runtime.h>
#include <stdio.h>

#define TILE 16  // version 1: 16 x 16 outputs per block; version 2: the GEMM's tiles

// ---- version 1: one thread per output element -------------------------------------
// Block (x, y, z) computes a 16 x 16 tile of output map m = z % M of image b = z / M.
__global__ void convPlainKernel(const float *input, const float *mask, float *output, int M,
                                int C, int H, int W, int K)
{
    int Hout = H - K + 1, Wout = W - K + 1;
    int w = blockIdx.x * TILE + threadIdx.x;
    int h = blockIdx.y * TILE + threadIdx.y;
    int m = blockIdx.z % M, b = blockIdx.z / M;
    if (h >= Hout || w >= Wout)
        return;
    float sum = 0.0f;
    for (int c = 0; c < C; ++c)
        for (int p = 0; p < K; ++p)
            for (int q = 0; q < K; ++q)
                sum += input[((b * C + c) * H + h + p) * W + w + q] *
                       mask[((m * C + c) * K + p) * K + q];
    output[((b * M + m) * Hout + h) * Wout + w] = sum;
}

// ---- version 2: unroll (im2col), then a matrix product ----------------------------
// Xu (C*K*K rows, Hout*Wout columns) of image b: Xu[(c*K + p)*K + q][h*Wout + w] =
// input[b][c][h + p][w + q]. Thread (col, c) fills one column's K*K rows of channel c.
__global__ void unrollKernel(const float *input, float *Xu, int b, int C, int H, int W, int K)
{
    int Hout = H - K + 1, Wout = W - K + 1, HW = Hout * Wout;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int c = blockIdx.y;
    if (col >= HW)
        return;
    int h = col / Wout, w = col % Wout;
    const float *x = input + ((size_t)b * C + c) * H * W;
    for (int p = 0; p < K; ++p)
        for (int q = 0; q < K; ++q)
            Xu[((c * K + p) * K + q) * HW + col] = x[(h + p) * W + w + q];
}

// Lab 05's tiled product: Y (m x n) = A (m x k) * B (k x n), row-major.
__global__ void matMulKernel(const float *A, const float *B, float *Y, int m, int k, int n)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
    float sum = 0.0f;
    for (int ph = 0; ph < (k + TILE - 1) / TILE; ++ph) {
        int aCol = ph * TILE + tx, bRow = ph * TILE + ty;
        As[ty][tx] = (row < m && aCol < k) ? A[row * k + aCol] : 0.0f;
        Bs[ty][tx] = (bRow < k && col < n) ? B[bRow * n + col] : 0.0f;
        __syncthreads();
        for (int i = 0; i < TILE; ++i)
            sum += As[ty][i] * Bs[i][tx];
        __syncthreads();
    }
    if (row < m && col < n)
        Y[row * n + col] = sum;
}

// ---- version 3: optimised -----------------------------------------------------------
#define CMAPS 16
__constant__ float maskC[16384]; // M * C * K * K <= 16384 floats (64 KiB)

// version 3: weights in constant memory (every thread of a warp reads the same weight:
// a broadcast), each thread CMAPS output maps of one pixel in registers
__global__ void convConstKernel(const float *__restrict__ input, float *__restrict__ output,
                                int M, int C, int H, int W, int K)
{
    int Hout = H - K + 1, Wout = W - K + 1, HW = Hout * Wout, CKK = C * K * K;
    int chunks = (M + CMAPS - 1) / CMAPS;
    int b = blockIdx.y / chunks, m0 = (blockIdx.y % chunks) * CMAPS;
    int pix = blockIdx.x * blockDim.x + threadIdx.x;
    if (pix >= HW)
        return;
    int h = pix / Wout, w = pix % Wout;
    const float *x = input + (size_t)b * C * H * W + h * W + w;
    float acc[CMAPS];
#pragma unroll
    for (int j = 0; j < CMAPS; ++j)
        acc[j] = 0.0f;
    int kidx = 0;
    for (int c = 0; c < C; ++c)
        for (int p = 0; p < K; ++p)
            for (int q = 0; q < K; ++q, ++kidx) {
                float v = __ldg(&x[(c * H + p) * W + q]);
                const float *wk = &maskC[m0 * CKK + kidx]; // maps past M read zeros
#pragma unroll
                for (int j = 0; j < CMAPS; ++j)
                    acc[j] += v * wk[j * CKK];
            }
#pragma unroll
    for (int j = 0; j < CMAPS; ++j)
        if (m0 + j < M)
            output[((size_t)b * M + m0 + j) * HW + pix] = acc[j];
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

void convLayerForward(const float *input_h, const float *mask_h, float *output_h, int B, int M,
                      int C, int H, int W, int K, int version)
{
    int Hout = H - K + 1, Wout = W - K + 1, HW = Hout * Wout, CKK = C * K * K;
    size_t inBytes = (size_t)B * C * H * W * sizeof(float);
    size_t maskBytes = (size_t)M * CKK * sizeof(float);
    size_t outBytes = (size_t)B * M * HW * sizeof(float);
    float *input_d, *mask_d, *output_d;
    CHECK(cudaMalloc((void **)&input_d, inBytes));
    CHECK(cudaMalloc((void **)&mask_d, maskBytes));
    CHECK(cudaMalloc((void **)&output_d, outBytes));
    CHECK(cudaMemcpy(input_d, input_h, inBytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(mask_d, mask_h, maskBytes, cudaMemcpyHostToDevice));

    if (version == 1) {
        dim3 block(TILE, TILE);
        dim3 grid((Wout + TILE - 1) / TILE, (Hout + TILE - 1) / TILE, B * M);
        convPlainKernel<<<grid, block>>>(input_d, mask_d, output_d, M, C, H, W, K);
        CHECK(cudaGetLastError());
    } else if (version == 2) {
        float *Xu;
        CHECK(cudaMalloc((void **)&Xu, (size_t)CKK * HW * sizeof(float)));
        dim3 block(TILE, TILE);
        dim3 grid((HW + TILE - 1) / TILE, (M + TILE - 1) / TILE);
        for (int b = 0; b < B; ++b) {
            unrollKernel<<<dim3((HW + 255) / 256, C), 256>>>(input_d, Xu, b, C, H, W, K);
            matMulKernel<<<grid, block>>>(mask_d, Xu, output_d + (size_t)b * M * HW, M, CKK, HW);
        }
        CHECK(cudaGetLastError());
        CHECK(cudaFree(Xu));
    } else {
        CHECK(cudaMemcpyToSymbol(maskC, mask_h, maskBytes));
        int chunks = (M + CMAPS - 1) / CMAPS;
        dim3 grid((HW + 127) / 128, B * chunks);
        convConstKernel<<<grid, 128>>>(input_d, output_d, M, C, H, W, K);
        CHECK(cudaGetLastError());
    }

    CHECK(cudaMemcpy(output_h, output_d, outBytes, cudaMemcpyDeviceToHost));
    CHECK(cudaFree(input_d));
    CHECK(cudaFree(mask_d));
    CHECK(cudaFree(output_d));
}
