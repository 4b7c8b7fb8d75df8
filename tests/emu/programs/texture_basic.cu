// Textures and surfaces whose results do not depend on the texture unit's arithmetic:
// point sampling of 1-D, 2-D and 3-D arrays in every addressing mode, normalized and
// unnormalized coordinates, integer and normalized-float reads of 8/16-bit texels,
// tex1Dfetch on linear memory, pitched 2-D memory, layered and cube map arrays, gather,
// mipmap levels, surfaces (1-D, 2-D, 3-D, layered, boundary modes) and the API's codes.
#include <cstdio>
#include <cstring>
#include "check.h"

// cudaMemcpyToArray is deprecated but still in the API (and in NVIDIA's samples): tested on purpose.
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

__global__ void fetch1d(cudaTextureObject_t t, const float *x, float4 *out, int n)
{
	int i = threadIdx.x;
	if (i < n)
		out[i] = tex1D<float4>(t, x[i]);
}

__global__ void fetch2d(cudaTextureObject_t t, const float2 *c, float *out, int n)
{
	int i = threadIdx.x;
	if (i < n)
		out[i] = tex2D<float>(t, c[i].x, c[i].y);
}

__global__ void fetch_misc(cudaTextureObject_t t3, cudaTextureObject_t lin, cudaTextureObject_t u8,
			   cudaTextureObject_t u8n, cudaTextureObject_t s16n, int *oi, float *of)
{
	int i = threadIdx.x;
	oi[i] = tex1Dfetch<int>(lin, i - 2);             // out of range reads 0
	of[i] = tex3D<float>(t3, i * 0.75f, 1.5f, 2.5f);  // point, clamped
	uchar4 c = tex2D<uchar4>(u8, i + 0.5f, 0.5f);
	oi[32 + i] = c.x | c.y << 8 | c.z << 16 | c.w << 24;
	float4 f = tex2D<float4>(u8n, i + 0.5f, 0.5f);
	of[32 + i] = f.x + 10 * f.w;
	of[64 + i] = tex1D<float>(s16n, i + 0.5f);
}

__global__ void layered(cudaTextureObject_t l1, cudaTextureObject_t l2, cudaTextureObject_t cube,
			float *out)
{
	int i = threadIdx.x;
	out[i] = tex1DLayered<float>(l1, i + 0.5f, i % 3);
	out[32 + i] = tex2DLayered<float>(l2, (i % 4) + 0.5f, 1.5f, i / 4 - 1);
	// the centre of each face, and points near the centres
	const float d[6][3] = { { 1, 0, 0 }, { -1, 0, 0 }, { 0, 1, 0 }, { 0, -1, 0 }, { 0, 0, 1 }, { 0, 0, -1 } };
	int f = i % 6;
	float e = (i / 6) * 0.2f - 0.4f;
	out[64 + i] = texCubemap<float>(cube, d[f][0] + (f > 1 ? e : 0), d[f][1] + (f < 2 ? e : 0),
					d[f][2] + (f == 2 || f == 3 ? -e : 0));
}

__global__ void gather_lod(cudaTextureObject_t t, cudaTextureObject_t mip, float *out)
{
	int i = threadIdx.x;
	float4 g = tex2Dgather<float4>(t, i + 0.75f, 1.25f, 0);
	out[4 * i] = g.x, out[4 * i + 1] = g.y, out[4 * i + 2] = g.z, out[4 * i + 3] = g.w;
	out[128 + i] = tex2DLod<float>(mip, (i % 8) / 8.0f + 1 / 16.0f, 0.3f, (float)(i / 8));
}

