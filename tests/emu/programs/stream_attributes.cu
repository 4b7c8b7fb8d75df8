// The attribute calls that tune streams, launches and the L2 cache (as NVIDIA's sample
// simpleAttributes uses them): a stream's access policy window, synchronization policy,
// priority and memory sync domain, set, read back and copied; bad values; the
// persisting L2 limit and cudaCtxResetPersistingL2Cache; cudaLaunchKernelEx with an
// access policy window; cudaFuncSetAttribute's carveout and cluster hints. None changes
// what a kernel computes: the kernel's results are checked after each.
#include "check.h"

__global__ void scale(int *p, int n, int k)
{
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
		p[i] = p[i] * k + 1;
}

static const char *prop(cudaAccessProperty p)
{
	return p == cudaAccessPropertyNormal ? "normal" : p == cudaAccessPropertyStreaming
	       ? "streaming" : p == cudaAccessPropertyPersisting ? "persisting" : "?";
}

// Runs scale over d (all ones) on stream s and says whether every element became k + 1.
static bool runs(int *d, int n, int k, cudaStream_t s)
{
	CHECK(cudaMemsetAsync(d, 0, n * sizeof(int), s));
	scale<<<64, 256, 0, s>>>(d, n, 1);
	scale<<<64, 256, 0, s>>>(d, n, k);
	int *h = (int *)malloc(n * sizeof(int)), bad = 0;
	CHECK(cudaMemcpyAsync(h, d, n * sizeof(int), cudaMemcpyDeviceToHost, s));
	CHECK(cudaStreamSynchronize(s));
	for (int i = 0; i < n; i++)
		bad += h[i] != k + 1;
	free(h);
	return bad == 0;
}

