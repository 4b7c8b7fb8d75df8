// expect: correctness: not-a-multiple
// expect-text: within 1 of the edge
// Known-wrong: the window is clamped to the image (edge pixels repeated) instead of
// skipping the pixels outside it: the lab averages only the neighbours that exist,
// so every pixel whose window reaches past the edge comes out wrong.
#include <cuda_runtime.h>
#include <stdio.h>

__global__ void blurKernel(const unsigned char *in, unsigned char *out, int width, int height,
                           int blurSize)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (col >= width || row >= height) return;
    int sum = 0, n = 0;
    for (int dy = -blurSize; dy <= blurSize; dy++)
        for (int dx = -blurSize; dx <= blurSize; dx++) {
            int r = min(max(row + dy, 0), height - 1);
            int c = min(max(col + dx, 0), width - 1);
            sum += in[r * width + c];
            n++;
        }
    out[row * width + col] = (unsigned char)(sum / n);
}

void blur(const unsigned char *in_h, unsigned char *out_h, int width, int height, int blurSize)
{
    size_t bytes = (size_t)width * height;
    unsigned char *in_d, *out_d;
    cudaMalloc((void **)&in_d, bytes);
    cudaMalloc((void **)&out_d, bytes);
    cudaMemcpy(in_d, in_h, bytes, cudaMemcpyHostToDevice);
    dim3 dimBlock(16, 16, 1);
    dim3 dimGrid((width + 15) / 16, (height + 15) / 16, 1);
    blurKernel<<<dimGrid, dimBlock>>>(in_d, out_d, width, height, blurSize);
    cudaMemcpy(out_h, out_d, bytes, cudaMemcpyDeviceToHost);
    cudaFree(in_d);
    cudaFree(out_d);
}
