// Lab 15: the forward pass of a convolution layer. Read README.md beside this file first.
//
// pmpplab calls convLayerForward() with B images of C channels, H x W each (input_h,
// input[b][c][h][w]), M filters of C channels, K x K each (mask_h, mask[m][c][p][q]), and
// expects output_h to hold the B x M output maps, (H - K + 1) x (W - K + 1) each:
//   output[b][m][h][w] = sum over c, p, q of input[b][c][h + p][w + q] * mask[m][c][p][q]
// `version` says which of your implementations to run: 1 the plain kernel, 2 unrolled +
// matrix product, 3 your optimised version. The host code below dispatches on it.
#include <cuda_runtime.h>
#include <stdio.h>

#define TILE 16 // version 1: 16 x 16 outputs per block; version 2: the product's tiles

// ---- version 1: one thread per output element -------------------------------------
// Block (x, y, z) computes a 16 x 16 tile of output map m = z % M of image b = z / M.
__global__ void convPlainKernel(const float *input, const float *mask, float *output, int M,
                                int C, int H, int W, int K)
{
    int Hout = H - K + 1, Wout = W - K + 1;
    int w = blockIdx.x * TILE + threadIdx.x;
    int h = blockIdx.y * TILE + threadIdx.y;
    int m = blockIdx.z % M, b = blockIdx.z / M;

    // TODO 1: threads outside the output map do nothing.
    // TODO 2: sum input[b][c][h + p][w + q] * mask[m][c][p][q] over c, p, q (work out the
    //         row-major offsets) and store it at output[b][m][h][w].
    (void)Hout; (void)Wout; (void)w; (void)h; (void)m; (void)b;
    (void)input; (void)mask; (void)output; (void)C; (void)H; (void)W;
}

// ---- version 2: unroll (im2col), then a matrix product ----------------------------
// Xu (C*K*K rows, Hout*Wout columns) of image b: Xu[(c*K + p)*K + q][h*Wout + w] =
// input[b][c][h + p][w + q]. Thread (col, c) fills one column's K*K rows of channel c.
__global__ void unrollKernel(const float *input, float *Xu, int b, int C, int H, int W, int K)
{
    int Hout = H - K + 1, Wout = W - K + 1, HW = Hout * Wout;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int c = blockIdx.y;

    // TODO 3: threads past the last column do nothing; the others find their (h, w) and
    //         copy the K * K input elements their column needs into Xu.
    (void)Hout; (void)Wout; (void)HW; (void)col; (void)c; (void)input; (void)Xu; (void)b;
    (void)C; (void)H; (void)W; (void)K;
}

// Lab 05's tiled product, ready to use: Y (m x n) = A (m x k) * B (k x n), row-major.
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

// ---- version 3: yours ---------------------------------------------------------------
// TODO 5: make the layer fast. Start from version 1 or 2 and pick from the menu in
//         README.md; the host code's version 3 branch is yours to change too.

// Stops the program with a message when a CUDA call fails.
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

    if (version == 2) {
        // TODO 4: for each image b: unroll it into Xu (launch enough 256-thread blocks to
        //         cover HW columns, one grid row per channel), then multiply the mask
        //         (M x CKK) by Xu (CKK x HW) into output + b * M * HW with matMulKernel.
        float *Xu;
        CHECK(cudaMalloc((void **)&Xu, (size_t)CKK * HW * sizeof(float)));
        CHECK(cudaFree(Xu));
    } else {
        // version 1 (and, until you write your own, version 3)
        dim3 block(TILE, TILE);
        dim3 grid((Wout + TILE - 1) / TILE, (Hout + TILE - 1) / TILE, B * M);
        convPlainKernel<<<grid, block>>>(input_d, mask_d, output_d, M, C, H, W, K);
    }
    CHECK(cudaGetLastError());

    CHECK(cudaMemcpy(output_h, output_d, outBytes, cudaMemcpyDeviceToHost));
    CHECK(cudaFree(input_d));
    CHECK(cudaFree(mask_d));
    CHECK(cudaFree(output_d));
}
