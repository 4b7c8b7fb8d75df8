/* Lab 07 CPU reference: 2-D convolution with a 5x5 filter; pixels outside the image
 * (ghost cells) count as 0. Summed in the same order as the solution. */
#define FILTER_RADIUS 2
#define FILTER_DIM (2 * FILTER_RADIUS + 1)

void convolution2d_reference(const float *N, const float *F, float *P, int width, int height)
{
	for (int row = 0; row < height; row++) {
		for (int col = 0; col < width; col++) {
			float sum = 0.0f;
			for (int fr = 0; fr < FILTER_DIM; fr++) {
				for (int fc = 0; fc < FILTER_DIM; fc++) {
					int r = row - FILTER_RADIUS + fr;
					int c = col - FILTER_RADIUS + fc;
					if (r >= 0 && r < height && c >= 0 && c < width)
						sum += F[fr * FILTER_DIM + fc] * N[r * width + c];
				}
			}
			P[row * width + col] = sum;
		}
	}
}
