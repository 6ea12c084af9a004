/* fuzz_webp.c - libFuzzer harness of the WebP decoder (src/codec/webp.c). */
#define FUZZ_DECODE gf_decode_webp
#include "fuzz_decode.h"
