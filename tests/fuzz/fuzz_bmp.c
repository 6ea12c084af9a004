/* fuzz_bmp.c - libFuzzer harness of the BMP decoder (src/codec/bmp.c). */
#define FUZZ_DECODE gf_decode_bmp
#include "fuzz_decode.h"
