// cudaLaunchKernelEx, the extensible launch (thrust and cub launch through it): no
// attributes, hints that change nothing (priority, programmatic stream serialization),
// a cooperative grid that fits on any device and one that fits on none, and a launch
// completion event.
// A cluster launch is refused by the emulator and runs on a GPU, so its outcome goes to
// stderr.
#include "check.h"

__global__ void addOne(int *p, int n)
{
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
		p[i] += 1;
}

// Launches addOne over n elements with attrs; prints what came back and the number of
// elements that did not get exactly `want`.
static int launch(const char *what, cudaLaunchAttribute *attrs, unsigned nattrs, int *d, int n,
		  int *want, dim3 grid)
{
	cudaLaunchConfig_t cfg = {};
	cfg.gridDim = grid;
	cfg.blockDim = dim3(256);
	cfg.attrs = attrs;
	cfg.numAttrs = nattrs;
	cudaError_t e = cudaLaunchKernelEx(&cfg, addOne, d, n);
	cudaError_t s = cudaDeviceSynchronize();
	if (e == cudaSuccess)
		(*want)++;
	int *h = (int *)malloc(n * sizeof(int)), bad = 0;
	CHECK(cudaMemcpy(h, d, n * sizeof(int), cudaMemcpyDeviceToHost));
	for (int i = 0; i < n; i++)
		bad += h[i] != *want;
	free(h);
	printf("%s: %s, %s, %d bad\n", what, cudaGetErrorName(e), cudaGetErrorName(s), bad);
	cudaGetLastError();
	return bad != 0;
}

int main()
{
	const int n = 10000;
	int *d, want = 0, fail = 0;
	dim3 grid((n + 255) / 256);
	CHECK(cudaMalloc(&d, n * sizeof(int)));
	CHECK(cudaMemset(d, 0, n * sizeof(int)));
	fail |= launch("no attributes", NULL, 0, d, n, &want, grid);

	cudaLaunchAttribute hints[2];
	hints[0].id = cudaLaunchAttributePriority;
	hints[0].val.priority = 0;
	hints[1].id = cudaLaunchAttributeProgrammaticStreamSerialization;
	hints[1].val.programmaticStreamSerializationAllowed = 1;
	fail |= launch("priority + programmatic serialization", hints, 2, d, n, &want, grid);

	cudaLaunchAttribute coop;
	coop.id = cudaLaunchAttributeCooperative;
	coop.val.cooperative = 1;
	fail |= launch("cooperative, 1 block", &coop, 1, d, n, &want, dim3(1));
	fail |= launch("cooperative, 100000 blocks", &coop, 1, d, n, &want, dim3(100000));

	cudaEvent_t done;
	CHECK(cudaEventCreate(&done));
	cudaLaunchAttribute completion;
	completion.id = cudaLaunchAttributeLaunchCompletionEvent;
	completion.val.launchCompletionEvent.event = done;
	completion.val.launchCompletionEvent.flags = 0;
	fail |= launch("completion event", &completion, 1, d, n, &want, grid);
	printf("completion event: %s\n", cudaGetErrorName(cudaEventSynchronize(done)));

	cudaLaunchAttribute cluster;
	cluster.id = cudaLaunchAttributeClusterDimension;
	cluster.val.clusterDim.x = 2;
	cluster.val.clusterDim.y = 1;
	cluster.val.clusterDim.z = 1;
	cudaLaunchConfig_t cfg = {};
	cfg.gridDim = dim3(40);
	cfg.blockDim = dim3(256);
	cfg.attrs = &cluster;
	cfg.numAttrs = 1;
	cudaError_t e = cudaLaunchKernelEx(&cfg, addOne, d, n);
	fprintf(stderr, "cluster launch: %s\n", cudaGetErrorName(e));
	cudaGetLastError();
	CHECK(cudaDeviceSynchronize());
	printf("%s\n", fail ? "FAIL" : "PASS");
	return fail;
}
