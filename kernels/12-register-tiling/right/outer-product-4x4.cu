// Known-right: the classic two-dimensional register tile: 64 x 64 outputs a block, 16 x 16
// threads each computing a 4 x 4 outer product (rows ty*4.., columns tx + 16 j, so a warp
// stores 16 consecutive floats), the A tile stored transposed, all loops unrolled.
#include <cuda_runtime.h>
#include <stdio.h>
#define BM 64
#define BN 64
#define BK 16
#define TM 4
#define TN 4
__global__ void __launch_bounds__(256) mm(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C, int m, int k, int n)
{
    __shared__ float As[BK][BM + 4]; // transposed: As[kk][row]
    __shared__ float Bs[BK][BN];
    int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
    int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    float acc[TM][TN] = {};
    for (int k0 = 0; k0 < k; k0 += BK) {
        for (int i = threadIdx.x; i < BM * BK; i += 256) {
            int r = i / BK, c = i % BK;
            As[c][r] = (row0 + r < m && k0 + c < k) ? A[(row0 + r) * k + k0 + c] : 0.f;
        }
        for (int i = threadIdx.x; i < BK * BN; i += 256) {
            int r = i / BN, c = i % BN;
            Bs[r][c] = (k0 + r < k && col0 + c < n) ? B[(k0 + r) * n + col0 + c] : 0.f;
        }
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < BK; ++kk) {
            float a[TM], b[TN];
#pragma unroll
            for (int i = 0; i < TM; ++i) a[i] = As[kk][ty * TM + i];
#pragma unroll
            for (int j = 0; j < TN; ++j) b[j] = Bs[kk][tx + 16 * j];
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j) acc[i][j] += a[i] * b[j];
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) {
            int r = row0 + ty * TM + i, c = col0 + tx + 16 * j;
            if (r < m && c < n) C[r * n + c] = acc[i][j];
        }
}
void matMul(const float *A_h, const float *B_h, float *C_h, int m, int k, int n)
{
    float *A_d, *B_d, *C_d;
    cudaMalloc(&A_d, sizeof(float) * m * k);
    cudaMalloc(&B_d, sizeof(float) * k * n);
    cudaMalloc(&C_d, sizeof(float) * m * n);
    cudaMemcpy(A_d, A_h, sizeof(float) * m * k, cudaMemcpyHostToDevice);
    cudaMemcpy(B_d, B_h, sizeof(float) * k * n, cudaMemcpyHostToDevice);
    dim3 grid((n + BN - 1) / BN, (m + BM - 1) / BM);
    mm<<<grid, 256>>>(A_d, B_d, C_d, m, k, n);
    cudaMemcpy(C_h, C_d, sizeof(float) * m * n, cudaMemcpyDeviceToHost);
    cudaFree(A_d); cudaFree(B_d); cudaFree(C_d);
}