__global__ void surfaces(cudaSurfaceObject_t s1, cudaSurfaceObject_t s2, cudaSurfaceObject_t s3,
			 cudaSurfaceObject_t sl, int *out)
{
	int i = threadIdx.x;
	surf1Dwrite(i * 3, s1, i * 4);
	surf2Dwrite(make_uchar4(i, i + 1, i + 2, i + 3), s2, i * 4, 1);
	if (i >= 16) // past the row's end: dropped
		surf2Dwrite(make_uchar4(99, 99, 99, 99), s2, i * 4 + 64, 1, cudaBoundaryModeZero);
	surf3Dwrite((short)(i * 7), s3, (i % 4) * 2, i / 4 % 2, i / 8);
	if (i < 12) // one thread per texel: 4 x 3 layers
		surf2DLayeredwrite(i + 100.0f, sl, (i % 4) * 4, 0, i / 4);
	__syncthreads();
	out[i] = surf1Dread<int>(s1, ((i + 1) % 32) * 4);
	uchar4 c = surf2Dread<uchar4>(s2, i * 4 + 8, 1, cudaBoundaryModeClamp);
	out[32 + i] = c.x | c.w << 8;
	out[64 + i] = surf3Dread<short>(s3, (i % 4) * 2, i / 4 % 2, i / 8);
	out[96 + i] = (int)surf2DLayeredread<float>(sl, (i % 4) * 4, 0, i / 4 % 3);
	out[128 + i] = surf2Dread<int>(s2, i * 4, 5, cudaBoundaryModeZero); // row 5 of 2: 0
}

// txq and suq (no CUDA C function emits them: inline PTX)
__global__ void queries(cudaTextureObject_t t, cudaSurfaceObject_t su, int *out)
{
	int v[9];
	asm("txq.width.b32 %0, [%1];" : "=r"(v[0]) : "l"(t));
	asm("txq.height.b32 %0, [%1];" : "=r"(v[1]) : "l"(t));
	asm("txq.depth.b32 %0, [%1];" : "=r"(v[2]) : "l"(t));
	asm("txq.num_mipmap_levels.b32 %0, [%1];" : "=r"(v[3]) : "l"(t));
	asm("txq.normalized_coords.b32 %0, [%1];" : "=r"(v[4]) : "l"(t));
	asm("txq.filter_mode.b32 %0, [%1];" : "=r"(v[5]) : "l"(t));
	asm("txq.addr_mode_0.b32 %0, [%1];" : "=r"(v[6]) : "l"(t));
	asm("suq.width.b32 %0, [%1];" : "=r"(v[7]) : "l"(su));
	asm("suq.height.b32 %0, [%1];" : "=r"(v[8]) : "l"(su));
	for (int k = 0; k < 9; k++)
		out[k] = v[k];
}

static cudaTextureObject_t make_tex(cudaResourceDesc *r, cudaTextureFilterMode f, int norm,
				    cudaTextureAddressMode a, cudaTextureReadMode rm)
{
	cudaTextureDesc t;
	memset(&t, 0, sizeof t);
	t.addressMode[0] = t.addressMode[1] = t.addressMode[2] = a;
	t.filterMode = f;
	t.readMode = rm;
	t.normalizedCoords = norm;
	t.borderColor[0] = 7.5f;
	t.borderColor[3] = 0.25f;
	cudaTextureObject_t o;
	CHECK(cudaCreateTextureObject(&o, r, &t, NULL));
	return o;
}

static cudaTextureObject_t array_tex(cudaArray_t a, cudaTextureFilterMode f, int norm,
				     cudaTextureAddressMode am, cudaTextureReadMode rm = cudaReadModeElementType)
{
	cudaResourceDesc r;
	memset(&r, 0, sizeof r);
	r.resType = cudaResourceTypeArray;
	r.res.array.array = a;
	return make_tex(&r, f, norm, am, rm);
}

template <class T> static T *dev(const T *h, size_t n)
{
	T *d;
	CHECK(cudaMalloc(&d, n * sizeof(T)));
	if (h)
		CHECK(cudaMemcpy(d, h, n * sizeof(T), cudaMemcpyHostToDevice));
	return d;
}

template <class T> static void get(T *h, const T *d, size_t n)
{
	CHECK(cudaMemcpy(h, d, n * sizeof(T), cudaMemcpyDeviceToHost));
}

