// wmma with tf32 inputs (m16n16k8, f32 accumulator) and double (m8n8k4, DMMA): the
// fragment-by-index prints of matrix_a, matrix_b and the accumulators in both layouts,
// and exact products.
#include "wmma_probe.h"

int main()
{
	using wmma::col_major;
	using wmma::row_major;
	using wmma::precision::tf32;
	probeAB<wmma::matrix_a, 16, 16, 8, tf32, float>("tf32", 4);
	probeAB<wmma::matrix_b, 16, 16, 8, tf32, float>("tf32", 4);
	probeAcc<16, 16, 8, float>("f32", 4);
	probeMma<16, 16, 8, tf32, row_major, col_major, float, float>("tf32.f32", 4, -3, false);
	probeMma<16, 16, 8, tf32, col_major, row_major, float, float>("tf32.f32", 0, -3, true);
	probeMma<16, 16, 8, tf32, row_major, row_major, float, float>("tf32.f32", 4, -2, false);
	probeMma<16, 16, 8, tf32, col_major, col_major, float, float>("tf32.f32", 0, -1, false);
	probeAB<wmma::matrix_a, 8, 8, 4, double, double>("f64", 2);
	probeAB<wmma::matrix_b, 8, 8, 4, double, double>("f64", 2);
	probeAcc<8, 8, 4, double>("f64", 2);
	probeMma<8, 8, 4, double, row_major, col_major, double, double>("f64", 2, -3, false);
	probeMma<8, 8, 4, double, col_major, row_major, double, double>("f64", 0, -3, true);
	probeMma<8, 8, 4, double, row_major, row_major, double, double>("f64", 0, -2, false);
	probeMma<8, 8, 4, double, col_major, col_major, double, double>("f64", 2, -1, false);
	return 0;
}
