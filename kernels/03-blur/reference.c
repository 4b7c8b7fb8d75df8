/* Lab 03 CPU reference: box blur; each output pixel is the integer (truncated) average
 * of the pixels of its (2 * blurSize + 1)^2 window that lie inside the image. */
void blur_reference(const unsigned char *in, unsigned char *out, int width, int height,
		    int blurSize)
{
	for (int row = 0; row < height; row++) {
		for (int col = 0; col < width; col++) {
			int sum = 0, count = 0;
			for (int r = row - blurSize; r <= row + blurSize; r++) {
				for (int c = col - blurSize; c <= col + blurSize; c++) {
					if (r < 0 || r >= height || c < 0 || c >= width)
						continue;
					sum += in[r * width + c];
					count++;
				}
			}
			out[row * width + col] = (unsigned char)(sum / count);
		}
	}
}
