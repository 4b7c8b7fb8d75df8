// expect: memcheck
// expect-text: of device memory that nothing had written (an atomic such as atomicAdd
// Known-wrong: the global histogram is never cleared with cudaMemset before the blocks
// atomicAdd their private counts into it (cudaMalloc does not clear memory; the
// emulator's and often a GPU's fresh memory is zero, so the counts come out right by luck).
#include <cuda_runtime.h>
#include <stdio.h>
__global__ void histogram_kernel(const unsigned char *data, unsigned int *histo, int n)
{
    __shared__ unsigned int local[256];
    if (threadIdx.x < 256) local[threadIdx.x] = 0;
    __syncthreads();
    int stride = blockDim.x * gridDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        atomicAdd(&local[data[i]], 1);
    __syncthreads();
    if (threadIdx.x < 256 && local[threadIdx.x] != 0)
        atomicAdd(&histo[threadIdx.x], local[threadIdx.x]);
}
void histogram(const unsigned char *data_h, unsigned int *histo_h, int n)
{
    cudaDeviceProp prop;
    cudaGetDeviceProperties(&prop, 0);
    unsigned char *data_d; unsigned int *histo_d;
    cudaMalloc((void **)&data_d, n * sizeof(unsigned char));
    cudaMalloc((void **)&histo_d, 256 * sizeof(unsigned int));
    cudaMemcpy(data_d, data_h, n, cudaMemcpyHostToDevice);

    int blocks = 2 * prop.multiProcessorCount;
    int need = (n + 1023) / 1024;
    if (need < blocks) blocks = need;
    histogram_kernel<<<blocks, 1024>>>(data_d, histo_d, n);
    cudaDeviceSynchronize();
    cudaMemcpy(histo_h, histo_d, 256 * sizeof(unsigned int), cudaMemcpyDeviceToHost);
    cudaFree(data_d);
    cudaFree(histo_d);
}
