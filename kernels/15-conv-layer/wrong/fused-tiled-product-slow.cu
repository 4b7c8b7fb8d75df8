// expect: performance
// expect-on: gpu
// Known-wrong (for speed): version 3 is version 2's tiled product with the unroll fused
// into it (no unrolled matrix in memory), the mask in constant memory and read-only
// input loads: four items of the menu, all correct, and on an H100 it is slower than
// version 1 (measured 1.42 ms against 0.91 ms on 500 images, 8x the solution's time).
// Each element of an input tile costs four integer divisions by run-time values (c, p,
// q from the unrolled row), each multiply-add two shared-memory loads (lab 05's ratio),
// and the constant-memory weights differ across the lanes of a warp. The emulator,
// which counts warp instructions, finds 2.1 times the solution's and lets it pass.
#include <cuda_runtime.h>
#include <stdio.h>

#define TILE 16  // version 1: 16 x 16 outputs per block; version 2: the GEMM's tiles
#define MAPS 16  // version 3: output maps per thread, in registers
#define PIXELS 128 // version 3: output pixels (threads) per block

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

// ---- version 3: unroll fused into the tiled product --------------------------------
#define MAX_MASK 16384 // floats: 64 KiB, all the constant memory there is
__constant__ float maskC[MAX_MASK];

// Version 2's product without the unrolled matrix: a block computes a TILE x TILE tile of
// output image b = blockIdx.z (rows: maps, columns: pixels); the phase's tile of the
// unrolled matrix is computed from the input as it is loaded, and the mask's tile comes
// from constant memory.
__global__ void convFusedKernel(const float *__restrict__ input, float *__restrict__ output,
                                int M, int C, int H, int W, int K)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int Hout = H - K + 1, Wout = W - K + 1, HW = Hout * Wout, KK = K * K, CKK = C * KK;
    int b = blockIdx.z, tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
    int h = col / Wout, w = col % Wout;
    const float *x = input + (size_t)b * C * H * W;
    float sum = 0.0f;
    for (int ph = 0; ph < (CKK + TILE - 1) / TILE; ++ph) {
        int ka = ph * TILE + tx, kb = ph * TILE + ty;
        As[ty][tx] = (row < M && ka < CKK) ? maskC[row * CKK + ka] : 0.0f;
        float v = 0.0f;
        if (kb < CKK && col < HW) {
            int c = kb / KK, r = kb % KK;
            v = x[(c * H + h + r / K) * W + w + r % K];
        }
        Bs[ty][tx] = v;
        __syncthreads();
        for (int i = 0; i < TILE; ++i)
            sum += As[ty][i] * Bs[i][tx];
        __syncthreads();
    }
    if (row < M && col < HW)
        output[((size_t)b * M + row) * HW + col] = sum;
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
        if ((size_t)M * CKK > MAX_MASK) {
            fprintf(stderr, "version 3: %d weights do not fit in constant memory\n", M * CKK);
            exit(1);
        }
        CHECK(cudaMemcpyToSymbol(maskC, mask_h, maskBytes));
        dim3 block(TILE, TILE);
        dim3 grid((HW + TILE - 1) / TILE, (M + TILE - 1) / TILE, B);
        convFusedKernel<<<grid, block>>>(input_d, output_d, M, C, H, W, K);
        CHECK(cudaGetLastError());
    }

    CHECK(cudaMemcpy(output_h, output_d, outBytes, cudaMemcpyDeviceToHost));
    CHECK(cudaFree(input_d));
    CHECK(cudaFree(mask_d));
    CHECK(cudaFree(output_d));
}
