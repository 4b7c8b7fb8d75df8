// Vendor yardsticks for the matrix-product labs (04, 05, 12, 14): cuBLAS computing the
// lab's C = A * B on the same row-major arrays; and for lab 15's convolution layer, the
// classic library route (im2col, then one batched SGEMM). A performance check names one of these
// functions in its `vendor:` field (labs/README.md); the grader times it on the same
// dataset as the student's kernels and prints "vs the vendor library" (no points).
//
// cuBLAS works on column-major matrices: a row-major m x n matrix is the column-major
// n x m matrix of its transpose, and C^T = B^T * A^T, so handing cuBLAS (B, A) with the
// dimensions swapped computes the row-major C directly, without any transposition.
#include <cublas_v2.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(call)                                                              \
    do {                                                                         \
        cudaError_t err_ = (call);                                               \
        if (err_ != cudaSuccess) {                                               \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,                  \
                    cudaGetErrorString(err_));                                   \
            exit(1);                                                             \
        }                                                                        \
    } while (0)
#define CHECK_BLAS(call)                                                         \
    do {                                                                         \
        cublasStatus_t st_ = (call);                                             \
        if (st_ != CUBLAS_STATUS_SUCCESS) {                                      \
            fprintf(stderr, "%s:%d: cuBLAS status %d\n", __FILE__, __LINE__,    \
                    (int)st_);                                                   \
            exit(1);                                                             \
        }                                                                        \
    } while (0)

enum vendor_math { VENDOR_FP32, VENDOR_TF32, VENDOR_FP16 };

__global__ void vendorToHalf(const float *in, __half *out, size_t count)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count;
         i += (size_t)gridDim.x * blockDim.x)
        out[i] = __float2half_rn(in[i]);
}

// One handle for the program's life: creating it costs milliseconds of host time.
static cublasHandle_t vendorHandle(void)
{
    static cublasHandle_t h;
    if (!h)
        CHECK_BLAS(cublasCreate(&h));
    return h;
}

static void vendorGemm(const float *A_h, const float *B_h, float *C_h, int m, int k, int n,
                       enum vendor_math math)
{
    size_t bytesA = (size_t)m * k * sizeof(float);
    size_t bytesB = (size_t)k * n * sizeof(float);
    size_t bytesC = (size_t)m * n * sizeof(float);
    float *A_d, *B_d, *C_d;
    CHECK(cudaMalloc((void **)&A_d, bytesA));
    CHECK(cudaMalloc((void **)&B_d, bytesB));
    CHECK(cudaMalloc((void **)&C_d, bytesC));
    CHECK(cudaMemcpy(A_d, A_h, bytesA, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(B_d, B_h, bytesB, cudaMemcpyHostToDevice));

    cublasHandle_t h = vendorHandle();
    const float one = 1.0f, zero = 0.0f;
    if (math == VENDOR_FP16) {
        // Like lab 14's FP16 part: the operands are rounded to half on the device (those
        // conversion kernels are timed too), the products are summed in float.
        __half *Ah, *Bh;
        CHECK(cudaMalloc((void **)&Ah, (size_t)m * k * sizeof(__half)));
        CHECK(cudaMalloc((void **)&Bh, (size_t)k * n * sizeof(__half)));
        vendorToHalf<<<256, 256>>>(A_d, Ah, (size_t)m * k);
        vendorToHalf<<<256, 256>>>(B_d, Bh, (size_t)k * n);
        CHECK_BLAS(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, Bh, CUDA_R_16F, n,
                                Ah, CUDA_R_16F, k, &zero, C_d, CUDA_R_32F, n,
                                CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
        CHECK(cudaFree(Ah));
        CHECK(cudaFree(Bh));
    } else if (math == VENDOR_TF32) {
        // The tensor cores, each operand rounded to TF32, the sums in float.
        CHECK_BLAS(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, B_d, CUDA_R_32F, n,
                                A_d, CUDA_R_32F, k, &zero, C_d, CUDA_R_32F, n,
                                CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_GEMM_DEFAULT));
    } else {
        // SGEMM: single precision on the CUDA cores (the handle's default math).
        CHECK_BLAS(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, B_d, n, A_d, k, &zero,
                               C_d, n));
    }
    CHECK(cudaGetLastError());

