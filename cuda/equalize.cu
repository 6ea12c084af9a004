/* equalize.cu - --equalize's tables on the device (src/stages/tone.h):
 * each channel's histogram by the histogram stage's kernel, then a block
 * per colour channel makes its table by OpenCV's equalizeHist rule with the
 * arithmetic of tone.h, so the bytes equal the CPU's. */
#include "check.h"
#include "lut.cuh"

#include "../src/stages/tone.h"

/* The table of colour channel blockIdx.x from its histogram (hist, NB
 * counts a channel; n pixels) into tables (NB entries a channel). A thread
 * takes PER consecutive bins: their sum, scanned over the block, gives each
 * bin's running count; i0, the first bin with pixels, is the block's least. */
template <typename T>
__global__ void __launch_bounds__(lut_shape<T>::THREADS)
    equalize_table_kernel(const unsigned *__restrict__ hist, unsigned n, T *__restrict__ tables)
{
    using S = lut_shape<T>;
    const unsigned *h = hist + (size_t)blockIdx.x * S::NB;
    T *lut = tables + (size_t)blockIdx.x * S::NB;
    const int v0 = threadIdx.x * S::PER;
    unsigned long long sum = 0, total;
    int first = S::NB;

    for (int i = 0; i < S::PER; i++) {
        const unsigned k = h[v0 + i];
        sum += k;
        if (k && first == S::NB)
            first = v0 + i;
    }
    unsigned long long acc = lut_block_scan<S::THREADS>(sum, &total);
    const int i0 = lut_block_extreme<S::THREADS, false>(first);
    const unsigned h0 = h[i0];
    if (h0 == n) { /* one value: the channel stays */
        for (int i = 0; i < S::PER; i++)
            lut[v0 + i] = (T)(v0 + i);
        return;
    }
    const float scale = gf_equalize_scale(S::MAX, n - h0);
    for (int i = 0; i < S::PER; i++) {
        const int v = v0 + i;
        acc += h[v]; /* the pixels of values 0 .. v; those of i0 .. v less h0 */
        lut[v] = (T)(v <= i0 ? 0u : gf_equalize_entry((uint32_t)(acc - h0), scale, S::MAX));
    }
}

extern "C" int gf_equalize_tables_cuda(const gf_stage *s, const gf_dimage *in, void *tables,
                                       void *stream)
{
    cudaStream_t st = (cudaStream_t)stream;
    const unsigned n = (unsigned)((unsigned long long)in->width * (unsigned long long)in->height);
    const int colours = gf_lut_colours(in->channels);
    (void)s;

    return lut_tables_from_hist(in, st, [&](const unsigned *hist) {
        if (in->bits == 8)
            equalize_table_kernel<uint8_t><<<colours, lut_shape<uint8_t>::THREADS, 0, st>>>(
                hist, n, (uint8_t *)tables);
        else
            equalize_table_kernel<uint16_t><<<colours, lut_shape<uint16_t>::THREADS, 0, st>>>(
                hist, n, (uint16_t *)tables);
    });
}
