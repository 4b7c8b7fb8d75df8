// Emulator core tests: the math sequences nvcc emits (libdevice), local arrays, structs.
#include <cstdint>

struct Params {
	float scale;
	int offset;
	double bias;
	char tag[3];
};

__global__ void mathF(const float *x, float *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	float v = x[i];
	float *o = out + i * 12;
	o[0] = expf(v);
	o[1] = logf(fabsf(v) + 1.0f);
	o[2] = sinf(v);
	o[3] = cosf(v);
	o[4] = powf(fabsf(v), 1.5f);
	o[5] = tanhf(v);
	o[6] = atan2f(v, 2.0f);
	o[7] = erff(v);
	o[8] = __expf(v);
	o[9] = fmodf(v, 1.25f);
	o[10] = floorf(v) + ceilf(v) + roundf(v) + truncf(v);
	o[11] = exp2f(v) + log2f(fabsf(v) + 2.0f) + cbrtf(v);
}

__global__ void mathD(const double *x, double *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	double v = x[i];
	double *o = out + i * 8;
	o[0] = exp(v);
	o[1] = log(fabs(v) + 1.0);
	o[2] = sin(v);
	o[3] = cos(v);
	o[4] = pow(fabs(v), 1.5);
	o[5] = sqrt(fabs(v)) / (v + 10.0);
	o[6] = tanh(v);
	o[7] = floor(v * 3.0) + fmod(v, 0.75);
}

__global__ void localsAndStructs(const int *idx, long long *out, Params p, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	int arr[16];
	for (int k = 0; k < 16; k++)
		arr[k] = k * k + i;
	long long a = arr[idx[i] & 15];          // dynamic index: local memory
	long long b = (long long)i * 1000000007LL;
	long long q = b / (i + 3), r = b % (i + 3); // 64-bit division
	unsigned short h = (unsigned short)(i * 40000);
	signed char c = (signed char)(i * 3);
	out[i * 6] = a;
	out[i * 6 + 1] = q;
	out[i * 6 + 2] = r;
	out[i * 6 + 3] = h + c;
	out[i * 6 + 4] = (long long)(p.scale * i) + p.offset + p.tag[1];
	out[i * 6 + 5] = (long long)(p.bias * 4.0);
}

__global__ void vectorLoads(const float4 *in, float4 *out, const int2 *pairs, int *sums, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	float4 v = __ldg(&in[i]);
	out[i] = make_float4(v.w, v.z, v.y, v.x);
	int2 p = pairs[i];
	sums[i] = p.x * 10 + p.y;
}
