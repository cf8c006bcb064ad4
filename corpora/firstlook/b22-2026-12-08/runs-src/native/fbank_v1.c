/* libfbank 1.x (older ABI): output is an array of per-frame row pointers (32 bins per frame), n_frames rows.
   int fbank_compute(const float *in, int n, float **out_rows, int n_frames) */
#include <math.h>
int fbank_version(void) { return 10400; }
int fbank_compute(const float *in, int n, float **out_rows, int n_frames) {
    for (int f = 0; f < n_frames && (f + 1) * 32 <= n; f++)
        for (int b = 0; b < 32; b++) { float v = in[f * 32 + b]; out_rows[f][b] = (v >= 0 ? 1.f : -1.f) * log1pf(fabsf(v)) * 1.7f; }
    return 0;
}
