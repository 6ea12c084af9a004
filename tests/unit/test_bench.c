/* test_bench.c - gpufilt bench's table: the text and JSON forms, rates,
 * floor ratios and the failed flag, from rows made up here. */
#include "common.h"

#include <math.h>

#include "../../src/bench.h"

static char *render(const gf_bench_table *t, int json)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    if (json)
        gf_bench_print_json(t, f);
    else
        gf_bench_print_text(t, f);
    fclose(f);
    return buf;
}

static void fill(gf_bench_table *t)
{
    memset(t, 0, sizeof *t);
    t->reps = 20;
    t->copy_gbps = 2.0; /* GB/s */
    snprintf(t->device, sizeof t->device, "Test \"GPU\"");
    snprintf(t->driver, sizeof t->driver, "580.1 (CUDA 13.0)");
    snprintf(t->runtime, sizeof t->runtime, "13.0");
    gf_bench_add(t, "copy 256 MiB", "cudaMemcpy", 0.5, 1e9, -1);
    gf_bench_add(t, "mean 3x3 10x10", "global", 2.0, 1e6, 1)->speedup = 1.0;
    gf_bench_add(t, "mean 3x3 10x10", "shared", 0.5, 1e6, 1)->speedup = 4.0;
    gf_bench_add(t, "matmul f32 2x2x2", "naive", 1.0, 0, 1)->flops = 16e6;
}

static void test_text(void **state)
{
    gf_bench_table t;
    (void)state;
    fill(&t);
    char *s = render(&t, 0);
    /* 1e6 bytes in 0.5 ms = 2 GB/s; floor 1e6 / 2e6 per ms = 0.5 ms -> 1.00 */
    assert_non_null(strstr(s, "mean 3x3 10x10               shared           0.5000         2.0 GB/s"
                              "     1.00    4.00x  PASS\n"));
    assert_non_null(strstr(s, "mean 3x3 10x10               global           2.0000         0.5 GB/s"
                              "     4.00    1.00x  PASS\n"));
    assert_non_null(strstr(s, "16 GFLOP/s"));
    assert_non_null(strstr(s, "device: Test \"GPU\", driver 580.1 (CUDA 13.0), CUDA runtime 13.0; "
                              "median of 20"));
    assert_int_equal(t.failed, 0);
    free(s);
}

static void test_json(void **state)
{
    gf_bench_table t;
    (void)state;
    fill(&t);
    gf_bench_add(&t, "hist", "cub", 1.0, 1e6, 0);
    assert_int_equal(t.failed, 1);
    char *s = render(&t, 1);
    assert_non_null(strstr(s, "{\"device\":\"Test \\\"GPU\\\"\",\"driver\":\"580.1 (CUDA 13.0)\""));
    assert_non_null(strstr(s, "{\"experiment\":\"mean 3x3 10x10\",\"variant\":\"shared\","
                              "\"ms\":0.500000,\"bytes\":1000000,\"gbps\":2.000,"
                              "\"x_floor\":1.0000,\"speedup\":4.0000,\"check\":\"PASS\"}"));
    assert_non_null(strstr(s, "\"check\":\"FAIL\"}],\"passed\":false}\n"));
    assert_non_null(strstr(s, "\"flops\":16000000,\"gflops\":16.000"));
    /* braces and brackets balance */
    int depth = 0, in_str = 0;
    for (const char *p = s; *p; p++) {
        if (*p == '\\' && in_str) {
            p++;
            continue;
        }
        if (*p == '"')
            in_str = !in_str;
        else if (!in_str && (*p == '{' || *p == '['))
            depth++;
        else if (!in_str && (*p == '}' || *p == ']'))
            depth--;
        assert_true(depth >= 0);
    }
    assert_int_equal(depth, 0);
    free(s);
}

static void test_floor_ratio(void **state)
{
    gf_bench_table t;
    (void)state;
    fill(&t);
    assert_true(fabs(gf_bench_floor_ratio(&t, &t.rows[1]) - 4.0) < 1e-12);
    t.copy_gbps = 0;
    assert_true(gf_bench_floor_ratio(&t, &t.rows[1]) == 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_text),
        cmocka_unit_test(test_json),
        cmocka_unit_test(test_floor_ratio),
    };
    return cmocka_run_group_tests_name("bench", tests, NULL, NULL);
}
