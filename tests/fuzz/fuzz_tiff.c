/* fuzz_tiff.c - libFuzzer harness of the TIFF decoder (src/codec/tiff.c,
 * libtiff from memory). */
#define FUZZ_DECODE gf_decode_tiff
#include "fuzz_decode.h"