static void addressing_modes()
{
	// 1-D, 4 texels of float2 (x, 0.5 + x): every mode, point, normalized coordinates
	float h[8] = { 1, 1.5f, 2, 2.5f, 3, 3.5f, 4, 4.5f };
	cudaChannelFormatDesc cd = cudaCreateChannelDesc<float2>();
	cudaArray_t a;
	CHECK(cudaMallocArray(&a, &cd, 4));
	CHECK(cudaMemcpy2DToArray(a, 0, 0, h, sizeof h, sizeof h, 1, cudaMemcpyHostToDevice));
	const float xs[12] = { -1.1f, -0.6f, -0.1f, 0.05f, 0.3f, 0.55f, 0.8f, 0.99f, 1.1f, 1.6f, 2.3f, -2.2f };
	float *dx = dev(xs, 12);
	float4 *dout = dev<float4>(NULL, 12), out[12];
	const char *names[] = { "wrap", "clamp", "mirror", "border" };
	for (int m = 0; m < 4; m++) {
		cudaTextureObject_t t = array_tex(a, cudaFilterModePoint, 1, (cudaTextureAddressMode)m);
		fetch1d<<<1, 12>>>(t, dx, dout, 12);
		get(out, dout, 12);
		printf("1d %-6s:", names[m]);
		for (int i = 0; i < 12; i++)
			printf(" %g/%g/%g/%g", out[i].x, out[i].y, out[i].z, out[i].w);
		printf("\n");
		CHECK(cudaDestroyTextureObject(t));
	}
	// unnormalized: wrap and mirror behave as clamp
	const float ux[6] = { -3, -0.5f, 0.5f, 3.99f, 4, 9 };
	CHECK(cudaMemcpy(dx, ux, sizeof ux, cudaMemcpyHostToDevice));
	for (int m = 0; m < 4; m++) {
		cudaTextureObject_t t = array_tex(a, cudaFilterModePoint, 0, (cudaTextureAddressMode)m);
		fetch1d<<<1, 6>>>(t, dx, dout, 6);
		get(out, dout, 6);
		printf("1d unnorm %-6s:", names[m]);
		for (int i = 0; i < 6; i++)
			printf(" %g", out[i].x);
		printf("\n");
		CHECK(cudaDestroyTextureObject(t));
	}
	CHECK(cudaFreeArray(a));
	cudaFree(dx);
	cudaFree(dout);
}

static void two_d()
{
	// 5 x 3 floats, value 10 * y + x; a 2-D array and the same in pitched memory
	const int W = 5, H = 3;
	float h[H][W];
	for (int y = 0; y < H; y++)
		for (int x = 0; x < W; x++)
			h[y][x] = 10.0f * y + x;
	cudaChannelFormatDesc cd = cudaCreateChannelDesc(32, 0, 0, 0, cudaChannelFormatKindFloat);
	cudaArray_t a;
	CHECK(cudaMallocArray(&a, &cd, W, H));
	CHECK(cudaMemcpyToArray(a, 0, 0, h, sizeof h, cudaMemcpyHostToDevice));
	float *pm;
	size_t pitch;
	CHECK(cudaMallocPitch((void **)&pm, &pitch, W * sizeof(float), H));
	CHECK(cudaMemcpy2D(pm, pitch, h, W * sizeof(float), W * sizeof(float), H, cudaMemcpyHostToDevice));
	cudaResourceDesc r;
	memset(&r, 0, sizeof r);
	r.resType = cudaResourceTypePitch2D;
	r.res.pitch2D.devPtr = pm;
	r.res.pitch2D.desc = cd;
	r.res.pitch2D.width = W;
	r.res.pitch2D.height = H;
	r.res.pitch2D.pitchInBytes = pitch;
	const float2 cs[10] = { { 0.5f, 0.5f }, { 4.9f, 2.9f }, { -1, 1 }, { 7, 1.5f }, { 2.5f, -3 }, { 2.5f, 9 },
				{ 0.1f, 0.9f }, { 1.6f, 0.3f }, { -0.2f, 1.2f }, { 1.1f, 1.0f } };
	float2 *dc = dev(cs, 10);
	float *dout = dev<float>(NULL, 10), out[10];
	cudaTextureObject_t ts[4] = {
		array_tex(a, cudaFilterModePoint, 0, cudaAddressModeClamp),
		array_tex(a, cudaFilterModePoint, 0, cudaAddressModeBorder),
		make_tex(&r, cudaFilterModePoint, 0, cudaAddressModeClamp, cudaReadModeElementType),
		array_tex(a, cudaFilterModePoint, 1, cudaAddressModeWrap),
	};
	const char *names[] = { "array clamp", "array border", "pitch2D clamp", "array wrap (normalized)" };
	for (int k = 0; k < 4; k++) {
		if (k == 3) { // normalized: the same points divided by the size
			float2 ncs[10];
			for (int i = 0; i < 10; i++)
				ncs[i] = make_float2(cs[i].x / W, cs[i].y / H);
			CHECK(cudaMemcpy(dc, ncs, sizeof ncs, cudaMemcpyHostToDevice));
		}
		fetch2d<<<1, 10>>>(ts[k], dc, dout, 10);
		get(out, dout, 10);
		printf("2d %s:", names[k]);
		for (int i = 0; i < 10; i++)
			printf(" %g", out[i]);
		printf("\n");
		CHECK(cudaDestroyTextureObject(ts[k]));
	}
	// the copies back out of the array
	float back[H][W];
	memset(back, 0, sizeof back);
	CHECK(cudaMemcpy2DFromArray(back, W * sizeof(float), a, sizeof(float), 1, 3 * sizeof(float), 2,
				    cudaMemcpyDeviceToHost));
	printf("2d from array: %g %g %g / %g %g %g\n", back[0][0], back[0][1], back[0][2], back[1][0],
	       back[1][1], back[1][2]);
	cudaExtent e;
	unsigned flags;
	cudaChannelFormatDesc got;
	CHECK(cudaArrayGetInfo(&got, &e, &flags, a));
	printf("array info: %d %d %d %d kind %d, %zu x %zu x %zu, flags %u\n", got.x, got.y, got.z,
	       got.w, (int)got.f, e.width, e.height, e.depth, flags);
	CHECK(cudaFreeArray(a));
	cudaFree(pm);
	cudaFree(dc);
	cudaFree(dout);
}

