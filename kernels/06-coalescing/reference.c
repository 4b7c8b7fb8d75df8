/* Lab 06 CPU reference: out (cols x rows) = transpose of in (rows x cols), row-major. */
void transpose_reference(const float *in, float *out, int rows, int cols)
{
	for (int r = 0; r < rows; r++)
		for (int c = 0; c < cols; c++)
			out[c * rows + r] = in[r * cols + c];
}
