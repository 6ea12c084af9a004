/* fuzz_pnm.c - libFuzzer harness of the PNM decoder (src/codec/pnm.c). */
#define FUZZ_DECODE gf_decode_pnm
#include "fuzz_decode.h"
