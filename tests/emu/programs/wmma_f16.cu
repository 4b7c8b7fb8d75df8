// wmma with f16 inputs on every shape the headers offer (m16n16k16, m32n8k16, m8n32k16):
// which matrix element each lane holds in each fragment element, for matrix_a and
// matrix_b in both layouts and the f16 and f32 accumulators loaded and stored in both
// layouts, with padded leading dimensions; then exact products with f32 and f16
// accumulators.
#include "wmma_probe.h"

template <int M, int N, int K> static void shape()
{
	using wmma::col_major;
	using wmma::row_major;
	probeAB<wmma::matrix_a, M, N, K, __half, __half>("f16", 8);
	probeAB<wmma::matrix_b, M, N, K, __half, __half>("f16", 8);
	probeAcc<M, N, K, float>("f32", 4);
	probeAcc<M, N, K, __half>("f16", 8);
	probeMma<M, N, K, __half, row_major, col_major, __half, float>("f16.f32", 8, -3, false);
	probeMma<M, N, K, __half, col_major, row_major, __half, float>("f16.f32", 0, -3, true);
	probeMma<M, N, K, __half, row_major, row_major, __half, __half>("f16.f16", 8, -3, false);
	probeMma<M, N, K, __half, col_major, col_major, __half, __half>("f16.f16", 0, -2, false);
}

int main()
{
	shape<16, 16, 16>();
	shape<32, 8, 16>();
	shape<8, 32, 16>();
	return 0;
}
