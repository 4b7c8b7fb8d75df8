/* Lab 15 CPU reference: the forward pass of a convolution layer, every version alike.
 *   output[b][m][h][w] = sum over c, p, q of input[b][c][h + p][w + q] * mask[m][c][p][q]
 * for h < H - K + 1, w < W - K + 1 (a "valid" convolution: no padding, stride 1), all
 * arrays row-major in the order of their indices. Summed in float in the order c, p, q,
 * as the plain kernel does. */
void conv_layer_reference(const float *input, const float *mask, float *output, int B, int M,
			  int C, int H, int W, int K, int version)
{
	(void)version; /* every version computes the same layer */
	int Hout = H - K + 1, Wout = W - K + 1;
	for (int b = 0; b < B; b++)
		for (int m = 0; m < M; m++)
			for (int h = 0; h < Hout; h++)
				for (int w = 0; w < Wout; w++) {
					float sum = 0.0f;
					for (int c = 0; c < C; c++)
						for (int p = 0; p < K; p++)
							for (int q = 0; q < K; q++)
								sum += input[(((long)b * C + c) * H + h + p) * W + w + q] *
								       mask[((m * C + c) * K + p) * K + q];
					output[(((long)b * M + m) * Hout + h) * Wout + w] = sum;
				}
}
