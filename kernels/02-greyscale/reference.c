/* Lab 02 CPU reference: luminance of each interleaved RGB pixel, truncated to 0..255.
 * The GPU may fuse the multiply-adds, so the lab compares with a tolerance of 1. */
void grey_reference(const unsigned char *rgb, unsigned char *grey, int width, int height)
{
	for (int row = 0; row < height; row++) {
		for (int col = 0; col < width; col++) {
			int i = row * width + col;
			const unsigned char *p = rgb + 3 * i;
			grey[i] = (unsigned char)(0.21f * p[0] + 0.72f * p[1] + 0.07f * p[2]);
		}
	}
}