    CHECK(cudaMemcpy(C_h, C_d, bytesC, cudaMemcpyDeviceToHost));
    CHECK(cudaFree(A_d));
    CHECK(cudaFree(B_d));
    CHECK(cudaFree(C_d));
}

// SGEMM: FP32 products and sums on the CUDA cores (labs 04, 05, 12).
void cublasMatMul(const float *A_h, const float *B_h, float *C_h, int m, int k, int n)
{
    vendorGemm(A_h, B_h, C_h, m, k, n, VENDOR_FP32);
}

// TF32 tensor cores with FP32 sums (lab 14, part 1).
void cublasMatMulTF32(const float *A_h, const float *B_h, float *C_h, int m, int k, int n)
{
    vendorGemm(A_h, B_h, C_h, m, k, n, VENDOR_TF32);
}

// FP16 tensor cores with FP32 sums (lab 14, part 2). lab check grades it on every dataset
// of lab 14, and the TF32 ones (precision 32) include operands past FP16's range
// (tf32-range): those it computes in TF32, as the lab asks.
void cublasMatMulFP16(const float *A_h, const float *B_h, float *C_h, int m, int k, int n,
                      int precision)
{
    vendorGemm(A_h, B_h, C_h, m, k, n, precision == 16 ? VENDOR_FP16 : VENDOR_TF32);
}

// Lab 15: the forward pass of a convolution layer as the libraries of the 2010s did it:
// every image unrolled at once (im2col, C*K*K rows, Hout*Wout columns each), then one
// strided batched SGEMM, Y_b (M x HW) = mask (M x CKK) * Xu_b (CKK x HW). The toolkit
// has no cuDNN; this is the yardstick it allows.
__global__ void vendorIm2col(const float *input, float *Xu, int B, int C, int H, int W, int K)
{
    int Hout = H - K + 1, Wout = W - K + 1, HW = Hout * Wout, KK = K * K;
    size_t total = (size_t)B * C * HW;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < total;
         i += (size_t)gridDim.x * blockDim.x) {
        int col = (int)(i % HW);
        size_t bc = i / HW;
        int c = (int)(bc % C), b = (int)(bc / C);
        int h = col / Wout, w = col % Wout;
        const float *x = input + ((size_t)b * C + c) * H * W + h * W + w;
        float *out = Xu + ((size_t)b * C * KK + (size_t)c * KK) * HW + col;
        for (int p = 0; p < K; ++p)
            for (int q = 0; q < K; ++q)
                out[(size_t)(p * K + q) * HW] = x[p * W + q];
    }
}

void cublasConvLayer(const float *input_h, const float *mask_h, float *output_h, int B, int M,
                     int C, int H, int W, int K, int version)
{
    (void)version;
    int Hout = H - K + 1, Wout = W - K + 1, HW = Hout * Wout, CKK = C * K * K;
    size_t inBytes = (size_t)B * C * H * W * sizeof(float);
    size_t maskBytes = (size_t)M * CKK * sizeof(float);
    size_t outBytes = (size_t)B * M * HW * sizeof(float);
    float *input_d, *mask_d, *output_d, *Xu;
    CHECK(cudaMalloc((void **)&input_d, inBytes));
    CHECK(cudaMalloc((void **)&mask_d, maskBytes));
    CHECK(cudaMalloc((void **)&output_d, outBytes));
    CHECK(cudaMalloc((void **)&Xu, (size_t)B * CKK * HW * sizeof(float)));
    CHECK(cudaMemcpy(input_d, input_h, inBytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(mask_d, mask_h, maskBytes, cudaMemcpyHostToDevice));

    vendorIm2col<<<1024, 256>>>(input_d, Xu, B, C, H, W, K);
    const float one = 1.0f, zero = 0.0f;
    CHECK_BLAS(cublasSgemmStridedBatched(vendorHandle(), CUBLAS_OP_N, CUBLAS_OP_N, HW, M, CKK,
                                         &one, Xu, HW, (long long)CKK * HW, mask_d, CKK, 0,
                                         &zero, output_d, HW, (long long)M * HW, B));
    CHECK(cudaGetLastError());

    CHECK(cudaMemcpy(output_h, output_d, outBytes, cudaMemcpyDeviceToHost));
    CHECK(cudaFree(input_d));
    CHECK(cudaFree(mask_d));
    CHECK(cudaFree(output_d));
    CHECK(cudaFree(Xu));
}
