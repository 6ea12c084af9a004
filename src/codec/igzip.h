/* igzip.h - where ISA-L's deflate stream lies, so that igzip's stateless
 * deflate at levels 1 and 2 gives the same bytes on every run (igzip.c says
 * why). Internal to src/codec (png.c). */
#ifndef GF_CODEC_IGZIP_H
#define GF_CODEC_IGZIP_H

#include <stddef.h>
#include <stdint.h>

#include <isa-l/igzip_lib.h>

/* A zeroed struct isal_zstream in its own mapping (host memory), placed for
 * deflating the n bytes at `in` (host memory; n may be below 6) from the
 * start of a stream. Tries at most GF_IGZIP_TRIES places, the first at
 * index `first` of a fixed sequence (0 in normal use; tests pick others to
 * move the struct). Returns NULL where none could be mapped, and always
 * in a ThreadSanitizer build: the caller then uses a struct of its own,
 * whose bytes may differ between runs.
 * Release it with gf_igzip_stream_free. */
#define GF_IGZIP_TRIES 64
struct isal_zstream *gf_igzip_stream(const unsigned char *in, size_t n, unsigned first);
void gf_igzip_stream_free(struct isal_zstream *z);

/* igzip's hash of a 32-bit word: CRC-32C from 0 with no final inversion,
 * as SSE4.2's crc32 instruction computes it; and the word that hashes to
 * h (each of the hash's 32 steps undone). */
uint32_t gf_igzip_hash(uint32_t v);
uint32_t gf_igzip_unhash(uint32_t h);

#endif
