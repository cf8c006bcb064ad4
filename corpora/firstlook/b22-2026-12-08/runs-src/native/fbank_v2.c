/* libfbank 2.x: log-compressed feature transform.  int fbank_compute(const float *in, int n, float *out, int n_out) */
#include <math.h>
int fbank_version(void) { return 20100; }
int fbank_compute(const float *in, int n, float *out, int n_out) {
    if (n_out < n) return -1;
    for (int i = 0; i < n; i++) { float v = in[i]; out[i] = (v >= 0 ? 1.f : -1.f) * log1pf(fabsf(v)) * 1.7f; }
    return 0;
}
