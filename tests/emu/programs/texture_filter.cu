// The texture unit's arithmetic, printed bit for bit so that a GPU's output pins it
// down: linear-filter weights (where a sweep of coordinates changes weight, ties
// included), the weighted sums of random texels in 1-D, 2-D and 3-D, normalized 8-bit
// and half texels filtered, point sampling at texel boundaries (is the coordinate
// quantized first?), normalized coordinates on a size that is not a power of two,
// mipmap level blending and gradients, cube map faces at ties, and what
// cudaCreateTextureObject says to linear filtering of integer texels.
#include <cstdio>
#include <cstring>
#include <cuda_fp16.h>
#include "check.h"

__global__ void sample1d(cudaTextureObject_t t, const float *x, float *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = tex1D<float>(t, x[i]);
}

__global__ void sample2d(cudaTextureObject_t t, const float *x, float *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = tex2D<float>(t, x[2 * i], x[2 * i + 1]);
}

__global__ void sample3d(cudaTextureObject_t t, const float *x, float *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = tex3D<float>(t, x[3 * i], x[3 * i + 1], x[3 * i + 2]);
}

__global__ void sample_lod(cudaTextureObject_t t, const float *x, float *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		out[i] = tex2DLod<float>(t, 0.5f, 0.5f, x[i]);
		out[n + i] = tex2DGrad<float>(t, 0.5f, 0.5f, make_float2(x[i] / 8, 0), make_float2(0, x[i] / 16));
	}
}

__global__ void sample_cube(cudaTextureObject_t t, const float *x, float *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = texCubemap<float>(t, x[3 * i], x[3 * i + 1], x[3 * i + 2]);
}

static unsigned rng = 12345;
static float frand(float lo, float hi)
{
	rng = rng * 1664525u + 1013904223u;
	return lo + (hi - lo) * (float)(rng >> 8) / 16777216.0f;
}

static unsigned bits(float f)
{
	unsigned u;
	memcpy(&u, &f, 4);
	return u;
}

// Prints a line: name, then n results as hex bits.
static void show_hex(const char *name, const float *o, int n)
{
	printf("%s:", name);
	for (int i = 0; i < n; i++)
		printf(" %08x", bits(o[i]));
	printf("\n");
}

static float *run(void (*k)(cudaTextureObject_t, const float *, float *, int), cudaTextureObject_t t,
		  const float *x, int nx, int n, int nout)
{
	float *dx, *dout;
	CHECK(cudaMalloc(&dx, nx * sizeof(float)));
	CHECK(cudaMalloc(&dout, nout * sizeof(float)));
	CHECK(cudaMemcpy(dx, x, nx * sizeof(float), cudaMemcpyHostToDevice));
	k<<<(n + 127) / 128, 128>>>(t, dx, dout, n);
	float *out = new float[nout];
	CHECK(cudaMemcpy(out, dout, nout * sizeof(float), cudaMemcpyDeviceToHost));
	cudaFree(dx);
	cudaFree(dout);
	return out;
}

static cudaTextureObject_t tex_of(cudaArray_t a, int linear, int norm, cudaTextureAddressMode am,
				  cudaTextureReadMode rm = cudaReadModeElementType)
{
	cudaResourceDesc r;
	memset(&r, 0, sizeof r);
	r.resType = cudaResourceTypeArray;
	r.res.array.array = a;
	cudaTextureDesc t;
	memset(&t, 0, sizeof t);
	t.addressMode[0] = t.addressMode[1] = t.addressMode[2] = am;
	t.filterMode = linear ? cudaFilterModeLinear : cudaFilterModePoint;
	t.readMode = rm;
	t.normalizedCoords = norm;
	cudaTextureObject_t o;
	CHECK(cudaCreateTextureObject(&o, &r, &t, NULL));
	return o;
}

static cudaArray_t array2d(cudaChannelFormatDesc cd, const void *h, int w, int hgt, size_t es)
{
	cudaArray_t a;
	CHECK(cudaMallocArray(&a, &cd, w, hgt));
	CHECK(cudaMemcpy2DToArray(a, 0, 0, h, w * es, w * es, hgt ? hgt : 1, cudaMemcpyHostToDevice));
	return a;
}