static void misc_formats()
{
	// 3-D 4 x 2 x 3 floats (100 z + 10 y + x)
	float h3[3][2][4];
	for (int z = 0; z < 3; z++)
		for (int y = 0; y < 2; y++)
			for (int x = 0; x < 4; x++)
				h3[z][y][x] = 100.0f * z + 10 * y + x;
	cudaChannelFormatDesc cf = cudaCreateChannelDesc<float>();
	cudaArray_t a3;
	CHECK(cudaMalloc3DArray(&a3, &cf, make_cudaExtent(4, 2, 3)));
	cudaMemcpy3DParms p;
	memset(&p, 0, sizeof p);
	p.srcPtr = make_cudaPitchedPtr(h3, 4 * sizeof(float), 4, 2);
	p.dstArray = a3;
	p.extent = make_cudaExtent(4, 2, 3);
	p.kind = cudaMemcpyHostToDevice;
	CHECK(cudaMemcpy3D(&p));
	cudaTextureObject_t t3 = array_tex(a3, cudaFilterModePoint, 0, cudaAddressModeClamp);
	// linear memory of ints for tex1Dfetch
	int hl[16];
	for (int i = 0; i < 16; i++)
		hl[i] = i * i - 5;
	int *dl = dev(hl, 16);
	cudaResourceDesc r;
	memset(&r, 0, sizeof r);
	r.resType = cudaResourceTypeLinear;
	r.res.linear.devPtr = dl;
	r.res.linear.desc = cudaCreateChannelDesc<int>();
	r.res.linear.sizeInBytes = sizeof hl;
	cudaTextureObject_t lin = make_tex(&r, cudaFilterModePoint, 0, cudaAddressModeClamp, cudaReadModeElementType);
	// uchar4, read as integers and as normalized floats; short read normalized
	unsigned char hu[32][4];
	for (int i = 0; i < 32; i++)
		for (int c = 0; c < 4; c++)
			hu[i][c] = (unsigned char)(i * 8 + c * 60);
	cudaChannelFormatDesc cu = cudaCreateChannelDesc<uchar4>();
	cudaArray_t au;
	CHECK(cudaMallocArray(&au, &cu, 32, 1));
	CHECK(cudaMemcpy2DToArray(au, 0, 0, hu, sizeof hu, sizeof hu, 1, cudaMemcpyHostToDevice));
	cudaTextureObject_t u8 = array_tex(au, cudaFilterModePoint, 0, cudaAddressModeClamp);
	cudaTextureObject_t u8n = array_tex(au, cudaFilterModePoint, 0, cudaAddressModeClamp, cudaReadModeNormalizedFloat);
	short hs[32];
	for (int i = 0; i < 32; i++)
		hs[i] = (short)(i * 2100 - 32768 + (i == 0));
	cudaChannelFormatDesc cs = cudaCreateChannelDesc<short>();
	cudaArray_t as;
	CHECK(cudaMallocArray(&as, &cs, 32));
	CHECK(cudaMemcpyToArray(as, 0, 0, hs, sizeof hs, cudaMemcpyHostToDevice));
	cudaTextureObject_t s16n = array_tex(as, cudaFilterModePoint, 0, cudaAddressModeClamp, cudaReadModeNormalizedFloat);
	int *doi = dev<int>(NULL, 64), oi[64];
	float *dof = dev<float>(NULL, 96), of[96];
	fetch_misc<<<1, 32>>>(t3, lin, u8, u8n, s16n, doi, dof);
	get(oi, doi, 64);
	get(of, dof, 96);
	printf("tex1Dfetch int:");
	for (int i = 0; i < 20; i++)
		printf(" %d", oi[i]);
	printf("\n3d point:");
	for (int i = 0; i < 8; i++)
		printf(" %g", of[i]);
	printf("\nuchar4 element:");
	for (int i = 0; i < 32; i += 5)
		printf(" %08x", oi[32 + i]);
	printf("\nuchar4 normalized x + 10 w:");
	for (int i = 0; i < 32; i += 3)
		printf(" %.9g", of[32 + i]);
	printf("\nshort normalized:");
	for (int i = 0; i < 32; i += 3)
		printf(" %.9g", of[64 + i]);
	printf("\n");
	CHECK(cudaDestroyTextureObject(t3));
	CHECK(cudaDestroyTextureObject(lin));
	CHECK(cudaDestroyTextureObject(u8));
	CHECK(cudaDestroyTextureObject(u8n));
	CHECK(cudaDestroyTextureObject(s16n));
	CHECK(cudaFreeArray(a3));
	CHECK(cudaFreeArray(au));
	CHECK(cudaFreeArray(as));
	cudaFree(dl);
	cudaFree(doi);
	cudaFree(dof);
}

