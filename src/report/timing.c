/* timing.c - the per-file timing report (timing.h). */
#include "timing.h"

#include "json.h"

#include <string.h>

static const char *const compare_words[] = {"reference", "MISMATCH", "match"};
static const char *const compare_json_words[] = {"reference", "mismatch", "match"};

static const gf_col step_cols[] = {
    {.kind = GF_COL_STEP, .title = "step", .key = "step", .width = -14},
    {.kind = GF_COL_VARIANT, .title = "variant", .key = "variant", .width = -8},
    {.kind = GF_COL_MS, .title = "ms", .key = "ms", .width = 10, .decimals = 3},
    {.kind = GF_COL_GBPS, .title = "GB/s", .key = "gbps", .width = 9, .decimals = 1},
};

static const gf_col compare_cols[] = {
    {.kind = GF_COL_STEP, .title = "compare", .key = "step", .width = -14},
    {.kind = GF_COL_VARIANT, .title = "variant", .key = "variant", .width = -8},
    {.kind = GF_COL_MS, .title = "ms", .key = "ms", .width = 10, .decimals = 4},
    {.kind = GF_COL_GBPS, .title = "GB/s", .key = "gbps", .width = 9, .decimals = 1},
    {.kind = GF_COL_SPEEDUP, .title = "speedup", .key = "speedup", .width = 8},
    {.kind = GF_COL_CHECK, .title = "check", .key = "check", .width = -9, .words = compare_words, .gap = 1},
};

#define NCOLS(c) (int)(sizeof c / sizeof c[0])

gf_row *gf_report_step(gf_report *r, const char *step, const char *variant, double ms,
                       double bytes)
{
    return gf_table_add(&r->steps, step, variant, ms, bytes);
}

gf_row *gf_report_compare(gf_report *r, const char *step, const char *variant, double ms,
                          double bytes)
{
    return gf_table_add(&r->compare, step, variant, ms, bytes);
}

void gf_report_text(const gf_report *r, FILE *f)
{
    fprintf(f, "gpufilt: %s: %dx%d %s -> %dx%d %s, %s%s%s%s\n", r->input, r->in.width,
            r->in.height, gf_layout_words(r->in.channels, r->in.bits), r->out.width,
            r->out.height, gf_layout_words(r->out.channels, r->out.bits), r->backend,
            r->device[0] ? " (" : "", r->device, r->device[0] ? ")" : "");
    if (r->why[0])
        fprintf(f, "  backend: %s\n", r->why);
    gf_table_text(&r->steps, step_cols, NCOLS(step_cols), "  ", f);
    if (r->compare.n)
        gf_table_text(&r->compare, compare_cols, NCOLS(compare_cols), "  ", f);
}

json_t *gf_report_json(const gf_report *r)
{
    gf_col cols[NCOLS(compare_cols)];
    json_t *j = json_pack("{s:s,s:i,s:i,s:s,s:i,s:i,s:s,s:s,s:s}", "input", r->input, "width",
                          r->in.width, "height", r->in.height, "layout",
                          gf_layout_name(r->in.channels, r->in.bits), "out_width", r->out.width,
                          "out_height", r->out.height, "out_layout",
                          gf_layout_name(r->out.channels, r->out.bits), "backend", r->backend,
                          "device", r->device);

    if (!j)
        return NULL;
    if (r->why[0])
        json_object_set_new(j, "backend_reason", json_string(r->why));
    if (r->done_ms > 0)
        json_object_set_new(j, "done_ms", gf_json_real(r->done_ms, 3));
    json_object_set_new(j, "steps", gf_table_json(&r->steps, step_cols, NCOLS(step_cols)));
    if (r->compare.n) {
        memcpy(cols, compare_cols, sizeof cols);
        cols[NCOLS(cols) - 1].words = compare_json_words;
        json_object_set_new(j, "compare", gf_table_json(&r->compare, cols, NCOLS(cols)));
    }
    return j;
}
