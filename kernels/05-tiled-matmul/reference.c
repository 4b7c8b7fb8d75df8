/* Lab 05 CPU reference: C (m x n) = A (m x k) * B (k x n), row-major, summed in float in
 * the order of k, as the tiled kernel does (phase after phase, tile element after element). */
void matmul_reference(const float *A, const float *B, float *C, int m, int k, int n)
{
	for (int row = 0; row < m; row++) {
		for (int col = 0; col < n; col++) {
			float sum = 0.0f;
			for (int i = 0; i < k; i++)
				sum += A[row * k + i] * B[i * n + col];
			C[row * n + col] = sum;
		}
	}
}
