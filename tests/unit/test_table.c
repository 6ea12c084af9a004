/* test_table.c - the one table writer (timing report and gpufilt bench):
 * text and JSON forms, rates, floor ratios and the failed flag, from rows
 * made up here. */
#include "common.h"

#include <jansson.h>

#include "../../src/bench.h"
#include "../../src/report/json.h"
#include "../../src/report/timing.h"

static char *render(const gf_bench_table *t, int json)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    if (json) {
        json_t *j = gf_bench_json(t);
        assert_int_equal(gf_json_line(j, f), 0);
        json_decref(j);
    } else {
        gf_bench_print_text(t, f);
    }
    fclose(f);
    return buf;
}

static void fill(gf_bench_table *t)
{
    gf_row *r;
    memset(t, 0, sizeof *t);
    t->reps = 20;
    t->t.copy_gbps = 2.0; /* GB/s */
    snprintf(t->device, sizeof t->device, "Test \"GPU\"");
    snprintf(t->driver, sizeof t->driver, "580.1 (CUDA 13.0)");
    snprintf(t->runtime, sizeof t->runtime, "13.0");
    gf_table_add(&t->t, "copy 256 MiB", "cudaMemcpy", 0.5, 1e9);
    r = gf_table_add(&t->t, "mean 3 10x10", "global", 2.0, 1e6);
    r->speedup = 1.0;
    gf_table_check(&t->t, r, 1);
    r = gf_table_add(&t->t, "mean 3 10x10", "shared", 0.5, 1e6);
    r->speedup = 4.0;
    gf_table_check(&t->t, r, 1);
    r = gf_table_add(&t->t, "matmul f32 2x2x2", "naive", 1.0, 0);
    r->flops = 16e6;
    gf_table_check(&t->t, r, 1);
}

static void test_text(void **state)
{
    gf_bench_table t;
    (void)state;
    fill(&t);
    char *s = render(&t, 0);
    /* 1e6 bytes in 0.5 ms = 2 GB/s; floor 1e6 / 2e6 per ms = 0.5 ms -> 1.00 */
    if (!strstr(s, "mean 3 10x10                 shared           0.5000         2.0 GB/s"
                   "     1.00    4.00x  PASS\n"))
        fail_msg("%s", s);
    assert_non_null(strstr(s, "mean 3 10x10                 global           2.0000         0.5 GB/s"
                              "     4.00    1.00x  PASS\n"));
    assert_non_null(strstr(s, "16 GFLOP/s"));
    assert_non_null(strstr(s, "device: Test \"GPU\", driver 580.1 (CUDA 13.0), CUDA runtime 13.0; "
                              "median of 20"));
    assert_int_equal(t.t.failed, 0);
    free(s);
}

static void test_json(void **state)
{
    gf_bench_table t;
    json_error_t err;
    (void)state;
    fill(&t);
    gf_table_check(&t.t, gf_table_add(&t.t, "hist", "cub", 1.0, 1e6), 0);
    char *s = render(&t, 1);
    json_t *j = json_loads(s, 0, &err);
    if (!j)
        fail_msg("%s: %s", err.text, s);
    assert_string_equal(json_string_value(json_object_get(j, "device")), "Test \"GPU\"");
    assert_true(json_is_false(json_object_get(j, "passed")));
    json_t *rows = json_object_get(j, "rows");
    assert_int_equal(json_array_size(rows), 5);
    json_t *shared = json_array_get(rows, 2);
    assert_string_equal(json_string_value(json_object_get(shared, "variant")), "shared");
    assert_true(json_real_value(json_object_get(shared, "gbps")) == 2.0);
    assert_true(json_real_value(json_object_get(shared, "x_floor")) == 1.0);
    assert_true(json_real_value(json_object_get(shared, "speedup")) == 4.0);
    assert_string_equal(json_string_value(json_object_get(shared, "check")), "PASS");
    json_t *mm = json_array_get(rows, 3);
    assert_true(json_real_value(json_object_get(mm, "gflops")) == 16.0);
    assert_null(json_object_get(mm, "x_floor"));
    assert_string_equal(json_string_value(json_object_get(json_array_get(rows, 4), "check")),
                        "FAIL");
    json_decref(j);
    free(s);
}

/* A bench of every group and layout passes GF_TABLE_ROWS rows: every row is
 * kept, shown and checked (the rows past it once went to a scratch row and
 * were lost without a word). */
