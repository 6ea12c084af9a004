/* test_igzip.c - igzip.c: its hash is CRC-32C of a word and its inverse
 * undoes it; igzip's stateless deflate at levels 1 and 2 writes the same
 * bytes with the stream at any place gf_igzip_stream gives, on random
 * inputs, and those bytes inflate (zlib) to the input; the PNG of the 1x43
 * image whose bytes once differed between runs is the same at every
 * place, against independently mapped places that show the bug. */
#include "common.h"

#include <sys/mman.h>
#include <zlib.h>

#include "../../src/codec/igzip.h"

#define PLACES 6

/* CRC-32C of a word from 0, bit by bit, from its definition: the message's
 * 32 bits, least significant first, times x^32, modulo the Castagnoli
 * polynomial 0x1EDC6F41, the remainder read bit-reversed. */
static uint32_t crc32c_poly(uint32_t v)
{
    uint64_t r = 0; /* polynomial remainder, bit i = x^i */
    for (int i = 0; i < 32; i++)
        if (v >> i & 1)
            r ^= 1ull << (63 - i); /* message bit i (first in) is x^(31-i), times x^32 */
    for (int d = 63; d >= 32; d--)
        if (r >> d & 1)
            r ^= (0x11edc6f41ull) << (d - 32);
    uint32_t out = 0;
    for (int i = 0; i < 32; i++)
        if (r >> i & 1)
            out |= 1u << (31 - i);
    return out;
}

static void test_hash(void **state)
{
    (void)state;
    for (int t = 0; t < 20000; t++) {
        uint32_t v = test_rand() ^ (uint32_t)test_rand() << 16;
        assert_int_equal(gf_igzip_hash(v), crc32c_poly(v));
        assert_int_equal(gf_igzip_hash(gf_igzip_unhash(v)), v);
        assert_int_equal(gf_igzip_unhash(gf_igzip_hash(v)), v);
    }
}

/* in[0, n) deflated raw by igzip at `level` (one final block's stream) with
 * the stream at z; returns the length in out. */
static size_t deflate_at(struct isal_zstream *z, const unsigned char *in, size_t n, int level,
                         unsigned char *out, size_t cap)
{
    unsigned char *lb = calloc(1, ISAL_DEF_LVL2_DEFAULT);
    assert_non_null(lb);
    memset(z, 0, sizeof *z);
    isal_deflate_stateless_init(z);
    z->next_in = (uint8_t *)(uintptr_t)in;
    z->avail_in = (uint32_t)n;
    z->next_out = out;
    z->avail_out = (uint32_t)cap;
    z->level = (uint32_t)level;
    z->level_buf = lb;
    z->level_buf_size = level == 1 ? ISAL_DEF_LVL1_DEFAULT : ISAL_DEF_LVL2_DEFAULT;
    z->gzip_flag = IGZIP_DEFLATE;
    z->end_of_stream = 1;
    z->flush = NO_FLUSH;
    assert_int_equal(isal_deflate_stateless(z), COMP_OK);
    free(lb);
    return z->total_out;
}

static void assert_inflates_to(const unsigned char *z, size_t zn, const unsigned char *in, size_t n)
{
    unsigned char *back = malloc(n + 1);
    z_stream s = {0};
    assert_non_null(back);
    assert_int_equal(inflateInit2(&s, -15), Z_OK);
    s.next_in = (unsigned char *)(uintptr_t)z;
    s.avail_in = (unsigned)zn;
    s.next_out = back;
    s.avail_out = (unsigned)n + 1;
    assert_int_equal(inflate(&s, Z_FINISH), Z_STREAM_END);
    assert_int_equal(s.total_out, n);
    assert_memory_equal(back, in, n);
    inflateEnd(&s);
    free(back);
}

