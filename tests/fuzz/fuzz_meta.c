/* fuzz_meta.c - libFuzzer harness of the metadata checks (src/codec/meta.c)
 * and JPEG's segment writer: the fuzzer's bytes as an EXIF blob (its
 * Orientation read, rewritten to every value, the check and the copy
 * kept), as an ICC profile (the check, the copy, the colour-space fit), and
 * as a "JPEG" that gf_jpeg_add_meta splices what was kept into. Each call
 * gets an exact copy, so a read or write past the end shows. Any crash,
 * sanitizer report or leak is a finding. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/codec/meta.h"

static volatile int sink;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    unsigned char *t = malloc(size ? size : 1), *jpeg;
    gf_meta m = {0};
    size_t len = size;

    if (!t)
        return 0;
    memcpy(t, data, size);
    sink += gf_exif_orientation(t, size);
    for (int v = 1; v <= 8; v++)
        if (gf_exif_set_orientation(t, size, v) && gf_exif_orientation(t, size) != v)
            abort(); /* a rewrite that does not read back */
    sink += gf_exif_check(t, size) != NULL;
    sink += gf_icc_check(t, size) != NULL;
    sink += gf_exif_orientation_or_1(data, size);
    if (gf_meta_keep_exif(&m, "fuzz", data, size) == 0 && m.exif &&
        gf_exif_check(m.exif, m.exif_len))
        abort(); /* kept what the check refuses */
    if (gf_meta_keep_icc(&m, "fuzz", data, size) == 0 && m.icc &&
        gf_icc_check(m.icc, m.icc_len))
        abort();
    gf_meta_prepare(&m, 1 + (int)(size % 4), (int)(size & 1));
    memcpy(t, data, size);
    jpeg = t;
    if (gf_jpeg_add_meta(&jpeg, &len, &m, "fuzz") == 0)
        t = jpeg;
    free(t);
    gf_meta_free(&m);
    return 0;
}
