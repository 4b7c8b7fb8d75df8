// Shared by the whole-program tests: the error-checking macro textbook programs use.
// Results go to stdout (compared with the expected file), timings to stderr.
#pragma once
#include <cstdio>
#include <cstdlib>
#include <climits>

#define CHECK(call)                                                                    \
	do {                                                                           \
		cudaError_t err_ = (call);                                             \
		if (err_ != cudaSuccess) {                                             \
			printf("CUDA error at %s:%d: %s (%s)\n", __FILE__, __LINE__,    \
			       cudaGetErrorString(err_), cudaGetErrorName(err_));      \
			exit(1);                                                       \
		}                                                                      \
	} while (0)

// Times a block of GPU work with events; the time goes to stderr only.
struct GpuTimer {
	cudaEvent_t start, stop;
	GpuTimer() { CHECK(cudaEventCreate(&start)); CHECK(cudaEventCreate(&stop)); }
	~GpuTimer() { cudaEventDestroy(start); cudaEventDestroy(stop); }
	void begin() { CHECK(cudaEventRecord(start, 0)); }
	void end(const char *what) {
		CHECK(cudaEventRecord(stop, 0));
		CHECK(cudaEventSynchronize(stop));
		float ms = 0;
		CHECK(cudaEventElapsedTime(&ms, start, stop));
		fprintf(stderr, "time %s: %.3f ms\n", what, ms);
	}
};
