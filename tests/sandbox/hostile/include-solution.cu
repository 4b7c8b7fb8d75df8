// Hostile: the whole submission is the lab's solution, included by a path out of its
// folder (a relative one: the test makes an absolute one too).
#include "../../../kernels/01-vecadd/solution.cu"