static void layers_and_cubes()
{
	cudaChannelFormatDesc cf = cudaCreateChannelDesc<float>();
	// 1-D layered: 32 texels x 3 layers, 1000 * layer + x
	float h1[3][32];
	for (int l = 0; l < 3; l++)
		for (int x = 0; x < 32; x++)
			h1[l][x] = 1000.0f * l + x;
	cudaArray_t a1, a2, ac;
	CHECK(cudaMalloc3DArray(&a1, &cf, make_cudaExtent(32, 0, 3), cudaArrayLayered));
	cudaMemcpy3DParms p;
	memset(&p, 0, sizeof p);
	p.srcPtr = make_cudaPitchedPtr(h1, sizeof h1[0], 32, 1);
	p.dstArray = a1;
	p.extent = make_cudaExtent(32, 1, 3);
	p.kind = cudaMemcpyHostToDevice;
	CHECK(cudaMemcpy3D(&p));
	// 2-D layered: 4 x 2 x 6 layers, 100 * layer + 10 * y + x
	float h2[6][2][4];
	for (int l = 0; l < 6; l++)
		for (int y = 0; y < 2; y++)
			for (int x = 0; x < 4; x++)
				h2[l][y][x] = 100.0f * l + 10 * y + x;
	CHECK(cudaMalloc3DArray(&a2, &cf, make_cudaExtent(4, 2, 6), cudaArrayLayered));
	p.srcPtr = make_cudaPitchedPtr(h2, 4 * sizeof(float), 4, 2);
	p.dstArray = a2;
	p.extent = make_cudaExtent(4, 2, 6);
	CHECK(cudaMemcpy3D(&p));
	// cube map 4 x 4, face f texel (x, y) = 100 f + 10 y + x
	float hc[6][4][4];
	for (int f = 0; f < 6; f++)
		for (int y = 0; y < 4; y++)
			for (int x = 0; x < 4; x++)
				hc[f][y][x] = 100.0f * f + 10 * y + x;
	CHECK(cudaMalloc3DArray(&ac, &cf, make_cudaExtent(4, 4, 6), cudaArrayCubemap));
	p.srcPtr = make_cudaPitchedPtr(hc, 4 * sizeof(float), 4, 4);
	p.dstArray = ac;
	p.extent = make_cudaExtent(4, 4, 6);
	CHECK(cudaMemcpy3D(&p));
	cudaTextureObject_t t1 = array_tex(a1, cudaFilterModePoint, 0, cudaAddressModeClamp);
	cudaTextureObject_t t2 = array_tex(a2, cudaFilterModePoint, 0, cudaAddressModeClamp);
	cudaTextureObject_t tc = array_tex(ac, cudaFilterModePoint, 1, cudaAddressModeClamp);
	float *d = dev<float>(NULL, 96), o[96];
	layered<<<1, 32>>>(t1, t2, tc, d);
	get(o, d, 96);
	const char *names[] = { "1d layered", "2d layered (layer -1..6 clamped)", "cubemap" };
	for (int k = 0; k < 3; k++) {
		printf("%s:", names[k]);
		for (int i = 0; i < 32; i++)
			printf(" %g", o[32 * k + i]);
		printf("\n");
	}
	CHECK(cudaDestroyTextureObject(t1));
	CHECK(cudaDestroyTextureObject(t2));
	CHECK(cudaDestroyTextureObject(tc));
	CHECK(cudaFreeArray(a1));
	CHECK(cudaFreeArray(a2));
	CHECK(cudaFreeArray(ac));
	cudaFree(d);
}

