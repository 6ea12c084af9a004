/* igzip.c - a place for ISA-L's struct isal_zstream where its stateless
 * deflate at levels 1 and 2 gives the same bytes wherever the process's
 * memory lies.
 *
 * The cause. ISA-L's level 1 and 2 body (igzip/igzip_icf_body_h1_gr_bt.asm,
 * every x86-64 variant; the same in ISA-L 2.30 and 2.32) starts a stream
 * that has no history at .write_first_byte. There it should hash input
 * position 2 from the input's bytes 2-5, as the main loop does from a copy
 * of the data in tmp2 (rcx); but on that path rcx still holds the stream's
 * address (the function's argument), so position 2 is hashed from bits
 * 16-47 of the struct's address. It goes into another slot of the hash
 * table than its own, and the matches found after it, all valid, depend on
 * where the struct lies. With address-space layout randomisation, a PNG
 * of 1x43 pixels differed in about 1 run of 100, and a large image's
 * (each 1 MiB segment starts a stream) now and then.
 *
 * The fix. The struct goes where that hash lands in position 2's own
 * slot: at an address A, 64 KiB aligned, with
 *     hash(A >> 16) = hash(input bytes 2-5)  in the low 16 bits,
 * hash being igzip's (CRC-32C of a word). Every hash table igzip uses has
 * at most 65536 slots (its mask keeps at most those bits), so the body then
 * does what it was written to do, whichever such A it gets, and the bytes
 * depend on the input alone. hash is invertible (its steps run
 * backwards), so each try computes an A (free high 16 bits of the hash,
 * taken from a fixed sequence) and maps
 * the struct there with MAP_FIXED_NOREPLACE, which never replaces a
 * mapping; a taken or invalid address (kernel space, a sanitizer's shadow)
 * fails, and the next is tried. */
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "igzip.h"

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000 /* Linux 4.17; older kernels take it as a hint */
#endif

/* ThreadSanitizer's mmap turns an address outside its application ranges
 * into 0, keeps the flag, and ends the process when the kernel maps page 0
 * (as it does for root): under it the stream is not placed. */
#if defined(__SANITIZE_THREAD__)
#define GF_IGZIP_PLACE 0
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define GF_IGZIP_PLACE 0
#endif
#endif
#ifndef GF_IGZIP_PLACE
#define GF_IGZIP_PLACE 1
#endif

uint32_t gf_igzip_hash(uint32_t v)
{
    for (int i = 0; i < 32; i++)
        v = v >> 1 ^ (0x82f63b78u & (0u - (v & 1u))); /* CRC-32C, reflected */
    return v;
}

uint32_t gf_igzip_unhash(uint32_t h)
{
    /* each step of gf_igzip_hash backwards: the polynomial's top bit is set
     * and v >> 1's is not, so a step's top bit is the bit it shifted out */
    for (int i = 0; i < 32; i++)
        h = h >> 31 ? (h ^ 0x82f63b78u) << 1 | 1u : h << 1;
    return h;
}

static size_t stream_bytes(void)
{
    const size_t page = (size_t)sysconf(_SC_PAGESIZE);
    return (sizeof(struct isal_zstream) + page - 1) / page * page;
}

struct isal_zstream *gf_igzip_stream(const unsigned char *in, size_t n, unsigned first)
{
    if (!GF_IGZIP_PLACE)
        return NULL;
    uint32_t word = 0;
    for (size_t i = 2; i < 6 && i < n; i++)
        word |= (uint32_t)in[i] << 8 * (i - 2);
    const uint32_t low = gf_igzip_hash(word) & 0xffffu;
    const size_t len = stream_bytes();

    for (unsigned k = first; k < first + GF_IGZIP_TRIES; k++) {
        /* high halves spread over the 65536 (40503: odd, so k -> hi is one
         * to one), each giving another address */
        const uint32_t hi = (k * 40503u + 0x6a09u) & 0xffffu;
        const uintptr_t want = (uintptr_t)gf_igzip_unhash(hi << 16 | low) << 16;
        if (want < 0x10000u)
            continue;
        void *p = mmap((void *)want, len, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
        if (p == MAP_FAILED)
            continue;
        if ((uintptr_t)p == want)
            return p; /* fresh anonymous pages: zeroed */
        munmap(p, len); /* a kernel that took the flag as a hint */
    }
    return NULL;
}

void gf_igzip_stream_free(struct isal_zstream *z)
{
    if (z)
        munmap(z, stream_bytes());
}
