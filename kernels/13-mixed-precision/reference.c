/* Lab 13 CPU reference, in float from the unrounded inputs: the tolerances in lab.yaml
 * are what half-precision operands may change.
 *   z[i] = a[0] * x[i] + y[i]
 *   dot[0] = u[0] * v[0] + ... + u[n-1] * v[n-1] (0s and 1s: every partial sum is an
 *            integer below 2^24, exact in float in any order) */
void mixed_reference(const float *x, const float *y, const float *a, float *z, const float *u,
		     const float *v, float *dot, int n)
{
	float s = 0.0f;
	for (int i = 0; i < n; i++) {
		z[i] = a[0] * x[i] + y[i];
		s += u[i] * v[i];
	}
	dot[0] = s;
}
