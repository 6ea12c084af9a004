/* fuzz_png.c - libFuzzer harness of the PNG decoder (src/codec/png.c). */
#define FUZZ_DECODE gf_decode_png
#include "fuzz_decode.h"
