// expect: correctness
// expect-text: C was computed on the host: no kernel wrote it
// Known-wrong (issue 14): the product is computed on the CPU. The device buffers are
// allocated and filled, but no kernel ever runs, so no performance figure exists either.
#include <cuda_runtime.h>
#include <stdio.h>

void matMul(const float *A_h, const float *B_h, float *C_h, int m, int k, int n)
{
    float *A_d, *B_d;
    cudaMalloc((void **)&A_d, (size_t)m * k * sizeof(float));
    cudaMalloc((void **)&B_d, (size_t)k * n * sizeof(float));
    cudaMemcpy(A_d, A_h, (size_t)m * k * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(B_d, B_h, (size_t)k * n * sizeof(float), cudaMemcpyHostToDevice);
    for (int r = 0; r < m; r++) {
        for (int c = 0; c < n; c++) {
            float sum = 0.0f;
            for (int i = 0; i < k; i++) {
                sum += A_h[r * k + i] * B_h[i * n + c];
            }
            C_h[r * n + c] = sum;
        }
    }
    cudaFree(A_d);
    cudaFree(B_d);
}
