/* Lab 12 CPU reference: C (m x n) = A (m x k) * B (k x n), row-major, each element summed
 * in float in the order of k, as the kernels do. The loops run row, i, col (not row, col,
 * i) so the inner loop walks B and C along rows: the same sums in the same order, fast
 * enough for the 2048^3 performance dataset. */
void matmul_reference(const float *A, const float *B, float *C, int m, int k, int n)
{
	for (int row = 0; row < m; row++) {
		float *c = C + (long)row * n;
		for (int col = 0; col < n; col++)
			c[col] = 0.0f;
		for (int i = 0; i < k; i++) {
			float a = A[(long)row * k + i];
			const float *b = B + (long)i * n;
			for (int col = 0; col < n; col++)
				c[col] += a * b[col];
		}
	}
}
