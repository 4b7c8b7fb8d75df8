// CUDA graphs and stream capture (issue 18: NVIDIA's simpleCudaGraphs, graphMemoryNodes,
// graphConditionalNodes, cudaGraphsPerfScaling use them): a graph built by hand (memcpy,
// memset with 4-byte elements, kernel, host, empty, child graph and event record nodes,
// an edge added afterwards), cloned, launched three times; the same work captured from
// two streams that fork and join through events; a kernel node's parameters changed in
// the executable graph, and a whole graph updated; allocation and free nodes, and
// cudaMallocAsync/cudaFreeAsync captured; conditional if, while and switch nodes set by
// kernels; the default memory pool; the errors of misused capture calls.
#include "check.h"

__global__ void axpb(float *y, const float *x, float a, float b, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = a * x[i] + b;
}

__global__ void sum(const float *x, float *out, int n)
{
	__shared__ float part[256];
	float s = 0;
	for (int i = threadIdx.x; i < n; i += blockDim.x)
		s += x[i];
	part[threadIdx.x] = s;
	__syncthreads();
	for (int k = blockDim.x / 2; k > 0; k /= 2) {
		if (threadIdx.x < k)
			part[threadIdx.x] += part[threadIdx.x + k];
		__syncthreads();
	}
	if (threadIdx.x == 0)
		*out = part[0];
}

__global__ void countDown(int *counter, cudaGraphConditionalHandle h)
{
	int left = --*counter;
	printf("  body: counter %d\n", left);
	cudaGraphSetConditional(h, left > 0);
}

__global__ void choose(const int *value, cudaGraphConditionalHandle h)
{
	cudaGraphSetConditional(h, *value);
}

__global__ void say(int which)
{
	printf("  branch %d ran\n", which);
}

struct HostLog {
	const char *who;
	float *result;
	int calls;
};

static void CUDART_CB hostNode(void *p)
{
	HostLog *log = (HostLog *)p;
	log->calls++;
	printf("  host node (%s): sum %.1f\n", log->who, *log->result);
}

static const char *typeName(cudaGraphNodeType t)
{
	switch (t) {
	case cudaGraphNodeTypeKernel: return "kernel";
	case cudaGraphNodeTypeMemcpy: return "memcpy";
	case cudaGraphNodeTypeMemset: return "memset";
	case cudaGraphNodeTypeHost: return "host";
	case cudaGraphNodeTypeGraph: return "graph";
	case cudaGraphNodeTypeEmpty: return "empty";
	case cudaGraphNodeTypeEventRecord: return "event record";
	case cudaGraphNodeTypeMemAlloc: return "mem alloc";
	case cudaGraphNodeTypeMemFree: return "mem free";
	case cudaGraphNodeTypeConditional: return "conditional";
	default: return "other";
	}
}

static void listNodes(const char *what, cudaGraph_t g)
{
	size_t n = 0, roots = 0;
	CHECK(cudaGraphGetNodes(g, NULL, &n));
	CHECK(cudaGraphGetRootNodes(g, NULL, &roots));
	cudaGraphNode_t nodes[32];
	size_t got = n < 32 ? n : 32;
	if (got) // an array with room for none is refused (cudaErrorInvalidValue on an H200)
		CHECK(cudaGraphGetNodes(g, nodes, &got));
	printf("%s: %zu nodes, %zu roots:", what, n, roots);
	int counts[16] = {0};
	for (size_t i = 0; i < got; i++) {
		cudaGraphNodeType t;
		CHECK(cudaGraphNodeGetType(nodes[i], &t));
		counts[t < 16 ? t : 15]++;
	}
	for (int t = 0; t < 16; t++)
		if (counts[t])
			printf(" %d %s", counts[t], typeName((cudaGraphNodeType)t));
	printf("\n");
}