static void weights()
{
	// T = {0, 1}: the result is the weight of texel 1; a sweep of xb over [0, 1] in
	// steps of 1/4096 shows where it changes (ties at odd multiples of 1/512 included)
	float h[2] = { 0, 1 };
	cudaArray_t a = array2d(cudaCreateChannelDesc<float>(), h, 2, 0, 4);
	cudaTextureObject_t t = tex_of(a, 1, 0, cudaAddressModeClamp);
	const int n = 4097;
	float *x = new float[n];
	for (int i = 0; i < n; i++)
		x[i] = 0.5f + i / 4096.0f;
	float *o = run(sample1d, t, x, n, n, n);
	printf("weight steps (xb*4096 -> weight*256):");
	float last = -1;
	int nonint = 0;
	for (int i = 0; i < n; i++) {
		if (o[i] != last)
			printf(" %d:%g", i, o[i] * 256);
		nonint += o[i] * 256 != (float)(int)(o[i] * 256);
		last = o[i];
	}
	printf("\nweights not a multiple of 1/256: %d\n", nonint);
	// negative xb: the weight of a coordinate below texel 0's centre, in clamp mode
	float xn[8] = { 0.4f, 0.3f, 0.1f, 0.0f, -0.2f, -0.5f, 1.6f, 2.2f };
	delete[] o;
	o = run(sample1d, t, xn, 8, 8, 8);
	printf("clamped ends:");
	for (int i = 0; i < 8; i++)
		printf(" %g", o[i] * 256);
	printf("\n");
	delete[] o;
	delete[] x;
	CHECK(cudaDestroyTextureObject(t));
	CHECK(cudaFreeArray(a));
}

static void sums()
{
	// 1-D: 64 random texels, 64 random coordinates
	float h[64];
	for (int i = 0; i < 64; i++)
		h[i] = frand(-100, 100);
	cudaArray_t a = array2d(cudaCreateChannelDesc<float>(), h, 64, 0, 4);
	cudaTextureObject_t t = tex_of(a, 1, 0, cudaAddressModeClamp);
	float x[64];
	for (int i = 0; i < 64; i++)
		x[i] = frand(0, 64);
	float *o = run(sample1d, t, x, 64, 64, 64);
	show_hex("1d linear", o, 64);
	delete[] o;
	CHECK(cudaDestroyTextureObject(t));
	CHECK(cudaFreeArray(a));
	// 2-D: 16 x 16 random texels (mixed magnitudes), 64 points, wrap, normalized
	static float h2[256];
	for (int i = 0; i < 256; i++)
		h2[i] = frand(-1, 1) * (i % 3 == 0 ? 1e6f : i % 3 == 1 ? 1.0f : 1e-3f);
	a = array2d(cudaCreateChannelDesc<float>(), h2, 16, 16, 4);
	t = tex_of(a, 1, 1, cudaAddressModeWrap);
	float x2[128];
	for (int i = 0; i < 128; i++)
		x2[i] = frand(-1.5f, 1.5f);
	o = run(sample2d, t, x2, 128, 64, 64);
	show_hex("2d linear wrap normalized", o, 64);
	delete[] o;
	CHECK(cudaDestroyTextureObject(t));
	t = tex_of(a, 1, 1, cudaAddressModeMirror);
	o = run(sample2d, t, x2, 128, 64, 64);
	show_hex("2d linear mirror normalized", o, 32);
	delete[] o;
	CHECK(cudaDestroyTextureObject(t));
	CHECK(cudaFreeArray(a));
	// 3-D: 4 x 4 x 4 random texels, 32 points, border
	static float h3[64];
	for (int i = 0; i < 64; i++)
		h3[i] = frand(0, 10);
	cudaChannelFormatDesc cf = cudaCreateChannelDesc<float>();
	CHECK(cudaMalloc3DArray(&a, &cf, make_cudaExtent(4, 4, 4)));
	cudaMemcpy3DParms p;
	memset(&p, 0, sizeof p);
	p.srcPtr = make_cudaPitchedPtr(h3, 16, 4, 4);
	p.dstArray = a;
	p.extent = make_cudaExtent(4, 4, 4);
	p.kind = cudaMemcpyHostToDevice;
	CHECK(cudaMemcpy3D(&p));
	t = tex_of(a, 1, 0, cudaAddressModeBorder);
	float x3[96];
	for (int i = 0; i < 96; i++)
		x3[i] = frand(-0.5f, 4.5f);
	o = run(sample3d, t, x3, 96, 32, 32);
	show_hex("3d linear border", o, 32);
	delete[] o;
	CHECK(cudaDestroyTextureObject(t));
	CHECK(cudaFreeArray(a));
}

