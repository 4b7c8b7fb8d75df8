/* Lab 09 CPU reference. The inputs are 0s and 1s, so every partial sum is an integer
 * below 2^24 and float addition is exact in any order. */
#define SEGMENT 512 /* elements per block in part 1: 2 * BLOCK_DIM */

void reduce_reference(const float *x, float *blockSums, float *sum, int n)
{
	float total = 0.0f;
	for (int s = 0; s * SEGMENT < n; s++) {
		float part = 0.0f;
		for (int i = s * SEGMENT; i < n && i < (s + 1) * SEGMENT; i++)
			part += x[i];
		blockSums[s] = part;
		total += part;
	}
	*sum = total;
}