static void test_many_rows(void **state)
{
    gf_bench_table *t = malloc(sizeof *t);
    json_error_t err;
    const int n = 3 * GF_TABLE_ROWS + 17;
    char name[48];
    (void)state;
    assert_non_null(t);
    fill(t);
    for (int i = 4; i < n; i++) {
        snprintf(name, sizeof name, "row %d", i);
        gf_table_check(&t->t, gf_table_add(&t->t, name, "v", 1.0, 1e6), i != n - 1);
    }
    assert_int_equal(t->t.n, n);
    assert_true(t->t.failed); /* the last row, past the inline rows, failed */
    ((gf_row *)gf_table_row(&t->t, 5))->runs = 1;   /* a slow kernel, timed once */
    ((gf_row *)gf_table_row(&t->t, 300))->runs = 6; /* past the inline rows */
    char *s = render(t, 0);
    assert_non_null(strstr(s, "row 5                        v                1.0000         1.0 GB/s"
                              "     2.00           PASS, 1 run\n"));
    assert_non_null(strstr(s, "PASS, 6 runs\n"));
    assert_null(strstr(s, "row 4                        v                1.0000         1.0 GB/s"
                           "     2.00           PASS,"));
    snprintf(name, sizeof name, "row %d ", n - 1);
    assert_non_null(strstr(s, name));
    assert_non_null(strstr(s, "row 300 "));
    free(s);
    s = render(t, 1);
    json_t *j = json_loads(s, 0, &err);
    if (!j)
        fail_msg("%s", err.text);
    json_t *rows = json_object_get(j, "rows");
    assert_int_equal(json_array_size(rows), n);
    snprintf(name, sizeof name, "row %d", n - 1);
    assert_string_equal(json_string_value(json_object_get(json_array_get(rows, n - 1), "experiment")),
                        name);
    assert_string_equal(json_string_value(json_object_get(json_array_get(rows, n - 1), "check")),
                        "FAIL");
    assert_int_equal(json_integer_value(json_object_get(json_array_get(rows, 5), "runs")), 1);
    assert_int_equal(json_integer_value(json_object_get(json_array_get(rows, 300), "runs")), 6);
    assert_null(json_object_get(json_array_get(rows, 4), "runs"));
    json_decref(j);
    free(s);
    gf_table_free(&t->t);
    assert_int_equal(t->t.n, 0);
    assert_null(t->t.more);
    free(t);
}

static void test_timing_report(void **state)
{
    gf_report *r = calloc(1, sizeof *r);
    char *buf = NULL;
    size_t len = 0;
    FILE *f;
    (void)state;
    assert_non_null(r);
    r->input = "x.png";
    r->in = (gf_shape){4, 2, 3, 8};
    r->out = (gf_shape){4, 2, 1, 16};
    r->backend = "cpu";
    gf_report_step(r, "decode", "png", 1.5, 0);
    gf_report_step(r, "mean 5", "cpu", 0.25, 16);
    gf_table_check(&r->compare, gf_report_compare(r, "mean 5", "global", 1, 16), 0);
    assert_non_null(f = open_memstream(&buf, &len));
    gf_report_text(r, f);
    fclose(f);
    assert_non_null(strstr(buf, "gpufilt: x.png: 4x2 RGB 8-bit -> 4x2 gray 16-bit, cpu\n"));
    assert_non_null(strstr(buf, "  decode         png           1.500\n"));
    assert_non_null(strstr(buf, "  mean 5         cpu           0.250       0.0\n"));
    assert_non_null(strstr(buf, "MISMATCH"));
    free(buf);
    json_t *j = gf_report_json(r);
    assert_string_equal(json_string_value(json_object_get(j, "layout")), "8u_C3");
    assert_string_equal(json_string_value(json_object_get(j, "out_layout")), "16u_C1");
    assert_string_equal(json_string_value(json_object_get(
                            json_array_get(json_object_get(j, "compare"), 0), "check")),
                        "mismatch");
    json_decref(j);
    free(r);
}

/* An inexact variant's row gives its difference, neither PASS nor FAIL, and
 * does not fail the table. */
static void test_inexact(void **state)
{
    gf_bench_table t;
    json_error_t err;
    (void)state;
    fill(&t);
    gf_row *r = gf_table_add(&t.t, "resize 12.5% lanczos 8x8", "texture", 0.5, 1e6);
    gf_table_inexact(r, 3, 12, 100);
    char *s = render(&t, 0);
    if (!strstr(s, "texture          0.5000         2.0 GB/s     1.00           "
                   "inexact: max diff 3, 12 of 100 differ\n"))
        fail_msg("%s", s);
    free(s);
    assert_int_equal(t.t.failed, 0);
    s = render(&t, 1);
    json_t *j = json_loads(s, 0, &err);
    if (!j)
        fail_msg("%s: %s", err.text, s);
    assert_true(json_is_true(json_object_get(j, "passed")));
    json_t *row = json_array_get(json_object_get(j, "rows"), 4);
    assert_string_equal(json_string_value(json_object_get(row, "check")), "inexact");
    assert_int_equal(json_integer_value(json_object_get(row, "max_diff")), 3);
    assert_true(json_real_value(json_object_get(row, "differing")) == 12.0);
    assert_true(json_real_value(json_object_get(row, "samples")) == 100.0);
    json_decref(j);
    free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_text),
        cmocka_unit_test(test_json),
        cmocka_unit_test(test_many_rows),
        cmocka_unit_test(test_timing_report),
        cmocka_unit_test(test_inexact),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
