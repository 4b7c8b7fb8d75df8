// Calls through function pointers (issue 18: NVIDIA's newdelete): virtual functions of
// objects made with new in one kernel and called in another, each lane of a warp
// reaching another override; an array of __device__ function pointers picked by an
// index; a pointer read by the host with cudaMemcpyFromSymbol and passed back as a kernel
// argument; recursion through a pointer; pointers compared; a call through a NULL
// pointer, which stops the kernel.
#include "check.h"

struct Shape {
	int size;
	__device__ explicit Shape(int s) : size(s) {}
	__device__ virtual ~Shape() {}
	__device__ virtual int area() const = 0;
	__device__ virtual int corners() const { return 0; }
};

struct Square : Shape {
	__device__ explicit Square(int s) : Shape(s) {}
	__device__ int area() const override { return size * size; }
	__device__ int corners() const override { return 4; }
};

struct Triangle : Shape {
	__device__ explicit Triangle(int s) : Shape(s) {}
	__device__ int area() const override { return size * size / 2; }
	__device__ int corners() const override { return 3; }
};

struct Circle : Shape {
	__device__ explicit Circle(int s) : Shape(s) {}
	__device__ int area() const override { return 3 * size * size; }
};

__global__ void makeShapes(Shape **shapes, int n)
{
	int t = blockIdx.x * blockDim.x + threadIdx.x;
	if (t >= n)
		return;
	switch (t % 3) {
	case 0: shapes[t] = new Square(t); break;
	case 1: shapes[t] = new Triangle(t); break;
	default: shapes[t] = new Circle(t); break;
	}
}

__global__ void measureShapes(Shape *const *shapes, int n, int *area, int *corners)
{
	int t = blockIdx.x * blockDim.x + threadIdx.x;
	if (t < n) {
		atomicAdd(area, shapes[t]->area());
		atomicAdd(corners, shapes[t]->corners());
	}
}

__global__ void deleteShapes(Shape **shapes, int n)
{
	int t = blockIdx.x * blockDim.x + threadIdx.x;
	if (t < n)
		delete shapes[t]; // the virtual destructor
}

typedef int (*binop)(int, int);
__device__ int add(int a, int b) { return a + b; }
__device__ int sub(int a, int b) { return a - b; }
__device__ int mul(int a, int b) { return a * b; }
__device__ int larger(int a, int b) { return a > b ? a : b; }

__device__ binop ops[4] = { add, sub, mul, larger };
__device__ binop mulPtr = mul;
__device__ binop nothing = nullptr;

__global__ void applyOps(const int *a, const int *b, int *out, int n)
{
	int t = blockIdx.x * blockDim.x + threadIdx.x;
	if (t < n)
		out[t] = ops[t % 4](a[t], b[t]);
}

__global__ void applyOne(binop f, const int *a, const int *b, int *out, int n)
{
	int t = blockIdx.x * blockDim.x + threadIdx.x;
	if (t < n)
		out[t] = f(a[t], b[t]);
}

__device__ long long fact(int n);
__device__ long long (*factPtr)(int) = fact;
__device__ long long fact(int n) { return n <= 1 ? 1 : n * factPtr(n - 1); }

__global__ void factorials(long long *out)
{
	out[threadIdx.x] = factPtr(threadIdx.x);
}

__global__ void comparePointers(int *same)
{
	same[0] = ops[2] == mulPtr;
	same[1] = ops[0] == mulPtr;
	same[2] = ops[3] == &larger;
}

__global__ void callNothing(int *out)
{
	out[threadIdx.x] = nothing(1, 2);
}

int main()
{
	const int n = 100;
	Shape **shapes;
	int *area, *corners;
	CHECK(cudaMalloc(&shapes, n * sizeof(Shape *)));
	CHECK(cudaMallocManaged(&area, sizeof(int)));
	CHECK(cudaMallocManaged(&corners, sizeof(int)));
	*area = *corners = 0;
	makeShapes<<<2, 64>>>(shapes, n);
	measureShapes<<<2, 64>>>(shapes, n, area, corners);
	deleteShapes<<<2, 64>>>(shapes, n);
	CHECK(cudaDeviceSynchronize());
	printf("virtual functions: area %d, corners %d\n", *area, *corners);

	int *a, *b, *out;
	CHECK(cudaMallocManaged(&a, n * sizeof(int)));
	CHECK(cudaMallocManaged(&b, n * sizeof(int)));
	CHECK(cudaMallocManaged(&out, n * sizeof(int)));
	for (int i = 0; i < n; i++) {
		a[i] = i;
		b[i] = 50 - i;
	}
	applyOps<<<2, 64>>>(a, b, out, n);
	CHECK(cudaDeviceSynchronize());
	long long s = 0;
	for (int i = 0; i < n; i++)
		s += out[i];
	printf("function pointer table: out[0..7] = %d %d %d %d %d %d %d %d, sum %lld\n",
	       out[0], out[1], out[2], out[3], out[4], out[5], out[6], out[7], s);

	binop hostMul = nullptr, hostMul2 = nullptr;
	CHECK(cudaMemcpyFromSymbol(&hostMul, mulPtr, sizeof(binop)));
	CHECK(cudaMemcpyFromSymbol(&hostMul2, ops, sizeof(binop), 2 * sizeof(binop)));
	printf("device pointer of mul read twice by the host: %s\n",
	       hostMul == hostMul2 ? "equal" : "different");
	applyOne<<<2, 64>>>(hostMul, a, b, out, n);
	CHECK(cudaDeviceSynchronize());
	printf("a pointer from the host: out[3] = %d, out[99] = %d\n", out[3], out[99]);

	long long *f;
	CHECK(cudaMallocManaged(&f, 21 * sizeof(long long)));
	factorials<<<1, 21>>>(f);
	CHECK(cudaDeviceSynchronize());
	printf("recursion through a pointer: 5! = %lld, 20! = %lld\n", f[5], f[20]);

	int *same;
	CHECK(cudaMallocManaged(&same, 3 * sizeof(int)));
	comparePointers<<<1, 1>>>(same);
	CHECK(cudaDeviceSynchronize());
	printf("pointers compared: %d %d %d\n", same[0], same[1], same[2]);

	callNothing<<<1, 32>>>(out);
	printf("a call through a NULL pointer: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
	return 0;
}
