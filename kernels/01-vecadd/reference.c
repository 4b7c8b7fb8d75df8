/* Lab 01 CPU reference: what the grader compares the student's C with. */
void vecadd_reference(const float *A, const float *B, float *C, int n)
{
	for (int i = 0; i < n; i++)
		C[i] = A[i] + B[i];
}
