// wmma with bf16 inputs (f32 accumulator) on m16n16k16, m32n8k16 and m8n32k16: the
// fragment-by-index prints of matrix_a and matrix_b in both layouts, and exact products.
#include "wmma_probe.h"

template <int M, int N, int K> static void shape()
{
	using wmma::col_major;
	using wmma::row_major;
	probeAB<wmma::matrix_a, M, N, K, __nv_bfloat16, __nv_bfloat16>("bf16", 8);
	probeAB<wmma::matrix_b, M, N, K, __nv_bfloat16, __nv_bfloat16>("bf16", 8);
	probeMma<M, N, K, __nv_bfloat16, row_major, col_major, __nv_bfloat16, float>("bf16.f32", 8, -3, false);
	probeMma<M, N, K, __nv_bfloat16, col_major, row_major, __nv_bfloat16, float>("bf16.f32", 0, -3, true);
	probeMma<M, N, K, __nv_bfloat16, row_major, row_major, __nv_bfloat16, float>("bf16.f32", 0, -2, false);
	probeMma<M, N, K, __nv_bfloat16, col_major, col_major, __nv_bfloat16, float>("bf16.f32", 8, -2, false);
}

int main()
{
	shape<16, 16, 16>();
	shape<32, 8, 16>();
	shape<8, 32, 16>();
	return 0;
}
