/* table.c - row tables as text and JSON (table.h). */
#include "table.h"

#include <stdlib.h>
#include <string.h>

#include "json.h"

gf_row *gf_table_add(gf_table *t, const char *step, const char *variant, double ms,
                     double bytes)
{
    static _Thread_local gf_row scratch;
    gf_row *r = &scratch;

    if (t->n < GF_TABLE_ROWS) {
        r = &t->rows[t->n++];
    } else {
        const int k = t->n - GF_TABLE_ROWS;
        if (k >= t->more_cap) {
            const int cap = t->more_cap ? 2 * t->more_cap : GF_TABLE_ROWS;
            gf_row *m = realloc(t->more, (size_t)cap * sizeof *m);
            if (m)
                t->more = m, t->more_cap = cap;
        }
        if (k < t->more_cap)
            r = &t->more[k], t->n++;
    }

    memset(r, 0, sizeof *r);
    snprintf(r->step, sizeof r->step, "%s", step);
    snprintf(r->variant, sizeof r->variant, "%s", variant ? variant : "");
    r->ms = ms;
    r->bytes = bytes;
    r->check = -1;
    return r;
}

const gf_row *gf_table_row(const gf_table *t, int i)
{
    return i < GF_TABLE_ROWS ? &t->rows[i] : &t->more[i - GF_TABLE_ROWS];
}

void gf_table_free(gf_table *t)
{
    free(t->more);
    t->more = NULL;
    t->more_cap = 0;
    t->n = 0;
}

void gf_table_check(gf_table *t, gf_row *r, int check)
{
    r->check = check;
    if (check == 0)
        t->failed = 1;
}

void gf_table_inexact(gf_row *r, unsigned max_diff, double ndiff, double nsamples)
{
    r->check = -1;
    r->inexact = 1;
    r->max_diff = max_diff;
    r->ndiff = ndiff;
    r->nsamples = nsamples;
}

double gf_table_floor(const gf_table *t, const gf_row *r)
{
    return r->bytes > 0 && t->copy_gbps > 0 && r->ms > 0
               ? r->ms / (r->bytes / (t->copy_gbps * 1e6))
               : 0;
}

static double gbps(const gf_row *r)
{
    return r->bytes > 0 && r->ms > 0 ? r->bytes / (r->ms * 1e6) : 0;
}

/* The text of one cell; "" when it has no value. */
static void cell(const gf_table *t, const gf_row *r, const gf_col *c, char *buf, size_t n)
{
    buf[0] = 0;
    switch (c->kind) {
    case GF_COL_STEP: snprintf(buf, n, "%s", r->step); break;
    case GF_COL_VARIANT: snprintf(buf, n, "%s", r->variant); break;
    case GF_COL_MS: snprintf(buf, n, "%.*f", c->decimals, r->ms); break;
    case GF_COL_GBPS:
        if (gbps(r) > 0)
            snprintf(buf, n, "%.*f", c->decimals, gbps(r));
        break;
    case GF_COL_RATE:
        if (r->flops > 0 && r->ms > 0)
            snprintf(buf, n, "%.0f GFLOP/s", r->flops / (r->ms * 1e6));
        else if (gbps(r) > 0)
            snprintf(buf, n, "%.1f GB/s", gbps(r));
        break;
    case GF_COL_FLOOR:
        if (gf_table_floor(t, r) > 0)
            snprintf(buf, n, "%.*f", c->decimals, gf_table_floor(t, r));
        break;
    case GF_COL_SPEEDUP:
        if (r->speedup > 0)
            snprintf(buf, n, "%.2fx", r->speedup);
        break;
    case GF_COL_CHECK:
        if (r->inexact)
            snprintf(buf, n, "inexact: max diff %u, %.0f of %.0f differ", r->max_diff, r->ndiff,
                     r->nsamples);
        else
            snprintf(buf, n, "%s", c->words[r->check + 1]);
        if (r->runs > 0) {
            const size_t len = strlen(buf);
            snprintf(buf + len, n - len, "%s%d run%s", buf[0] ? ", " : "", r->runs,
                     r->runs == 1 ? "" : "s");
        }
        break;
    }
}

/* Column c of n: its gap, then text padded to its width (the last one, when
 * left-aligned, not padded). */
static void put(FILE *f, int c, int n, const gf_col *col, const char *text)
{
    fprintf(f, "%*s", c ? 1 + col->gap : 0, "");
    if (c == n - 1 && col->width < 0)
        fputs(text, f);
    else
        fprintf(f, "%*s", col->width, text);
}

void gf_table_text(const gf_table *t, const gf_col *cols, int ncols, const char *indent,
                   FILE *f)
{
    char buf[96];

    fputs(indent, f);
    for (int c = 0; c < ncols; c++)
        put(f, c, ncols, &cols[c], cols[c].title);
    fputc('\n', f);
    for (int i = 0; i < t->n; i++) {
        int last = ncols; /* trailing blank cells are not padded */
        const gf_row *r = gf_table_row(t, i);
        while (last > 0 && (cell(t, r, &cols[last - 1], buf, sizeof buf), !buf[0]))
            last--;
        fputs(indent, f);
        for (int c = 0; c < last; c++) {
            cell(t, r, &cols[c], buf, sizeof buf);
            put(f, c, last, &cols[c], buf);
        }
        fputc('\n', f);
    }
}

json_t *gf_table_json(const gf_table *t, const gf_col *cols, int ncols)
{
    json_t *a = json_array();

    for (int i = 0; a && i < t->n; i++) {
        const gf_row *r = gf_table_row(t, i);
        json_t *o = json_object();
        for (int c = 0; o && c < ncols; c++) {
            json_t *v = NULL;
            switch (cols[c].kind) {
            case GF_COL_STEP: v = json_string(r->step); break;
            case GF_COL_VARIANT: v = r->variant[0] ? json_string(r->variant) : NULL; break;
            case GF_COL_MS: v = gf_json_real(r->ms, 6); break;
            case GF_COL_GBPS:
                v = gbps(r) > 0 ? gf_json_real(gbps(r), 3) : NULL;
                break;
            case GF_COL_RATE:
                if (r->flops > 0 && r->ms > 0) {
                    json_object_set_new(o, "flops", json_real(r->flops));
                    v = gf_json_real(r->flops / (r->ms * 1e6), 3);
                } else if (gbps(r) > 0) {
                    json_object_set_new(o, "bytes", json_real(r->bytes));
                    v = gf_json_real(gbps(r), 3);
                }
                break;
            case GF_COL_FLOOR:
                v = gf_table_floor(t, r) > 0 ? gf_json_real(gf_table_floor(t, r), 4) : NULL;
                break;
            case GF_COL_SPEEDUP: v = r->speedup > 0 ? gf_json_real(r->speedup, 4) : NULL; break;
            case GF_COL_CHECK:
                if (r->runs > 0)
                    json_object_set_new(o, "runs", json_integer(r->runs));
                if (r->inexact) {
                    json_object_set_new(o, "max_diff", json_integer(r->max_diff));
                    json_object_set_new(o, "differing", json_real(r->ndiff));
                    json_object_set_new(o, "samples", json_real(r->nsamples));
                    v = json_string("inexact");
                } else {
                    v = json_string(cols[c].words[r->check + 1]);
                }
                break;
            }
            if (v)
                json_object_set_new(o, cols[c].kind == GF_COL_RATE && r->flops > 0 ? "gflops"
                                                                                    : cols[c].key,
                                    v);
        }
        json_array_append_new(a, o);
    }
    return a;
}