int main()
{
	const int n = 1 << 16;
	int *d, fail = 0;
	CHECK(cudaMalloc(&d, n * sizeof(int)));
	cudaDeviceProp p;
	CHECK(cudaGetDeviceProperties(&p, 0));
	int maxWindow = 0, maxPersist = 0;
	CHECK(cudaDeviceGetAttribute(&maxWindow, cudaDevAttrMaxAccessPolicyWindowSize, 0));
	CHECK(cudaDeviceGetAttribute(&maxPersist, cudaDevAttrMaxPersistingL2CacheSize, 0));
	printf("max window %s the property, max persisting %s the property\n",
	       maxWindow == p.accessPolicyMaxWindowSize ? "is" : "IS NOT",
	       maxPersist == p.persistingL2CacheMaxSize ? "is" : "IS NOT");
	fprintf(stderr, "accessPolicyMaxWindowSize %d, persistingL2CacheMaxSize %d\n", maxWindow,
		maxPersist);

	// the persisting L2 set-aside, as simpleAttributes sizes it
	size_t want = (size_t)(p.l2CacheSize * 0.75) < (size_t)p.persistingL2CacheMaxSize
			      ? (size_t)(p.l2CacheSize * 0.75) : (size_t)p.persistingL2CacheMaxSize;
	size_t got = 0;
	CHECK(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, want));
	CHECK(cudaDeviceGetLimit(&got, cudaLimitPersistingL2CacheSize));
	printf("persisting L2 limit: %s\n", got == want ? "as set" : "NOT AS SET");
	fprintf(stderr, "persisting L2 limit: set %zu, got %zu\n", want, got);

	cudaStream_t s, t;
	CHECK(cudaStreamCreate(&s));
	CHECK(cudaStreamCreate(&t));
	cudaStreamAttrValue v = {};
	CHECK(cudaStreamGetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &v));
	printf("new stream: window %zu bytes, hit ratio %.2f, %s/%s\n",
	       v.accessPolicyWindow.num_bytes, v.accessPolicyWindow.hitRatio,
	       prop(v.accessPolicyWindow.hitProp), prop(v.accessPolicyWindow.missProp));
	CHECK(cudaStreamGetAttribute(s, cudaStreamAttributeSynchronizationPolicy, &v));
	printf("new stream: synchronization policy %d\n", (int)v.syncPolicy);
	CHECK(cudaStreamGetAttribute(s, cudaStreamAttributePriority, &v));
	printf("new stream: priority %d\n", v.priority);
	CHECK(cudaStreamGetAttribute(s, cudaLaunchAttributeMemSyncDomain, &v));
	printf("new stream: memory sync domain %d\n", (int)v.memSyncDomain);
	CHECK(cudaStreamGetAttribute(s, cudaLaunchAttributeMemSyncDomainMap, &v));
	printf("new stream: domain map %d/%d\n", v.memSyncDomainMap.default_,
	       v.memSyncDomainMap.remote);

	// simpleAttributes: a window over the data, persisting hits, streaming misses
	v = {};
	v.accessPolicyWindow.base_ptr = d;
	v.accessPolicyWindow.num_bytes = n * sizeof(int);
	v.accessPolicyWindow.hitRatio = 0.6f;
	v.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
	v.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
	CHECK(cudaStreamSetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &v));
	cudaStreamAttrValue r = {};
	CHECK(cudaStreamGetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &r));
	printf("window set: %s, %zu bytes, hit ratio %.2f, %s/%s\n",
	       r.accessPolicyWindow.base_ptr == (void *)d ? "on the data" : "ELSEWHERE",
	       r.accessPolicyWindow.num_bytes, r.accessPolicyWindow.hitRatio,
	       prop(r.accessPolicyWindow.hitProp), prop(r.accessPolicyWindow.missProp));
	fail |= !runs(d, n, 3, s);
	printf("kernels under the window: %s\n", fail ? "BAD" : "ok");

	v = {};
	v.syncPolicy = cudaSyncPolicyBlockingSync;
	CHECK(cudaStreamSetAttribute(s, cudaStreamAttributeSynchronizationPolicy, &v));
	CHECK(cudaStreamGetAttribute(s, cudaStreamAttributeSynchronizationPolicy, &r));
	printf("synchronization policy set: %d\n", (int)r.syncPolicy);

	CHECK(cudaStreamCopyAttributes(t, s));
	CHECK(cudaStreamGetAttribute(t, cudaStreamAttributeAccessPolicyWindow, &r));
	printf("copied: window %zu bytes, %s\n", r.accessPolicyWindow.num_bytes,
	       prop(r.accessPolicyWindow.hitProp));
	CHECK(cudaStreamGetAttribute(t, cudaStreamAttributeSynchronizationPolicy, &r));
	printf("copied: synchronization policy %d\n", (int)r.syncPolicy);

	// bad values
	v = {};
	v.accessPolicyWindow.base_ptr = d;
	v.accessPolicyWindow.num_bytes = (size_t)maxWindow + 1;
	v.accessPolicyWindow.hitRatio = 1.0f;
	printf("window over the maximum: %s\n",
	       cudaGetErrorName(cudaStreamSetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &v)));
	cudaGetLastError();
	v.accessPolicyWindow.num_bytes = 4096;
	v.accessPolicyWindow.hitRatio = 1.5f;
	printf("hit ratio 1.5: %s\n",
	       cudaGetErrorName(cudaStreamSetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &v)));
	cudaGetLastError();
	v = {};
	v.cooperative = 1;
	printf("cooperative on a stream: %s\n",
	       cudaGetErrorName(cudaStreamSetAttribute(s, cudaLaunchAttributeCooperative, &v)));
	cudaGetLastError();

	// back to normal, as simpleAttributes ends
	v = {};
	v.accessPolicyWindow.num_bytes = 0;
	CHECK(cudaStreamSetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &v));
	CHECK(cudaCtxResetPersistingL2Cache());
	CHECK(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 0));
	CHECK(cudaDeviceGetLimit(&got, cudaLimitPersistingL2CacheSize));
	printf("reset: limit %zu\n", got);

	// a launch with its own window
	cudaLaunchAttribute a;
	a.id = cudaLaunchAttributeAccessPolicyWindow;
	a.val.accessPolicyWindow.base_ptr = d;
	a.val.accessPolicyWindow.num_bytes = n * sizeof(int);
	a.val.accessPolicyWindow.hitRatio = 1.0f;
	a.val.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
	a.val.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
	cudaLaunchConfig_t cfg = {};
	cfg.gridDim = dim3(64);
	cfg.blockDim = dim3(256);
	cfg.stream = t;
	cfg.attrs = &a;
	cfg.numAttrs = 1;
	CHECK(cudaMemsetAsync(d, 0, n * sizeof(int), t));
	CHECK(cudaLaunchKernelEx(&cfg, scale, d, n, 5));
	int h0 = 0;
	CHECK(cudaMemcpyAsync(&h0, d + n - 1, sizeof h0, cudaMemcpyDeviceToHost, t));
	CHECK(cudaStreamSynchronize(t));
	printf("cudaLaunchKernelEx with a window: %s\n", h0 == 1 ? "ok" : "BAD");
	fail |= h0 != 1;

	// function attributes that change nothing here
	printf("carveout 50: %s\n",
	       cudaGetErrorName(cudaFuncSetAttribute(scale, cudaFuncAttributePreferredSharedMemoryCarveout, 50)));
	printf("non-portable cluster size: %s\n",
	       cudaGetErrorName(cudaFuncSetAttribute(scale, cudaFuncAttributeNonPortableClusterSizeAllowed, 1)));
	printf("cluster scheduling policy spread: %s\n",
	       cudaGetErrorName(cudaFuncSetAttribute(scale, cudaFuncAttributeClusterSchedulingPolicyPreference,
						     cudaClusterSchedulingPolicySpread)));
	cudaGetLastError();
	fail |= !runs(d, n, 7, s);

	CHECK(cudaStreamDestroy(s));
	CHECK(cudaStreamDestroy(t));
	CHECK(cudaFree(d));
	printf("%s\n", fail ? "FAIL" : "PASS");
	return fail;
}
