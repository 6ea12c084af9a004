/* seed.h - the random seed of a test run, shared by the unit tests and
 * test_gpu: GPUFILT_TEST_SEED when set (so a failure replays), else from the
 * clock and the process id. Odd, as xorshift64* (gf_rand) needs a non-zero
 * state. The caller prints it. */
#ifndef GF_TEST_SEED_H
#define GF_TEST_SEED_H

#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static inline uint64_t test_seed(void)
{
    const char *env = getenv("GPUFILT_TEST_SEED");
    uint64_t s = env && *env ? strtoull(env, NULL, 10)
                             : (uint64_t)time(NULL) * 0x9E3779B97F4A7C15ull ^
                                   (uint64_t)getpid() << 32;
    return s | 1;
}

#endif
