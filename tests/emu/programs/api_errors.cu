// Prints the code the CUDA runtime returns for each misuse a student makes, one line
// each, so the output on a GPU and on the emulator can be diffed. Deterministic: no
// pointers, no timings. Ends with a faulting kernel (sticky error) and a reset.
#include <cstdio>
#include <cstdlib>

static void show(const char *what, cudaError_t e)
{
	printf("%-48s %3d %s\n", what, (int)e, cudaGetErrorName(e));
}

__global__ void noop(int *p)
{
	if (p)
		p[threadIdx.x % 64] = 1; // stays inside the 256-byte allocation
}

__global__ void bigShared(int *p)
{
	__shared__ int s[256];
	extern __shared__ int dyn[];
	s[threadIdx.x] = threadIdx.x;
	dyn[threadIdx.x] = 1;
	__syncthreads();
	p[threadIdx.x % 64] = s[255 - threadIdx.x] + dyn[0];
}

__global__ void wildWrite(int *p)
{
	p[threadIdx.x + (1 << 28)] = 7; // 1 GiB past the allocation
}

__device__ int devVar[16];

static void launchCase(const char *what, dim3 g, dim3 b, size_t shmem, int *arg)
{
	noop<<<g, b, shmem>>>(arg);
	cudaError_t peek = cudaPeekAtLastError();
	cudaError_t last = cudaGetLastError();
	cudaError_t again = cudaGetLastError();
	cudaError_t sync = cudaDeviceSynchronize();
	char line[128];
	snprintf(line, sizeof line, "%s: peek", what);
	show(line, peek);
	snprintf(line, sizeof line, "%s: getlast", what);
	show(line, last);
	snprintf(line, sizeof line, "%s: getlast again", what);
	show(line, again);
	snprintf(line, sizeof line, "%s: sync", what);
	show(line, sync);
}

