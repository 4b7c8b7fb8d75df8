/* Lab 10 CPU reference: inclusive scans. The inputs are 0s and 1s, so every prefix sum
 * is an integer below 2^24 and exact in float. */
#define SECTION_KS 256 /* part 1's section: one Kogge-Stone block */

void scan_reference(const float *x, float *sectionScan, float *y, int n)
{
	float run = 0.0f, section = 0.0f;
	for (int i = 0; i < n; i++) {
		if (i % SECTION_KS == 0)
			section = 0.0f;
		section += x[i];
		run += x[i];
		sectionScan[i] = section;
		y[i] = run;
	}
}
