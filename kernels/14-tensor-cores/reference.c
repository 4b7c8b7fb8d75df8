/* Lab 14 CPU reference: C (m x n) = A (m x k) * B (k x n), row-major, in FP32 from the
 * unrounded inputs, for either precision: the tolerance in lab.yaml is the difference
 * that rounding the operands to TF32 or FP16 may make. The loops run row, i, col so the
 * 2048^3 datasets take seconds, not minutes; each element is summed in the order of k. */
void tc_matmul_reference(const float *A, const float *B, float *C, int m, int k, int n,
			 int precision)
{
	(void)precision;
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