static void test_same_bytes_anywhere(void **state)
{
    (void)state;
    for (int t = 0; t < 240; t++) {
        const size_t n = 1 + test_rand() % 5000, cap = n + n / 8 + 1024;
        const int kind = t % 4, level = 1 + t / 4 % 2;
        unsigned char *in = malloc(n), *ref = malloc(cap), *out = malloc(cap);
        size_t refn = 0;
        assert_true(in && ref && out);
        for (size_t i = 0; i < n; i++) /* random, few values, short repeats, PNG-like rows */
            in[i] = (unsigned char)(kind == 0   ? test_rand()
                                    : kind == 1 ? 100 + test_rand() % 4
                                    : kind == 2 ? (i % 7) * (test_rand() % 2)
                                                : (i % 44 == 0 ? 3 : 70 + test_rand() % 3));
        for (unsigned p = 0; p < PLACES; p++) {
            struct isal_zstream *z = gf_igzip_stream(in, n, p * 997);
            assert_non_null(z);
            /* its bits 16-47 hash as input bytes 2-5 do, in the low 16 bits */
            uint32_t word = 0;
            for (size_t i = 2; i < 6 && i < n; i++)
                word |= (uint32_t)in[i] << 8 * (i - 2);
            assert_int_equal((uintptr_t)z & 0xffff, 0);
            assert_int_equal(crc32c_poly((uint32_t)((uintptr_t)z >> 16)) & 0xffff,
                             crc32c_poly(word) & 0xffff);
            memset(out, 0xa5, cap); /* poisoned */
            size_t m = deflate_at(z, in, n, level, out, cap);
            gf_igzip_stream_free(z);
            if (p == 0) {
                assert_inflates_to(out, m, in, n);
                memcpy(ref, out, m);
                refn = m;
            } else {
                assert_int_equal(m, refn);
                assert_memory_equal(out, ref, m);
            }
        }
        free(in), free(ref), free(out);
    }
}

/* The 1x43 8-bit image whose PNG bytes differed about 1 run in 100. */
static const unsigned char small[43] = {
    140, 140, 140, 141, 140, 140, 142, 141, 140, 140, 140, 140, 139, 142, 141,
    140, 142, 141, 139, 140, 141, 140, 141, 140, 140, 140, 141, 142, 140, 139,
    140, 141, 139, 141, 140, 140, 142, 141, 141, 140, 140, 141, 141};

static void test_png_small(void **state)
{
    (void)state;
    /* its filtered rows as png.c writes them: filter 3 (Average), the byte
     * minus half the byte above */
    unsigned char rows[86], ref[1024], out[1024];
    for (int y = 0; y < 43; y++)
        rows[2 * y] = 3, rows[2 * y + 1] = (unsigned char)(small[y] - (y ? small[y - 1] / 2 : 0));
    size_t refn = 0;
    for (unsigned p = 0; p < 16; p++) {
        struct isal_zstream *z = gf_igzip_stream(rows, sizeof rows, p * 4099);
        assert_non_null(z);
        size_t m = deflate_at(z, rows, sizeof rows, 1, out, sizeof out);
        gf_igzip_stream_free(z);
        if (p == 0)
            memcpy(ref, out, refn = m), assert_inflates_to(out, m, rows, sizeof rows);
        else
            assert_memory_equal(out, ref, m), assert_int_equal(m, refn);
    }
    /* The bug itself, for the record: the stream mapped at 256 addresses
     * 64 KiB apart, chosen without regard to the input. Every stream must
     * inflate to the rows; how many differ from the first is printed (2 of
     * 256 with ISA-L 2.30, and the placed stream's bytes are another). */
    const size_t len = (sizeof(struct isal_zstream) + 4095) & ~(size_t)4095;
    unsigned char first[1024];
    size_t firstn = 0;
    int differ = 0, mapped = 0;
    for (int k = 0; k < 256; k++) {
        void *want = (void *)(0x200000000000ul + (unsigned long)k * 0x10000ul);
        void *p = mmap(want, len, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
        if (p == MAP_FAILED)
            continue;
        if (p == want) {
            size_t m = deflate_at(p, rows, sizeof rows, 1, out, sizeof out);
            assert_inflates_to(out, m, rows, sizeof rows);
            if (!mapped++)
                memcpy(first, out, firstn = m);
            else
                differ += m != firstn || memcmp(out, first, m);
        }
        munmap(p, len);
    }
    fprintf(stderr, "igzip's stream at %d addresses regardless of the input: %d streams unlike "
            "the first\n", mapped, differ);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hash),
        cmocka_unit_test(test_same_bytes_anywhere),
        cmocka_unit_test(test_png_small),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
