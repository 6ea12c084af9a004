/* bench_table.c - gpufilt bench's rows and their text and JSON forms. */
#include <string.h>

#include "bench.h"
#include "report.h"

gf_bench_row *gf_bench_add(gf_bench_table *t, const char *experiment, const char *variant,
                           double ms, double bytes, int check)
{
    static gf_bench_row scratch;
    gf_bench_row *r = t->nrows < GF_BENCH_ROWS ? &t->rows[t->nrows++] : &scratch;

    memset(r, 0, sizeof *r);
    snprintf(r->experiment, sizeof r->experiment, "%s", experiment);
    snprintf(r->variant, sizeof r->variant, "%s", variant);
    r->ms = ms;
    r->bytes = bytes;
    r->check = check;
    if (check == 0)
        t->failed = 1;
    return r;
}

double gf_bench_floor_ratio(const gf_bench_table *t, const gf_bench_row *r)
{
    return r->bytes > 0 && t->copy_gbps > 0 && r->ms > 0
               ? r->ms / (r->bytes / (t->copy_gbps * 1e6))
               : 0;
}

static const char *check_name(int c)
{
    return c < 0 ? "-" : c ? "PASS" : "FAIL";
}

void gf_bench_print_text(const gf_bench_table *t, FILE *f)
{
    fprintf(f, "%-28s %-12s %10s %16s %8s %8s  %s\n", "experiment", "variant", "ms", "rate",
            "x floor", "speedup", "check");
    for (int i = 0; i < t->nrows; i++) {
        const gf_bench_row *r = &t->rows[i];
        char rate[32] = "-", ratio[16] = "-", speed[16] = "-";
        if (r->flops > 0)
            snprintf(rate, sizeof rate, "%.0f GFLOP/s", r->flops / (r->ms * 1e6));
        else if (r->bytes > 0)
            snprintf(rate, sizeof rate, "%.1f GB/s", r->bytes / (r->ms * 1e6));
        if (gf_bench_floor_ratio(t, r) > 0)
            snprintf(ratio, sizeof ratio, "%.2f", gf_bench_floor_ratio(t, r));
        if (r->speedup > 0)
            snprintf(speed, sizeof speed, "%.2fx", r->speedup);
        fprintf(f, "%-28s %-12s %10.4f %16s %8s %8s  %s\n", r->experiment, r->variant, r->ms, rate,
                ratio, speed, check_name(r->check));
    }
    fprintf(f, "device: %s, driver %s, CUDA runtime %s; median of %d runs after a warm-up; "
               "floor = bytes moved at %.0f GB/s (copy)\n",
            t->device, t->driver, t->runtime, t->reps, t->copy_gbps);
    if (t->notes[0])
        fprintf(f, "notes: %s\n", t->notes);
}

void gf_bench_print_json(const gf_bench_table *t, FILE *f)
{
    fputs("{\"device\":", f);
    gf_json_string(f, t->device);
    fprintf(f, ",\"driver\":\"%s\",\"cuda_runtime\":\"%s\",\"reps\":%d,\"copy_gbps\":%.3f",
            t->driver, t->runtime, t->reps, t->copy_gbps);
    fputs(",\"notes\":", f);
    gf_json_string(f, t->notes);
    fputs(",\"rows\":[", f);
    for (int i = 0; i < t->nrows; i++) {
        const gf_bench_row *r = &t->rows[i];
        fprintf(f, "%s{\"experiment\":", i ? "," : "");
        gf_json_string(f, r->experiment);
        fputs(",\"variant\":", f);
        gf_json_string(f, r->variant);
        fprintf(f, ",\"ms\":%.6f", r->ms);
        if (r->bytes > 0)
            fprintf(f, ",\"bytes\":%.0f,\"gbps\":%.3f", r->bytes, r->bytes / (r->ms * 1e6));
        if (r->flops > 0)
            fprintf(f, ",\"flops\":%.0f,\"gflops\":%.3f", r->flops, r->flops / (r->ms * 1e6));
        if (gf_bench_floor_ratio(t, r) > 0)
            fprintf(f, ",\"x_floor\":%.4f", gf_bench_floor_ratio(t, r));
        if (r->speedup > 0)
            fprintf(f, ",\"speedup\":%.4f", r->speedup);
        fprintf(f, ",\"check\":\"%s\"}", check_name(r->check));
    }
    fprintf(f, "],\"passed\":%s}\n", t->failed ? "false" : "true");
}