int main()
{
	int *d = NULL, *d2 = NULL;
	int host[64] = {0};
	int *heap = (int *)malloc(256);
	show("cudaMalloc 256 B", cudaMalloc(&d, 256));
	show("cudaMalloc 1 PiB", cudaMalloc(&d2, (size_t)1 << 50));
	show("getlast after failed malloc", cudaGetLastError());
	show("getlast again", cudaGetLastError());

	show("memcpy H2D ok", cudaMemcpy(d, host, 256, cudaMemcpyHostToDevice));
	show("memcpy H2D, dst is a host pointer", cudaMemcpy(heap, host, 256, cudaMemcpyHostToDevice));
	show("memcpy D2H, src is a host pointer", cudaMemcpy(host, heap, 256, cudaMemcpyDeviceToHost));
	show("memcpy D2H, dst is a device pointer", cudaMemcpy(d, d, 256, cudaMemcpyDeviceToHost));
	show("memcpy H2D, src is a device pointer", cudaMemcpy(d, d, 256, cudaMemcpyHostToDevice));
	show("memcpy D2H past the end (512 of 256 B)", cudaMemcpy(host, d, 512, cudaMemcpyDeviceToHost));
	show("memcpy bad kind 7", cudaMemcpy(d, host, 256, (cudaMemcpyKind)7));
	show("memcpy NULL dst", cudaMemcpy(NULL, host, 256, cudaMemcpyHostToDevice));
	show("memcpy 0 bytes, host dst", cudaMemcpy(heap, host, 0, cudaMemcpyHostToDevice));
	show("memset on a host pointer", cudaMemset(heap, 0, 256));
	show("memset past the end", cudaMemset(d, 0, 1024));
	show("getlast", cudaGetLastError());

	show("memcpyToSymbol ok", cudaMemcpyToSymbol(devVar, host, 64));
	show("memcpyToSymbol past the end", cudaMemcpyToSymbol(devVar, host, 64, 16));
	show("memcpyToSymbol of a non-symbol", cudaMemcpyToSymbol(heap, host, 4));
	show("memcpyFromSymbol ok", cudaMemcpyFromSymbol(host, devVar, 64));
	show("getlast", cudaGetLastError());

	show("free host (malloc) pointer", cudaFree(heap));
	show("free stack pointer", cudaFree(host));
	show("free interior pointer", cudaFree(d + 4));
	int *d3 = NULL;
	cudaMalloc(&d3, 64);
	show("free ok", cudaFree(d3));
	show("free again (double free)", cudaFree(d3));
	show("free NULL", cudaFree(NULL));
	show("freeHost of a device pointer", cudaFreeHost(d));
	show("getlast", cudaGetLastError());

	show("setDevice 7", cudaSetDevice(7));
	cudaDeviceProp prop;
	show("getDeviceProperties 7", cudaGetDeviceProperties(&prop, 7));
	int v;
	show("deviceGetAttribute device 7", cudaDeviceGetAttribute(&v, cudaDevAttrWarpSize, 7));
	show("getlast", cudaGetLastError());

	cudaEvent_t e1, e2;
	cudaEventCreate(&e1);
	cudaEventCreate(&e2);
	float ms;
	cudaEventRecord(e1);
	show("elapsed, stop event never recorded", cudaEventElapsedTime(&ms, e1, e2));
	show("getlast", cudaGetLastError());

	launchCase("launch <<<1,256>>>", dim3(1), dim3(256), 0, d);
	launchCase("launch <<<1,2048>>>", dim3(1), dim3(2048), 0, NULL);
	launchCase("launch <<<1,(32,64)>>> 2048 threads", dim3(1), dim3(32, 64), 0, NULL);
	launchCase("launch <<<1,(1,1,128)>>> z>64", dim3(1), dim3(1, 1, 128), 0, NULL);
	launchCase("launch <<<1,(1,2048)>>>", dim3(1), dim3(1, 2048), 0, NULL);
	launchCase("launch <<<0,32>>>", dim3(0), dim3(32), 0, NULL);
	launchCase("launch <<<(1,70000),32>>>", dim3(1, 70000), dim3(32), 0, NULL);
	launchCase("launch <<<1,32,64KiB>>>", dim3(1), dim3(32), 64 * 1024, NULL);
	bigShared<<<1, 256, 48 * 1024>>>(d);
	show("launch static 1KiB + dynamic 48KiB: getlast", cudaGetLastError());
	show("cudaLaunchKernel 2048 threads", cudaLaunchKernel((const void *)noop, dim3(1), dim3(2048), (void **)&d, 0, 0));
	show("getlast", cudaGetLastError());

	int *zero = (int *)1;
	show("cudaMalloc 0 bytes", cudaMalloc(&zero, 0));
	printf("%-48s %s\n", "cudaMalloc 0 bytes gives NULL", zero == NULL ? "yes" : "no");
	cudaFree(zero);
	int *pinned = NULL;
	show("cudaMallocHost", cudaMallocHost(&pinned, 256));
	show("memcpy D2H into pinned memory", cudaMemcpy(pinned, d, 256, cudaMemcpyDeviceToHost));
	show("free of a cudaMallocHost pointer", cudaFree(pinned));
	show("freeHost of a malloc pointer", cudaFreeHost(heap));
	show("freeHost ok", cudaFreeHost(pinned));
	show("mallocManaged flags 0", cudaMallocManaged(&d2, 64, 0));
	show("getlast", cudaGetLastError());
	cudaEvent_t nt;
	cudaEventCreateWithFlags(&nt, cudaEventDisableTiming);
	cudaEventRecord(nt);
	cudaEventRecord(e2);
	cudaEventSynchronize(e2);
	show("elapsed with a DisableTiming event", cudaEventElapsedTime(&ms, e1, nt));
	show("elapsed ok", cudaEventElapsedTime(&ms, e1, e2));
	show("streamDestroy(0)", cudaStreamDestroy(0));
	show("memcpyToSymbol kind D2H", cudaMemcpyToSymbol(devVar, host, 4, 0, cudaMemcpyDeviceToHost));
	show("cudaLaunchKernel of a host function", cudaLaunchKernel((const void *)show, dim3(1), dim3(1), NULL, 0, 0));
	cudaFuncAttributes fattr;
	show("funcGetAttributes of a host function", cudaFuncGetAttributes(&fattr, (const void *)show));
	int nb = -1;
	show("occupancy blockSize 0", cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb, noop, 0, 0));
	show("occupancy blockSize 2048", cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb, noop, 2048, 0));
	printf("%-48s %d\n", "occupancy blockSize 2048 gives", nb);
	cudaPointerAttributes pa;
	show("pointerGetAttributes of a stack pointer", cudaPointerGetAttributes(&pa, host));
	printf("%-48s %d %d\n", "  type, device", (int)pa.type, pa.device);
	show("pointerGetAttributes of a device pointer", cudaPointerGetAttributes(&pa, d));
	printf("%-48s %d %d %s\n", "  type, device, hostPointer", (int)pa.type, pa.device, pa.hostPointer ? "set" : "NULL");
	show("hostRegister", cudaHostRegister(host, sizeof host, 0));
	show("hostRegister again", cudaHostRegister(host, sizeof host, 0));
	show("hostUnregister", cudaHostUnregister(host));
	show("hostUnregister again", cudaHostUnregister(host));
	show("getlast", cudaGetLastError());

	int *big = NULL;
	cudaMalloc(&big, 1024);
	wildWrite<<<1, 32>>>(big);
	show("faulting kernel: sync", cudaDeviceSynchronize());
	show("faulting kernel: getlast", cudaGetLastError());
	show("faulting kernel: getlast again", cudaGetLastError());
	show("faulting kernel: peek", cudaPeekAtLastError());
	show("after fault: malloc", cudaMalloc(&d2, 64));
	show("after fault: memcpy", cudaMemcpy(host, d, 64, cudaMemcpyDeviceToHost));
	int count = -1;
	show("after fault: getDeviceCount", cudaGetDeviceCount(&count));
	show("after fault: getDeviceProperties", cudaGetDeviceProperties(&prop, 0));
	noop<<<1, 32>>>(d);
	show("after fault: launch, getlast", cudaGetLastError());
	show("deviceReset", cudaDeviceReset());
	show("after reset: getlast", cudaGetLastError());
	show("after reset: malloc", cudaMalloc(&d2, 64));
	show("after reset: memcpy", cudaMemcpy(host, d2, 64, cudaMemcpyDeviceToHost));
	show("error string of 12345 (name)", cudaSuccess);
	printf("%s | %s\n", cudaGetErrorName((cudaError_t)12345), cudaGetErrorString((cudaError_t)12345));
	printf("%s | %s\n", cudaGetErrorName(cudaErrorIllegalAddress), cudaGetErrorString(cudaErrorIllegalAddress));
	free(heap);
	return 0;
}