static void formats()
{
	// unsigned char, normalized read, linear
	unsigned char hu[16];
	for (int i = 0; i < 16; i++)
		hu[i] = (unsigned char)(i * 37 % 256);
	cudaArray_t a = array2d(cudaCreateChannelDesc<unsigned char>(), hu, 16, 0, 1);
	cudaTextureObject_t t = tex_of(a, 1, 0, cudaAddressModeClamp, cudaReadModeNormalizedFloat);
	float x[48];
	for (int i = 0; i < 48; i++)
		x[i] = frand(0, 16);
	float *o = run(sample1d, t, x, 48, 48, 48);
	show_hex("u8 normalized linear", o, 48);
	delete[] o;
	CHECK(cudaDestroyTextureObject(t));
	CHECK(cudaFreeArray(a));
	// signed short, normalized, linear (-32768 included)
	short hs[16];
	for (int i = 0; i < 16; i++)
		hs[i] = (short)(i * 4099 - 32768);
	a = array2d(cudaCreateChannelDesc<short>(), hs, 16, 0, 2);
	t = tex_of(a, 1, 0, cudaAddressModeClamp, cudaReadModeNormalizedFloat);
	o = run(sample1d, t, x, 48, 48, 48);
	show_hex("s16 normalized linear", o, 48);
	delete[] o;
	CHECK(cudaDestroyTextureObject(t));
	CHECK(cudaFreeArray(a));
	// half texels, linear
	__half hh[16];
	for (int i = 0; i < 16; i++)
		hh[i] = __float2half(frand(-4, 4));
	a = array2d(cudaCreateChannelDescHalf(), hh, 16, 0, 2);
	t = tex_of(a, 1, 0, cudaAddressModeClamp);
	o = run(sample1d, t, x, 48, 48, 48);
	show_hex("half linear", o, 48);
	delete[] o;
	CHECK(cudaDestroyTextureObject(t));
	// linear filtering of integer texels read as integers
	cudaArray_t ai = array2d(cudaCreateChannelDesc<int>(), hs, 8, 0, 4);
	cudaResourceDesc r;
	memset(&r, 0, sizeof r);
	r.resType = cudaResourceTypeArray;
	r.res.array.array = ai;
	cudaTextureDesc td;
	memset(&td, 0, sizeof td);
	td.filterMode = cudaFilterModeLinear;
	cudaTextureObject_t bad = 0;
	cudaError_t e = cudaCreateTextureObject(&bad, &r, &td, NULL);
	printf("linear filter of int texels: %s\n", cudaGetErrorName(e));
	cudaGetLastError();
	if (e == cudaSuccess)
		cudaDestroyTextureObject(bad);
	CHECK(cudaFreeArray(a));
	CHECK(cudaFreeArray(ai));
}

static void coordinates()
{
	// point sampling at texel boundaries: texel k's start minus tiny amounts
	float h[8];
	for (int i = 0; i < 8; i++)
		h[i] = (float)i;
	cudaArray_t a = array2d(cudaCreateChannelDesc<float>(), h, 8, 0, 4);
	cudaTextureObject_t tu = tex_of(a, 0, 0, cudaAddressModeClamp);
	cudaTextureObject_t tn = tex_of(a, 0, 1, cudaAddressModeClamp);
	const float d[8] = { -1.0f / 256, -1.0f / 512, -1.0f / 1024, -1.0f / 4096, -1e-5f, -1e-7f, 0, 1e-7f };
	float x[64], xn[64];
	for (int k = 0; k < 8; k++)
		for (int j = 0; j < 8; j++) {
			x[8 * k + j] = k + d[j];
			xn[8 * k + j] = (k + d[j]) / 8;
		}
	float *o = run(sample1d, tu, x, 64, 64, 64);
	float *on = run(sample1d, tn, xn, 64, 64, 64);
	printf("point at boundaries (unnormalized | normalized):");
	for (int i = 8; i < 64; i++)
		printf(" %g|%g", o[i], on[i]);
	printf("\n");
	delete[] o;
	delete[] on;
	CHECK(cudaDestroyTextureObject(tu));
	CHECK(cudaDestroyTextureObject(tn));
	CHECK(cudaFreeArray(a));
	// normalized coordinates on 3 and 7 texels (u * N not exact), linear: T = 0, 1, 2...
	for (int n = 3; n <= 7; n += 4) {
		a = array2d(cudaCreateChannelDesc<float>(), h, n, 0, 4);
		cudaTextureObject_t t = tex_of(a, 1, 1, cudaAddressModeClamp);
		float u[64];
		for (int i = 0; i < 64; i++)
			u[i] = (i + 0.5f) / 64;
		o = run(sample1d, t, u, 64, 64, 64);
		printf("normalized linear on %d texels (x256):", n);
		for (int i = 0; i < 64; i++)
			printf(" %g", o[i] * 256);
		printf("\n");
		delete[] o;
		CHECK(cudaDestroyTextureObject(t));
		CHECK(cudaFreeArray(a));
	}
}