static void gather_and_mipmaps()
{
	// gather on a 33 x 3 float texture (10 y + x), clamp
	const int W = 33;
	static float h[3][W];
	for (int y = 0; y < 3; y++)
		for (int x = 0; x < W; x++)
			h[y][x] = 10.0f * y + x;
	cudaChannelFormatDesc cf = cudaCreateChannelDesc<float>();
	cudaArray_t a;
	CHECK(cudaMallocArray(&a, &cf, W, 3, cudaArrayTextureGather));
	CHECK(cudaMemcpy2DToArray(a, 0, 0, h, sizeof h[0], sizeof h[0], 3, cudaMemcpyHostToDevice));
	cudaTextureObject_t t = array_tex(a, cudaFilterModePoint, 0, cudaAddressModeClamp);
	// a mipmapped 8 x 8 float texture, 4 levels, level l filled with 1000 l + 10 y + x
	cudaMipmappedArray_t mm;
	CHECK(cudaMallocMipmappedArray(&mm, &cf, make_cudaExtent(8, 8, 0), 4));
	for (int l = 0; l < 4; l++) {
		cudaArray_t la;
		CHECK(cudaGetMipmappedArrayLevel(&la, mm, l));
		int n = 8 >> l;
		float lv[64];
		for (int y = 0; y < n; y++)
			for (int x = 0; x < n; x++)
				lv[y * n + x] = 1000.0f * l + 10 * y + x;
		CHECK(cudaMemcpy2DToArray(la, 0, 0, lv, n * sizeof(float), n * sizeof(float), n,
					  cudaMemcpyHostToDevice));
	}
	cudaResourceDesc r;
	memset(&r, 0, sizeof r);
	r.resType = cudaResourceTypeMipmappedArray;
	r.res.mipmap.mipmap = mm;
	cudaTextureDesc td;
	memset(&td, 0, sizeof td);
	td.normalizedCoords = 1;
	td.filterMode = cudaFilterModePoint;
	td.mipmapFilterMode = cudaFilterModePoint;
	td.maxMipmapLevelClamp = 3;
	cudaTextureObject_t mt;
	CHECK(cudaCreateTextureObject(&mt, &r, &td, NULL));
	float *d = dev<float>(NULL, 160), o[160];
	gather_lod<<<1, 32>>>(t, mt, d);
	get(o, d, 160);
	printf("gather:");
	for (int i = 0; i < 32; i += 4)
		printf(" %g/%g/%g/%g", o[4 * i], o[4 * i + 1], o[4 * i + 2], o[4 * i + 3]);
	printf("\nlod:");
	for (int i = 0; i < 32; i++)
		printf(" %g", o[128 + i]);
	printf("\n");
	CHECK(cudaDestroyTextureObject(t));
	CHECK(cudaDestroyTextureObject(mt));
	CHECK(cudaFreeArray(a));
	CHECK(cudaFreeMipmappedArray(mm));
	cudaFree(d);
}

