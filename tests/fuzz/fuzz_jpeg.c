/* fuzz_jpeg.c - libFuzzer harness of the JPEG decoder (src/codec/jpeg.c), EXIF
 * orientation included. */
#define FUZZ_DECODE gf_decode_jpeg
#include "fuzz_decode.h"
