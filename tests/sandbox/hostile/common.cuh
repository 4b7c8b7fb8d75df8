// Shared by the hostile lab 01 submissions: a correct vecAdd, reached only when the
// file's attack worked (or, for attacks on the grader, after it). Included from the
// submission's own folder, which a submission may do.
#pragma once
#include <cuda_runtime.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__global__ static void hostile_add(const float *A, const float *B, float *C, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        C[i] = A[i] + B[i];
}

static void hostile_vecadd(const float *A_h, const float *B_h, float *C_h, int n)
{
    size_t bytes = (size_t)n * sizeof(float);
    float *A_d, *B_d, *C_d;
    cudaMalloc((void **)&A_d, bytes);
    cudaMalloc((void **)&B_d, bytes);
    cudaMalloc((void **)&C_d, bytes);
    cudaMemcpy(A_d, A_h, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(B_d, B_h, bytes, cudaMemcpyHostToDevice);
    hostile_add<<<(n + 255) / 256, 256>>>(A_d, B_d, C_d, n);
    cudaMemcpy(C_h, C_d, bytes, cudaMemcpyDeviceToHost);
    cudaFree(A_d);
    cudaFree(B_d);
    cudaFree(C_d);
}

// The repository's root, from this file's path (tests/sandbox/hostile/...).
static const char *hostile_root(void)
{
    static char root[4096];
    snprintf(root, sizeof(root), "%s", __FILE__);
    char *p = strstr(root, "/tests/sandbox/hostile/");
    if (p)
        *p = '\0';
    return root;
}

// Gives up: the attack did not work; say why (the report shows it).
#define HOSTILE_FAIL(...)                                                        \
    do {                                                                         \
        fprintf(stderr, "hostile: " __VA_ARGS__);                                \
        fprintf(stderr, "\n");                                                   \
        exit(3);                                                                 \
    } while (0)