static void surface_tests()
{
	cudaArray_t a1, a2, a3, al;
	cudaChannelFormatDesc ci = cudaCreateChannelDesc<int>(), cu = cudaCreateChannelDesc<uchar4>(),
			      cs = cudaCreateChannelDesc<short>(), cf = cudaCreateChannelDesc<float>();
	CHECK(cudaMallocArray(&a1, &ci, 32, 0, cudaArraySurfaceLoadStore));
	CHECK(cudaMallocArray(&a2, &cu, 32, 2, cudaArraySurfaceLoadStore));
	CHECK(cudaMalloc3DArray(&a3, &cs, make_cudaExtent(4, 2, 4), cudaArraySurfaceLoadStore));
	CHECK(cudaMalloc3DArray(&al, &cf, make_cudaExtent(4, 1, 3), cudaArrayLayered | cudaArraySurfaceLoadStore));
	cudaSurfaceObject_t s[4];
	cudaArray_t arrs[4] = { a1, a2, a3, al };
	for (int k = 0; k < 4; k++) {
		cudaResourceDesc r;
		memset(&r, 0, sizeof r);
		r.resType = cudaResourceTypeArray;
		r.res.array.array = arrs[k];
		CHECK(cudaCreateSurfaceObject(&s[k], &r));
	}
	int *d = dev<int>(NULL, 160), o[160];
	cudaTextureObject_t tq = array_tex(a2, cudaFilterModePoint, 1, cudaAddressModeMirror);
	queries<<<1, 1>>>(tq, s[2], d);
	get(o, d, 9);
	printf("txq (uchar4 32 x 2) width height depth levels normalized filter addr0, suq (3-D) "
	       "width height:");
	for (int k = 0; k < 9; k++)
		printf(" %d", o[k]);
	printf("\n");
	CHECK(cudaDestroyTextureObject(tq));
	surfaces<<<1, 32>>>(s[0], s[1], s[2], s[3], d);
	CHECK(cudaDeviceSynchronize());
	get(o, d, 160);
	const char *names[] = { "surf1D", "surf2D uchar4 clamp", "surf3D short", "surf2DLayered", "zero mode" };
	for (int k = 0; k < 5; k++) {
		printf("%s:", names[k]);
		for (int i = 0; i < 32; i++)
			printf(" %d", o[32 * k + i]);
		printf("\n");
	}
	// a surface without cudaArraySurfaceLoadStore, and a texture on a destroyed object
	cudaArray_t plain;
	CHECK(cudaMallocArray(&plain, &cf, 4));
	cudaResourceDesc r;
	memset(&r, 0, sizeof r);
	r.resType = cudaResourceTypeArray;
	r.res.array.array = plain;
	cudaSurfaceObject_t bad;
	printf("surface without the flag: %s\n", cudaGetErrorName(cudaCreateSurfaceObject(&bad, &r)));
	printf("destroy twice: %s", cudaGetErrorName(cudaDestroySurfaceObject(s[0])));
	printf(" %s\n", cudaGetErrorName(cudaDestroySurfaceObject(s[0])));
	cudaGetLastError();
	for (int k = 1; k < 4; k++)
		CHECK(cudaDestroySurfaceObject(s[k]));
	for (int k = 0; k < 4; k++)
		CHECK(cudaFreeArray(arrs[k]));
	CHECK(cudaFreeArray(plain));
	cudaFree(d);
}

int main()
{
	addressing_modes();
	two_d();
	misc_formats();
	layers_and_cubes();
	gather_and_mipmaps();
	surface_tests();
	cudaChannelFormatDesc bad = cudaCreateChannelDesc(8, 16, 0, 0, cudaChannelFormatKindUnsigned);
	cudaArray_t a;
	printf("bad channel desc: %s\n", cudaGetErrorName(cudaMallocArray(&a, &bad, 4)));
	cudaGetLastError();
	return 0;
}
