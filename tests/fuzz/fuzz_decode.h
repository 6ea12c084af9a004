/* fuzz_decode.h - the body of the format harnesses: one decoder of
 * src/codec/ on the fuzzer's bytes, with tight limits so that inputs explore
 * the parsers rather than allocate gigabytes. FUZZ_DECODE names the decoder.
 * Any crash, sanitizer report or leak is a finding; an error return is
 * not. */
#include <stdint.h>
#include <stdlib.h>

#include "../../src/codec/formats.h"

static volatile unsigned sum; /* every output byte is read: one out of bounds shows */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* 4 Mpixels, a 16 MB file, a 64 MB image (4 Mpixels of RGBA 16-bit) */
    gf_limits lim = {1u << 22, 1u << 24, 1u << 26};
    gf_image out = {0};
    gf_load_info info = {0};

    /* odd sizes ask for the luma alone (JPEG's Y; the other formats ignore
     * it), sizes with bit 1 set for the metadata too */
    const int flags = ((size & 1) ? GF_DECODE_LUMA : 0) | ((size & 2) ? GF_DECODE_META : 0);
    if (FUZZ_DECODE("fuzz", data, size, &lim, flags, &out, &info) == 0 && out.width > 0) {
        const size_t row = (size_t)out.width * GF_PIXEL_BYTES(out.channels, out.bits);
        for (int y = 0; y < out.height; y++)
            for (size_t i = 0; i < row; i++)
                sum += out.data[(size_t)y * out.stride + i];
    }
    gf_image_free(&out);
    gf_meta_free(&info.meta); /* kept, or left by a decoder that failed after reading it */
    return 0;
}
