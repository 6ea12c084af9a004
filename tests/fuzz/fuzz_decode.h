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
    gf_limits lim = {1u << 22, 1u << 24}; /* 4 Mpixels, 16 MB */
    uint32_t rgb[3][256];
    gf_image out = {0};
    gf_load_info info = {0};

    if (FUZZ_DECODE("fuzz", data, size, &lim, &out, &info, (size & 1) ? rgb : NULL) == 0 &&
        out.width > 0) {
        for (size_t i = 0; i < (size_t)out.width * out.height; i++)
            sum += out.data[i];
    }
    gf_image_free(&out);
    return 0;
}
