// expect: correctness: v2-tiny
// expect-text: launched 1 kernel
// Known-wrong: version 2 computes with version 1's plain kernel. The values are right,
// but version 2 is the assignment's unroll kernel and matrix product: its datasets ask
// for at least two launches (lab.yaml's min_launches).
// Lab 15 solution: the forward pass of a convolution layer, in three versions.
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

// ---- version 3: optimised -----------------------------------------------------------
// Each thread computes one output pixel (h, w) of image b for MAPS output maps at once:
// it loads each input element once into a register and uses it MAPS times (register
// tiling over the maps), against weights that are the same for the whole block, staged
// transposed in shared memory so that a step reads its MAPS weights as 16-byte
// broadcasts. blockIdx.y = b * chunks + the block's chunk of MAPS maps.
__global__ void convMapsKernel(const float *__restrict__ input, const float *__restrict__ mask,
                               float *__restrict__ output, int M, int C, int H, int W, int K)
{
    extern __shared__ float maskT[]; // [C * K * K][MAPS]: maskT[k][j] = mask[m0 + j][k]
    int Hout = H - K + 1, Wout = W - K + 1, HW = Hout * Wout, CKK = C * K * K;
    int chunks = (M + MAPS - 1) / MAPS;
    int b = blockIdx.y / chunks, m0 = (blockIdx.y % chunks) * MAPS;
    for (int i = threadIdx.x; i < CKK * MAPS; i += blockDim.x) {
        int k = i / MAPS, j = i % MAPS;
        maskT[i] = m0 + j < M ? mask[(m0 + j) * CKK + k] : 0.0f;
    }
    __syncthreads();

    int pix = blockIdx.x * PIXELS + threadIdx.x;
    if (pix >= HW)
        return;
    int h = pix / Wout, w = pix % Wout;
    const float *x = input + (size_t)b * C * H * W + h * W + w;
    float sum[MAPS];
#pragma unroll
    for (int j = 0; j < MAPS; ++j)
        sum[j] = 0.0f;
    const float *wk = maskT;
    for (int c = 0; c < C; ++c)
        for (int p = 0; p < K; ++p)
            for (int q = 0; q < K; ++q, wk += MAPS) {
                float v = x[(c * H + p) * W + q];
#pragma unroll
                for (int j = 0; j < MAPS; ++j)
                    sum[j] += v * wk[j];
            }
#pragma unroll
    for (int j = 0; j < MAPS; ++j)
        if (m0 + j < M)
            output[((size_t)b * M + m0 + j) * HW + pix] = sum[j];
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

    if (version == 1 || version == 2) {
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
        int chunks = (M + MAPS - 1) / MAPS;
        size_t shmem = (size_t)CKK * MAPS * sizeof(float);
        CHECK(cudaFuncSetAttribute(convMapsKernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                   (int)shmem));
        dim3 grid((HW + PIXELS - 1) / PIXELS, B * chunks);
        convMapsKernel<<<grid, PIXELS, shmem>>>(input_d, mask_d, output_d, M, C, H, W, K);
        CHECK(cudaGetLastError());
    }

    CHECK(cudaMemcpy(output_h, output_d, outBytes, cudaMemcpyDeviceToHost));
    CHECK(cudaFree(input_d));
    CHECK(cudaFree(mask_d));
    CHECK(cudaFree(output_d));
}
