// The fast-math intrinsics (the simulator computes them precisely; printed to 3 places).
#include "common.h"

__global__ void fast(float *r)
{
    float x = 0.5f, s, c;
    r[0] = __expf(x);
    r[1] = __logf(x);
    r[2] = __sinf(x);
    r[3] = __cosf(x);
    r[4] = __powf(x, 3.0f);
    r[5] = __fdividef(1.0f, 3.0f);
    r[6] = __saturatef(1.5f) + __saturatef(-1.0f) + __saturatef(x);
    r[7] = __exp10f(x);
    r[8] = __log2f(x);
    r[9] = __log10f(x);
    r[10] = __tanf(x);
    __sincosf(x, &s, &c);
    r[11] = s * s + c * c;
}

int main(void)
{
    float *dr, r[12];
    CHECK(cudaMalloc(&dr, sizeof r));
    fast<<<1, 1>>>(dr);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(r, dr, sizeof r, cudaMemcpyDeviceToHost));
    for (int i = 0; i < 12; i++) printf("%s%.3f", i ? " " : "", r[i]);
    printf("\n");
    CHECK(cudaFree(dr));
    return 0;
}
