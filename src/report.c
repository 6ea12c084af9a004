/* report.c - timing tables as text and JSON (report.h). */
#include "report.h"

#include <string.h>

static gf_row scratch;

static gf_row *add(gf_row *rows, int *n, const char *step, const char *variant, double ms,
                   double bytes)
{
    gf_row *row = *n < GF_REPORT_ROWS ? &rows[(*n)++] : &scratch;

    memset(row, 0, sizeof *row);
    snprintf(row->step, sizeof row->step, "%s", step);
    snprintf(row->variant, sizeof row->variant, "%s", variant ? variant : "");
    row->ms = ms;
    row->bytes = bytes;
    row->check = -1;
    return row;
}

gf_row *gf_report_step(gf_report *r, const char *step, const char *variant, double ms,
                       double bytes)
{
    return add(r->steps, &r->nsteps, step, variant, ms, bytes);
}

gf_row *gf_report_compare(gf_report *r, const char *step, const char *variant, double ms,
                          double bytes)
{
    return add(r->compare, &r->ncompare, step, variant, ms, bytes);
}

static double gbps(const gf_row *row)
{
    return row->bytes > 0 && row->ms > 0 ? row->bytes / (row->ms * 1e6) : 0;
}

static const char *check_name(int check)
{
    return check < 0 ? "reference" : check ? "match" : "MISMATCH";
}

void gf_report_text(const gf_report *r, FILE *f)
{
    fprintf(f, "gpufilt: %s: %dx%d -> %dx%d, %s%s%s%s\n", r->input, r->width, r->height,
            r->out_width, r->out_height, r->backend, r->device[0] ? " (" : "", r->device,
            r->device[0] ? ")" : "");
    fprintf(f, "  %-14s %-8s %10s %9s\n", "step", "variant", "ms", "GB/s");
    for (int i = 0; i < r->nsteps; i++) {
        const gf_row *s = &r->steps[i];
        fprintf(f, "  %-14s %-8s %10.3f", s->step, s->variant, s->ms);
        if (gbps(s) > 0)
            fprintf(f, " %9.1f", gbps(s));
        fputc('\n', f);
    }
    if (!r->ncompare)
        return;
    fprintf(f, "  %-14s %-8s %10s %9s %8s  %s\n", "compare", "variant", "ms", "GB/s",
            "speedup", "check");
    for (int i = 0; i < r->ncompare; i++) {
        const gf_row *s = &r->compare[i];
        fprintf(f, "  %-14s %-8s %10.4f %9.1f", s->step, s->variant, s->ms, gbps(s));
        if (s->speedup > 0)
            fprintf(f, " %7.2fx", s->speedup);
        else
            fprintf(f, " %8s", "");
        fprintf(f, "  %s\n", check_name(s->check));
    }
}

void gf_json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

static void json_rows(FILE *f, const char *key, const gf_row *rows, int n, int compare)
{
    fprintf(f, ",\"%s\":[", key);
    for (int i = 0; i < n; i++) {
        fprintf(f, "%s{\"step\":", i ? "," : "");
        gf_json_string(f, rows[i].step);
        if (rows[i].variant[0]) {
            fputs(",\"variant\":", f);
            gf_json_string(f, rows[i].variant);
        }
        fprintf(f, ",\"ms\":%.6f", rows[i].ms);
        if (gbps(&rows[i]) > 0)
            fprintf(f, ",\"gbps\":%.3f", gbps(&rows[i]));
        if (compare) {
            if (rows[i].speedup > 0)
                fprintf(f, ",\"speedup\":%.4f", rows[i].speedup);
            fprintf(f, ",\"check\":\"%s\"", rows[i].check < 0 ? "reference"
                                             : rows[i].check ? "match"
                                                             : "mismatch");
        }
        fputc('}', f);
    }
    fputc(']', f);
}

void gf_report_json(const gf_report *r, FILE *f)
{
    fputs("{\"input\":", f);
    gf_json_string(f, r->input);
    fprintf(f, ",\"width\":%d,\"height\":%d,\"out_width\":%d,\"out_height\":%d,\"backend\":",
            r->width, r->height, r->out_width, r->out_height);
    gf_json_string(f, r->backend);
    fputs(",\"device\":", f);
    gf_json_string(f, r->device);
    json_rows(f, "steps", r->steps, r->nsteps, 0);
    if (r->ncompare)
        json_rows(f, "compare", r->compare, r->ncompare, 1);
    fputs("}\n", f);
}
