// wmma with 8-bit integer inputs (s8 and u8, s32 accumulator) on m16n16k16, m32n8k16 and
// m8n32k16: fragment-by-index prints of matrix_a, matrix_b and the s32 accumulator in
// both layouts, and exact products (with negative values for s8).
#include "wmma_probe.h"

template <int M, int N, int K> static void shape()
{
	using wmma::col_major;
	using wmma::row_major;
	probeAB<wmma::matrix_a, M, N, K, signed char, signed char>("s8", 16);
	probeAB<wmma::matrix_b, M, N, K, unsigned char, unsigned char>("u8", 16);
	probeAcc<M, N, K, int>("s32", 4);
	probeMma<M, N, K, signed char, row_major, col_major, signed char, int>("s8.s32", 16, -3, false);
	probeMma<M, N, K, signed char, col_major, row_major, signed char, int>("s8.s32", 0, -3, true);
	probeMma<M, N, K, unsigned char, row_major, row_major, unsigned char, int>("u8.s32", 0, 120, false);
	probeMma<M, N, K, unsigned char, col_major, col_major, unsigned char, int>("u8.s32", 16, 0, false);
}

int main()
{
	shape<16, 16, 16>();
	shape<32, 8, 16>();
	shape<8, 32, 16>();
	return 0;
}