static void mipmaps_and_cubes()
{
	// 16 x 16, 5 levels, level l constant 256 * l: lod blending and gradients
	cudaChannelFormatDesc cf = cudaCreateChannelDesc<float>();
	cudaMipmappedArray_t mm;
	CHECK(cudaMallocMipmappedArray(&mm, &cf, make_cudaExtent(16, 16, 0), 5));
	for (int l = 0; l < 5; l++) {
		cudaArray_t la;
		CHECK(cudaGetMipmappedArrayLevel(&la, mm, l));
		int n = 16 >> l;
		float v[256];
		for (int i = 0; i < n * n; i++)
			v[i] = 256.0f * l;
		CHECK(cudaMemcpy2DToArray(la, 0, 0, v, n * 4, n * 4, n, cudaMemcpyHostToDevice));
	}
	cudaResourceDesc r;
	memset(&r, 0, sizeof r);
	r.resType = cudaResourceTypeMipmappedArray;
	r.res.mipmap.mipmap = mm;
	float lods[48];
	for (int i = 0; i < 48; i++)
		lods[i] = i / 12.0f - 0.5f;
	for (int mf = 0; mf < 2; mf++) {
		cudaTextureDesc td;
		memset(&td, 0, sizeof td);
		td.normalizedCoords = 1;
		td.filterMode = cudaFilterModeLinear;
		td.mipmapFilterMode = mf ? cudaFilterModeLinear : cudaFilterModePoint;
		td.maxMipmapLevelClamp = 4;
		cudaTextureObject_t t;
		CHECK(cudaCreateTextureObject(&t, &r, &td, NULL));
		float *o = run(sample_lod, t, lods, 48, 48, 96);
		printf("mip %s lod:", mf ? "linear" : "point");
		for (int i = 0; i < 48; i++)
			printf(" %g", o[i]);
		printf("\nmip %s grad:", mf ? "linear" : "point");
		for (int i = 0; i < 48; i++)
			printf(" %g", o[48 + i]);
		printf("\n");
		delete[] o;
		CHECK(cudaDestroyTextureObject(t));
	}
	CHECK(cudaFreeMipmappedArray(mm));
	// cube map 2 x 2, texel value 10 face + 2 y + x: directions at ties between axes
	float hc[6][4];
	for (int f = 0; f < 6; f++)
		for (int i = 0; i < 4; i++)
			hc[f][i] = 10.0f * f + i;
	cudaArray_t ac;
	CHECK(cudaMalloc3DArray(&ac, &cf, make_cudaExtent(2, 2, 6), cudaArrayCubemap));
	cudaMemcpy3DParms p;
	memset(&p, 0, sizeof p);
	p.srcPtr = make_cudaPitchedPtr(hc, 8, 2, 2);
	p.dstArray = ac;
	p.extent = make_cudaExtent(2, 2, 6);
	p.kind = cudaMemcpyHostToDevice;
	CHECK(cudaMemcpy3D(&p));
	cudaTextureObject_t tc = tex_of(ac, 0, 1, cudaAddressModeClamp);
	float dirs[27 * 3];
	int n = 0;
	for (int z = -1; z <= 1; z++)
		for (int y = -1; y <= 1; y++)
			for (int x = -1; x <= 1; x++) {
				dirs[3 * n] = x * 0.7f, dirs[3 * n + 1] = y * 0.7f, dirs[3 * n + 2] = z * 0.7f;
				n++;
			}
	float *o = run(sample_cube, tc, dirs, 81, 27, 27);
	printf("cube ties:");
	for (int i = 0; i < 27; i++)
		printf(" %g", o[i]);
	printf("\n");
	delete[] o;
	CHECK(cudaDestroyTextureObject(tc));
	CHECK(cudaFreeArray(ac));
}

int main()
{
	weights();
	sums();
	formats();
	coordinates();
	mipmaps_and_cubes();
	return 0;
}
