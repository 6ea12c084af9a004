/* fuzz_meta.c - libFuzzer harness of the metadata checks (src/codec/meta.c)
 * and JPEG's segment writer: the fuzzer's bytes as an EXIF blob (its
 * Orientation read, rewritten to every value, the check and the copy
 * kept; its directories parsed, built again and parsed back to as many
 * entries; what was kept written into a 1x1 TIFF's EXIF directories and
 * read back), as an ICC profile (the check, the copy, the colour-space
 * fit), and as a "JPEG" that gf_jpeg_add_meta splices what was kept into.
 * Each call gets an exact copy, so a read or write past the end shows. Any
 * crash, sanitizer report or leak is a finding. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/codec/codec.h"
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
    if (m.exif) {
        gf_exif_dirs *a = malloc(sizeof *a), *b = malloc(sizeof *b);
        unsigned char *built, *tiff;
        size_t bn, tn;
        if (a && b && !gf_exif_parse(m.exif, m.exif_len, a) && (built = gf_exif_build(a, &bn))) {
            if (gf_exif_parse(built, bn, b) || b->n[GF_EXIF_EXIF] > a->n[GF_EXIF_EXIF] ||
                b->n[GF_EXIF_GPS] > a->n[GF_EXIF_GPS])
                abort(); /* built what does not parse back, or more than there was */
            free(built);
        }
        free(a);
        free(b);
        /* into a TIFF's EXIF directories (libtiff) and back */
        unsigned char px[3] = {1, 2, 3};
        gf_image im = {1, 1, 3, 8, 3, px};
        gf_encode_opts o = {.format = GF_FMT_TIFF, .meta = &m, .name = "fuzz"};
        gf_limits lim = {1 << 20, 1 << 20, 1 << 22, 0, 0, 0};
        gf_image back;
        gf_load_info info;
        if (gf_encode(&im, &o, &tiff, &tn) == 0) {
            if (gf_decode("fuzz", tiff, tn, &lim, GF_DECODE_META, &back, &info) == 0) {
                gf_image_free(&back);
                gf_meta_free(&info.meta);
            }
            free(tiff);
        }
    }
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