int main()
{
	const int n = 1000;
	float *hx, *hy, *dx, *dy, *dsum, result = 0;
	CHECK(cudaMallocHost(&hx, n * sizeof(float)));
	hy = (float *)malloc(n * sizeof(float));
	for (int i = 0; i < n; i++)
		hx[i] = (float)(i % 7);
	CHECK(cudaMalloc(&dx, n * sizeof(float)));
	CHECK(cudaMalloc(&dy, n * sizeof(float)));
	CHECK(cudaMalloc(&dsum, sizeof(float)));
	cudaStream_t s1, s2;
	CHECK(cudaStreamCreate(&s1));
	CHECK(cudaStreamCreate(&s2));
	cudaEvent_t done;
	CHECK(cudaEventCreate(&done));

	// ---- a graph by hand: copy in, set, y = 2x + 1, sum, copy out, host node
	printf("manual graph\n");
	cudaGraph_t g;
	CHECK(cudaGraphCreate(&g, 0));
	cudaGraphNode_t copyIn, setY, kernel, reduce, copyOut, host, empty, record;
	cudaMemcpy3DParms cp = {0};
	cp.srcPtr = make_cudaPitchedPtr(hx, n * sizeof(float), n, 1);
	cp.dstPtr = make_cudaPitchedPtr(dx, n * sizeof(float), n, 1);
	cp.extent = make_cudaExtent(n * sizeof(float), 1, 1);
	cp.kind = cudaMemcpyHostToDevice;
	CHECK(cudaGraphAddMemcpyNode(&copyIn, g, NULL, 0, &cp));
	cudaMemsetParams ms = {0};
	ms.dst = dy;
	ms.value = 0x3f800000; // 1.0f, element by element
	ms.elementSize = 4;
	ms.width = n;
	ms.height = 1;
	CHECK(cudaGraphAddMemsetNode(&setY, g, NULL, 0, &ms));
	float a = 2, b = 1;
	int nn = n;
	void *args[] = {&dy, &dx, &a, &b, &nn};
	cudaKernelNodeParams kp = {0};
	kp.func = (void *)axpb;
	kp.gridDim = dim3((n + 255) / 256);
	kp.blockDim = dim3(256);
	kp.kernelParams = args;
	cudaGraphNode_t before[] = {copyIn, setY};
	CHECK(cudaGraphAddKernelNode(&kernel, g, before, 2, &kp));
	void *sargs[] = {&dy, &dsum, &nn};
	cudaKernelNodeParams sp = {0};
	sp.func = (void *)sum;
	sp.gridDim = dim3(1);
	sp.blockDim = dim3(256);
	sp.kernelParams = sargs;
	CHECK(cudaGraphAddKernelNode(&reduce, g, NULL, 0, &sp));
	CHECK(cudaGraphAddDependencies(g, &kernel, &reduce, NULL, 1)); // an edge added later
	CHECK(cudaGraphAddMemcpyNode1D(&copyOut, g, &reduce, 1, &result, dsum, sizeof(float),
				       cudaMemcpyDeviceToHost));
	HostLog log = {"manual", &result, 0};
	cudaHostNodeParams hp = {hostNode, &log};
	CHECK(cudaGraphAddHostNode(&host, g, &copyOut, 1, &hp));
	CHECK(cudaGraphAddEmptyNode(&empty, g, &host, 1));
	CHECK(cudaGraphAddEventRecordNode(&record, g, &empty, 1, done));
	listNodes("  built", g);
	cudaGraphExec_t x;
	CHECK(cudaGraphInstantiate(&x, g, 0));
	for (int i = 0; i < 3; i++)
		CHECK(cudaGraphLaunch(x, s1));
	CHECK(cudaEventSynchronize(done));
	CHECK(cudaStreamSynchronize(s1));
	printf("  host node ran %d times\n", log.calls);
	cudaGraph_t clone;
	CHECK(cudaGraphClone(&clone, g));
	listNodes("  clone", clone);

	// the kernel node's parameters, changed in the executable graph only: y = 3x - 1
	a = 3, b = -1;
	CHECK(cudaGraphExecKernelNodeSetParams(x, kernel, &kp));
	a = 100; // the parameters were copied: this changes nothing
	CHECK(cudaGraphLaunch(x, s1));
	CHECK(cudaStreamSynchronize(s1));
	CHECK(cudaMemcpy(hy, dy, n * sizeof(float), cudaMemcpyDeviceToHost));
	printf("  after cudaGraphExecKernelNodeSetParams: y[5] = %.1f, y[6] = %.1f\n", hy[5], hy[6]);
	// the clone still has y = 2x + 1; an executable graph updated from it
	cudaGraphExecUpdateResultInfo info;
	CHECK(cudaGraphExecUpdate(x, clone, &info));
	CHECK(cudaGraphLaunch(x, s1));
	CHECK(cudaStreamSynchronize(s1));
	printf("  after cudaGraphExecUpdate (result %d): sum %.1f\n", (int)info.result, result);

	// ---- a child graph node: the manual graph inside another
	cudaGraph_t outer;
	cudaGraphNode_t child, after;
	CHECK(cudaGraphCreate(&outer, 0));
	CHECK(cudaGraphAddChildGraphNode(&child, outer, NULL, 0, clone));
	CHECK(cudaGraphAddEmptyNode(&after, outer, &child, 1));
	listNodes("  outer", outer);
	cudaGraphExec_t xo;
	CHECK(cudaGraphInstantiate(&xo, outer, 0));
	CHECK(cudaGraphLaunch(xo, s2));
	CHECK(cudaStreamSynchronize(s2));
	CHECK(cudaGraphExecDestroy(xo));
	CHECK(cudaGraphDestroy(outer));
	CHECK(cudaGraphExecDestroy(x));
	CHECK(cudaGraphDestroy(clone));
	CHECK(cudaGraphDestroy(g));

	// ---- the same work captured from two streams that fork and join
	printf("stream capture\n");
	cudaEvent_t fork, join;
	CHECK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
	CHECK(cudaEventCreateWithFlags(&join, cudaEventDisableTiming));
	cudaStreamCaptureStatus st;
	CHECK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
	CHECK(cudaStreamIsCapturing(s1, &st));
	printf("  s1 capturing: %d\n", (int)st);
	CHECK(cudaEventRecord(fork, s1));
	CHECK(cudaStreamWaitEvent(s2, fork, 0));
	CHECK(cudaStreamIsCapturing(s2, &st));
	printf("  s2 after waiting for s1's event: %d\n", (int)st);
	CHECK(cudaMemcpyAsync(dx, hx, n * sizeof(float), cudaMemcpyHostToDevice, s1));
	CHECK(cudaMemsetAsync(dy, 0, n * sizeof(float), s2));
	CHECK(cudaEventRecord(join, s2));
	CHECK(cudaStreamWaitEvent(s1, join, 0));
	axpb<<<(n + 255) / 256, 256, 0, s1>>>(dy, dx, 2, 1, n);
	sum<<<1, 256, 0, s1>>>(dy, dsum, n);
	CHECK(cudaMemcpyAsync(&result, dsum, sizeof(float), cudaMemcpyDeviceToHost, s1));
	HostLog clog = {"captured", &result, 0};
	CHECK(cudaLaunchHostFunc(s1, hostNode, &clog));
	printf("  nothing ran while capturing: host node calls %d\n", clog.calls);
	cudaGraph_t cg;
	CHECK(cudaStreamEndCapture(s1, &cg));
	CHECK(cudaStreamIsCapturing(s2, &st));
	printf("  s2 after the end of the capture: %d\n", (int)st);
	listNodes("  captured", cg);
	cudaGraphExec_t cx;
	CHECK(cudaGraphInstantiateWithFlags(&cx, cg, 0));
	CHECK(cudaGraphUpload(cx, s1));
	for (int i = 0; i < 2; i++)
		CHECK(cudaGraphLaunch(cx, s1));
	CHECK(cudaStreamSynchronize(s1));
	CHECK(cudaGraphExecDestroy(cx));
	CHECK(cudaGraphDestroy(cg));

	// ---- memory nodes: alloc, use, free inside the graph; captured stream-ordered
	// allocation; an allocation the graph leaves to cudaFree
	printf("memory nodes\n");
	cudaGraph_t mg;
	CHECK(cudaGraphCreate(&mg, 0));
	cudaMemAllocNodeParams ap = {};
	ap.poolProps.allocType = cudaMemAllocationTypePinned;
	ap.poolProps.location.type = cudaMemLocationTypeDevice;
	ap.poolProps.location.id = 0;
	ap.bytesize = n * sizeof(float);
	cudaGraphNode_t alloc, fill, sumNode, out, freeNode;
	CHECK(cudaGraphAddMemAllocNode(&alloc, mg, NULL, 0, &ap));
	float *tmp = (float *)ap.dptr;
	CHECK(cudaGraphAddMemcpyNode1D(&fill, mg, &alloc, 1, tmp, hx, n * sizeof(float),
				       cudaMemcpyHostToDevice));
	void *margs[] = {&tmp, &dsum, &nn};
	sp.kernelParams = margs;
	CHECK(cudaGraphAddKernelNode(&sumNode, mg, &fill, 1, &sp));
	CHECK(cudaGraphAddMemcpyNode1D(&out, mg, &sumNode, 1, &result, dsum, sizeof(float),
				       cudaMemcpyDeviceToHost));
	CHECK(cudaGraphAddMemFreeNode(&freeNode, mg, &sumNode, 1, tmp));
	cudaGraphExec_t mx;
	CHECK(cudaGraphInstantiate(&mx, mg, 0));
	CHECK(cudaGraphDestroy(mg)); // the executable graph keeps what it needs
	for (int i = 0; i < 2; i++) {
		result = 0;
		CHECK(cudaGraphLaunch(mx, s1));
		CHECK(cudaStreamSynchronize(s1));
		printf("  launch %d: sum %.1f\n", i, result);
	}
	unsigned long long used = 1, high = 0;
	CHECK(cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrUsedMemCurrent, &used));
	CHECK(cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrUsedMemHigh, &high));
	printf("  graph memory in use after the launches: %s, high-water mark %s\n",
	       used == 0 ? "none" : "some", high >= n * sizeof(float) ? "at least the node's" : "less");
	CHECK(cudaGraphExecDestroy(mx));

	int *counter, *ccounter;
	CHECK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
	CHECK(cudaMallocAsync((void **)&ccounter, sizeof(int), s1));
	CHECK(cudaMemsetAsync(ccounter, 0, sizeof(int), s1));
	CHECK(cudaMallocAsync((void **)&counter, 64, s1)); // left allocated by the graph
	CHECK(cudaMemcpyAsync(counter, ccounter, sizeof(int), cudaMemcpyDeviceToDevice, s1));
	CHECK(cudaFreeAsync(ccounter, s1));
	cudaGraph_t ag;
	CHECK(cudaStreamEndCapture(s1, &ag));
	listNodes("  captured allocations", ag);
	cudaGraphExec_t ax;
	CHECK(cudaGraphInstantiate(&ax, ag, 0));
	CHECK(cudaGraphLaunch(ax, s1));
	int zero = -1;
	CHECK(cudaMemcpyAsync(&zero, counter, sizeof(int), cudaMemcpyDeviceToHost, s1));
	CHECK(cudaStreamSynchronize(s1));
	printf("  the graph's allocation outlives the launch: %d\n", zero);
	CHECK(cudaFree(counter));
	CHECK(cudaGraphExecDestroy(ax));
	CHECK(cudaGraphDestroy(ag));

	// ---- conditional nodes
	printf("conditional nodes\n");
	CHECK(cudaMalloc(&counter, sizeof(int)));
	cudaGraph_t wg;
	CHECK(cudaGraphCreate(&wg, 0));
	cudaGraphConditionalHandle h;
	CHECK(cudaGraphConditionalHandleCreate(&h, wg, 1, cudaGraphCondAssignDefault));
	cudaGraphNodeParams cparams = {cudaGraphNodeTypeConditional};
	cparams.conditional.handle = h;
	cparams.conditional.type = cudaGraphCondTypeWhile;
	cparams.conditional.size = 1;
	cudaGraphNode_t loop;
	CHECK(cudaGraphAddNode(&loop, wg, NULL, NULL, 0, &cparams));
	cudaGraph_t body = cparams.conditional.phGraph_out[0];
	cudaStream_t bs;
	CHECK(cudaStreamCreate(&bs));
	CHECK(cudaStreamBeginCaptureToGraph(bs, body, NULL, NULL, 0, cudaStreamCaptureModeGlobal));
	countDown<<<1, 1, 0, bs>>>(counter, h);
	CHECK(cudaStreamEndCapture(bs, NULL));
	cudaGraphExec_t wx;
	CHECK(cudaGraphInstantiate(&wx, wg, 0));
	int three = 3;
	CHECK(cudaMemcpy(counter, &three, sizeof(int), cudaMemcpyHostToDevice));
	printf(" while, from 3:\n");
	CHECK(cudaGraphLaunch(wx, s1));
	CHECK(cudaStreamSynchronize(s1));

	cudaGraph_t swg;
	CHECK(cudaGraphCreate(&swg, 0));
	cudaGraphConditionalHandle sh;
	CHECK(cudaGraphConditionalHandleCreate(&sh, swg, 0, 0));
	int *dval;
	CHECK(cudaMalloc(&dval, sizeof(int)));
	void *chargs[] = {&dval, &sh};
	cudaGraphNodeParams kparams = {cudaGraphNodeTypeKernel};
	kparams.kernel.func = (void *)choose;
	kparams.kernel.gridDim = dim3(1);
	kparams.kernel.blockDim = dim3(1);
	kparams.kernel.kernelParams = chargs;
	cudaGraphNode_t chooser, sw, ifnode;
	CHECK(cudaGraphAddNode(&chooser, swg, NULL, NULL, 0, &kparams));
	cudaGraphNodeParams swp = {cudaGraphNodeTypeConditional};
	swp.conditional.handle = sh;
	swp.conditional.type = cudaGraphCondTypeSwitch;
	swp.conditional.size = 3;
	CHECK(cudaGraphAddNode(&sw, swg, &chooser, NULL, 1, &swp));
	// a handle drives one conditional node: the if node needs its own, set by its own kernel
	cudaGraphNodeParams ifp = {cudaGraphNodeTypeConditional};
	ifp.conditional.handle = sh;
	ifp.conditional.type = cudaGraphCondTypeIf;
	ifp.conditional.size = 2;
	printf(" a second node on the switch's handle: %s\n",
	       cudaGetErrorName(cudaGraphAddNode(&ifnode, swg, &sw, NULL, 1, &ifp)));
	cudaGetLastError();
	cudaGraphConditionalHandle ih;
	CHECK(cudaGraphConditionalHandleCreate(&ih, swg, 0, 0));
	void *ifargs[] = {&dval, &ih};
	kparams.kernel.kernelParams = ifargs;
	cudaGraphNode_t ifchooser;
	CHECK(cudaGraphAddNode(&ifchooser, swg, &sw, NULL, 1, &kparams));
	ifp.conditional.handle = ih;
	CHECK(cudaGraphAddNode(&ifnode, swg, &ifchooser, NULL, 1, &ifp));
	for (int k = 0; k < 3; k++) {
		int which = k;
		void *a1[] = {&which};
		cudaKernelNodeParams sayp = {0};
		sayp.func = (void *)say;
		sayp.gridDim = dim3(1);
		sayp.blockDim = dim3(1);
		sayp.kernelParams = a1;
		cudaGraphNode_t bn;
		CHECK(cudaGraphAddKernelNode(&bn, swp.conditional.phGraph_out[k], NULL, 0, &sayp));
		if (k < 2) {
			which = 10 + (1 - k); // if: body 0 when nonzero, body 1 (else) when zero
			CHECK(cudaGraphAddKernelNode(&bn, ifp.conditional.phGraph_out[k], NULL, 0, &sayp));
		}
	}
	cudaGraphExec_t swx;
	CHECK(cudaGraphInstantiate(&swx, swg, 0));
	for (int v = 0; v < 4; v++) {
		CHECK(cudaMemcpy(dval, &v, sizeof(int), cudaMemcpyHostToDevice));
		printf(" switch and if on %d:\n", v);
		CHECK(cudaGraphLaunch(swx, s1));
		CHECK(cudaStreamSynchronize(s1));
	}
	CHECK(cudaGraphExecDestroy(swx));
	CHECK(cudaGraphDestroy(swg));
	CHECK(cudaGraphExecDestroy(wx));
	CHECK(cudaGraphDestroy(wg));

	// ---- the default memory pool
	printf("memory pools\n");
	int pools = 0;
	CHECK(cudaDeviceGetAttribute(&pools, cudaDevAttrMemoryPoolsSupported, 0));
	cudaMemPool_t pool, current;
	CHECK(cudaDeviceGetDefaultMemPool(&pool, 0));
	CHECK(cudaDeviceGetMemPool(&current, 0));
	unsigned long long threshold = ~0ull, got = 0;
	CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold));
	CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &got));
	int follow = -1;
	CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolReuseFollowEventDependencies, &follow));
	float *pa;
	CHECK(cudaMallocFromPoolAsync((void **)&pa, 1 << 20, pool, s1));
	unsigned long long inUse = 0;
	CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &inUse));
	CHECK(cudaFreeAsync(pa, s1));
	CHECK(cudaStreamSynchronize(s1));
	CHECK(cudaMemPoolTrimTo(pool, 0));
	printf("  supported %d, default is current %d, threshold read back %d, follows events %d, "
	       "in use while allocated %s\n", pools, pool == current, got == threshold, follow,
	       inUse >= (1 << 20) ? "at least 1 MiB" : "less");

	// ---- misused capture calls
	printf("errors\n");
	cudaGraph_t none;
	printf("  end of a capture never begun: %s\n", cudaGetErrorName(cudaStreamEndCapture(s2, &none)));
	cudaGetLastError();
	printf("  capture of the legacy stream: %s\n",
	       cudaGetErrorName(cudaStreamBeginCapture(0, cudaStreamCaptureModeGlobal)));
	cudaGetLastError();
	CHECK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
	printf("  a second capture of the same stream: %s\n",
	       cudaGetErrorName(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal)));
	cudaGetLastError();
	cudaError_t end = cudaStreamEndCapture(s1, &none);
	printf("  the end of that capture: %s\n", cudaGetErrorName(end));
	cudaGetLastError();
	if (end == cudaSuccess)
		CHECK(cudaGraphDestroy(none));
	CHECK(cudaStreamBeginCapture(s2, cudaStreamCaptureModeGlobal));
	CHECK(cudaStreamEndCapture(s2, &none));
	listNodes("  an empty capture", none);
	CHECK(cudaGraphDestroy(none));

	CHECK(cudaStreamDestroy(bs));
	CHECK(cudaStreamDestroy(s1));
	CHECK(cudaStreamDestroy(s2));
	CHECK(cudaFree(dx));
	CHECK(cudaFree(dy));
	CHECK(cudaFree(dsum));
	CHECK(cudaFree(counter));
	CHECK(cudaFree(dval));
	CHECK(cudaFreeHost(hx));
	free(hy);
	printf("done\n");
	return 0;
}
