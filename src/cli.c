/* cli.c - the command line -> a plan (getopt_long). The long options are
 * this file's table plus every stage's own options from the registry; so is
 * --help. Parsing is the table walk, then small finishing steps. */
#include "cli.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "batch/naming.h"
#include "report/files.h"

#define MAX_OPTS 96     /* stage and cli options together */
#define MAX_PENDING 32  /* settings and modifiers on one command line */
#define HELP_COL 26     /* where --help's descriptions start */
#define HELP_WIDTH 79

enum {
    O_OUTPUT = 1, O_FORMAT, O_PNG_LEVEL, O_QUALITY, O_LOSSLESS, O_STRIP, O_COMPRESS, O_PAGE, O_DRAFT,
    O_FORCE, O_FILES_FROM, O_NULL, O_SHARD, O_JOBS, O_SKIP_EXISTING, O_DRY_RUN,
    O_AUTO_ORIENT, O_STATS,
    O_SHARED, O_NO_SHARED, O_VARIANT, O_BACKEND, O_DEVICE, O_COMPARE, O_TIMINGS, O_QUIET,
    O_MAX_PIXELS, O_MAX_FILE_SIZE, O_MAX_IMAGE_BYTES, O_HELP, O_VERSION,
    O_STAGE = 1000 /* + index into the stage-option map */
};

typedef struct cli_opt {
    const char *name;
    char short_name; /* or 0 */
    const char *arg; /* the argument's name, or NULL for a flag */
    int id;
    const char *section;
    const char *help;
} cli_opt;

/* Sections of --help, in order; "Stages" and "Stage settings" list the
 * registry's options. */
static const char *const sections[] = {"Input", "Stages", "Stage settings", "Kernels", "Output",
                                       "Batches (several inputs, or --files-from)",
                                       "Backend and reports", "Limits", ""};

static const cli_opt cli_opts[] = {
    {"auto-orient", 0, NULL, O_AUTO_ORIENT, "Input",
     "turn an image upright by its EXIF Orientation (1-8; JPEG, PNG, TIFF, WebP) before "
     "the stages"},
    {"page", 0, "N", O_PAGE, "Input", "the page of a multi-page TIFF to read, from 0 (default 0)"},
    {"draft", 0, NULL, O_DRAFT, "Input",
     "a JPEG decodes shrunk on load (1/2, 1/4 or 1/8) for the first stage, a --resize, as "
     "Pillow's draft(mode, (2w, 2h)) for a w x h result, then resizes exactly"},
    {"stats", 0, NULL, O_STATS, "Stage settings",
     "histogram statistics as key=value lines on stdout (a histogram at the end if no --hist)"},
    {"shared", 0, NULL, O_SHARED, "Kernels",
     "the shared-memory kernel of each stage that has one"},
    {"no-shared", 0, NULL, O_NO_SHARED, "Kernels", "the global-memory kernels"},
    {"variant", 0, "NAME", O_VARIANT, "Kernels",
     "the kernel variant NAME of each stage that has it (see the list below)"},
    {"output", 'o', "FILE", O_OUTPUT, "Output",
     "write the image to FILE ('-': stdout); not needed with a report stage or --compare"},
    {"format", 0, "FORMAT", O_FORMAT, "Output", /* --help lists the codec's names */
     "output format (default: from FILE's extension; PNG for - and directories)"},
    {"png-level", 0, "N", O_PNG_LEVEL, "Output", "PNG deflate level 0-12 (default 1)"},
    {"quality", 0, "N", O_QUALITY, "Output", "JPEG and lossy WebP quality 1-100 (default 90)"},
    {"lossless", 0, NULL, O_LOSSLESS, "Output", "WebP lossless (default: lossy at --quality)"},
    {"strip", 0, NULL, O_STRIP, "Output",
     "write no ICC profile and no EXIF (default: kept from the input where the format holds "
     "them)"},
    {"compress", 0, "none|lzw|deflate|packbits", O_COMPRESS, "Output",
     "TIFF compression (default deflate; deflate and lzw with the horizontal predictor)"},
    {"force", 0, NULL, O_FORCE, "Output", "allow FILE to be the input file"},
    {"files-from", 0, "FILE", O_FILES_FROM, "Batches (several inputs, or --files-from)",
     "input paths, one a line ('-': stdin)"},
    {"null", '0', NULL, O_NULL, "Batches (several inputs, or --files-from)",
     "--files-from names end with NUL (find -print0)"},
    {"shard", 0, "K/N|slurm", O_SHARD, "Batches (several inputs, or --files-from)",
     "only the K-th of N slices of the list (1 <= K <= N); slurm: this Slurm array task's"},
    {"jobs", 0, "N", O_JOBS, "Batches (several inputs, or --files-from)",
     "CPU workers (default: one per core); each holds one image, so at most N images (and "
     "128 JPEGs a GPU waiting for its decoder) are in memory"},
    {"skip-existing", 0, NULL, O_SKIP_EXISTING, "Batches (several inputs, or --files-from)",
     "skip inputs whose outputs all exist"},
    {"dry-run", 0, NULL, O_DRY_RUN, "Batches (several inputs, or --files-from)",
     "list what would be read and written, and any collisions; write nothing"},
    {"backend", 0, "auto|cuda|cpu", O_BACKEND, "Backend and reports",
     "auto (default): the GPU when it is the faster way, else the CPU"},
    {"device", 0, "N[,M...]|all", O_DEVICE, "Backend and reports",
     "GPUs to use (default: every GPU for a batch, GPU 0 for one file)"},
    {"compare", 0, NULL, O_COMPARE, "Backend and reports",
     "run and time every variant, check each against the CPU reference"},
    {"timings", 0, "text|json", O_TIMINGS, "Backend and reports",
     "timing report format on stderr (default text)"},
    {"quiet", 'q', NULL, O_QUIET, "Backend and reports", "no timings, statistics or notices"},
    {"max-pixels", 0, "N", O_MAX_PIXELS, "Limits",
     "largest width x height (default 268435456)"},
    {"max-file-size", 0, "N", O_MAX_FILE_SIZE, "Limits",
     "largest input file in bytes (default 1073741824)"},
    {"max-image-bytes", 0, "N", O_MAX_IMAGE_BYTES, "Limits",
     "largest decoded image, width x height x channels x bytes a sample (default 2147483648)"},
    {"help", 'h', NULL, O_HELP, "", "this help"},
    {"version", 0, NULL, O_VERSION, "", "version"},
};
#define N_CLI_OPTS (int)(sizeof cli_opts / sizeof cli_opts[0])

/* --plot-size: a report modifier of every report stage, so it lives here. */
static int parse_plot_size(gf_stage *s, const char *arg)
{
    int wh[2];

    if (gf_parse_ints("--plot-size", "WxH", arg, 'x', 2, GF_PLOT_MIN_SIDE, GF_PLOT_MAX_SIDE, wh))
        return GF_EUSAGE;
    if (!gf_stage_is_report(s))
        return 1;
    s->mods.plot_w = wh[0];
    s->mods.plot_h = wh[1];
    return 0;
}

static const gf_stage_opt report_opts[] = {
    {"plot-size", "WxH", "size of the plots after it, in pixels (default 800x450)",
     GF_OPT_MODIFIER, parse_plot_size},
    {NULL, NULL, NULL, 0, NULL},
};

/* 1 when a stage option's argument is optional: its name is in brackets
 * ("[LOW[,HIGH]]"). */
static int optional_arg(const gf_stage_opt *o)
{
    return o->arg && o->arg[0] == '[';
}

/* 1 when word is an optional argument's value: it starts with a digit, '.'
 * or ',', or with '-' and a digit. So `--clahe -1` gives CLIP -1 (refused),
 * while `--clahe --mean 3`, `--clahe -o out.png` and `--clahe in.png` give
 * none. */
static int optional_value(const char *word)
{
    const char *w = word[0] == '-' ? word + 1 : word;
    return (*w >= '0' && *w <= '9') || (w == word && (*w == '.' || *w == ','));
}

/* Every stage option, with the first stage kind that lists it (NULL: any
 * report stage). Stage kinds that list an option of the same name share it
 * (the stencil stages' --border): it applies to each of them. */
typedef struct stage_opt {
    const gf_stage_ops *owner;
    const gf_stage_opt *opt;
} stage_opt;

static int collect_stage_opts(stage_opt *map, int max)
{
    int n = 0;

    for (int i = 0; gf_stages[i]; i++)
        for (const gf_stage_opt *o = gf_stages[i]->opts; o && o->name && n < max; o++) {
            int seen = 0; /* an option several stages share (--border) is listed once */
            for (int j = 0; j < n && !seen; j++)
                seen = !strcmp(map[j].opt->name, o->name);
            if (!seen)
                map[n++] = (stage_opt){gf_stages[i], o};
        }
    for (const gf_stage_opt *o = report_opts; o->name && n < max; o++)
        map[n++] = (stage_opt){NULL, o};
    return n;
}

/* 1 when stage kind ops lists the option `name`. */
static int has_opt(const gf_stage_ops *ops, const char *name)
{
    for (const gf_stage_opt *o = ops->opts; o && o->name; o++)
        if (!strcmp(o->name, name))
            return 1;
    return 0;
}

/* 1 when the setting or modifier so applies to stage s. */
static int applies(const stage_opt *so, const gf_stage *s)
{
    return so->owner ? has_opt(s->ops, so->opt->name) : gf_stage_is_report(s);
}

void gf_cli_usage(FILE *f)
{
    fputs("usage: gpufilt [OPTIONS] INPUT... [-o OUTPUT] [STAGE...]  (gpufilt --help)\n", f);
}

/* One --help entry: "  -o, --output FILE" then the text, wrapped. */
static void help_line(FILE *f, char short_name, const char *name, const char *arg,
                      const char *text)
{
    char head[64];
    int col;

    snprintf(head, sizeof head, "  %c%c%s--%s%s%s", short_name ? '-' : ' ',
             short_name ? short_name : ' ', short_name ? ", " : "  ", name, arg ? " " : "",
             arg ? arg : "");
    col = fprintf(f, "%s", head);
    if (col >= HELP_COL - 1) {
        fputc('\n', f);
        col = 0;
    }
    while (*text) {
        int room = HELP_WIDTH - HELP_COL, len = (int)strlen(text);
        if (len > room) {
            len = room;
            while (len > 0 && text[len] != ' ')
                len--;
            if (len == 0)
                len = room;
        }
        fprintf(f, "%*s%.*s\n", HELP_COL - col, "", len, text);
        col = 0;
        text += len;
        while (*text == ' ')
            text++;
    }
}

static void help(FILE *f, const stage_opt *map, int nmap)
{
    char formats[64];

    gf_format_list(formats, sizeof formats, "|", "|");
    gf_cli_usage(f);
    fputs("Image filters on the GPU: box mean, Gaussian, unsharp mask, median,\n"
          "erode/dilate/open/close, Sobel, Scharr, Laplacian and convolution (any border:\n"
          "replicate, reflect101, constant), threshold, transpose, rotate, flip,\n"
          "histograms and projection profiles; with a CPU fallback that gives the same\n"
          "bytes.\n\n"
          "Input: PNG, JPEG, BMP, binary PGM/PPM/PAM, TIFF (one page: --page) or WebP\n"
          "(an animation's first frame), detected from the content ('-' is stdin). An\n"
          "image keeps its channels (gray, gray+alpha, RGB, RGBA) and depth (8 or 16\n"
          "bits); every stage works on each channel alike, alpha included. --gray and\n"
          "--depth convert. A colour JPEG decodes as libjpeg-turbo gives it (nvJPEG in a\n"
          "batch on the GPU, with the same pixels), a WebP as libwebp gives it. Output:\n"
          "PNG (any layout), PGM (gray), PPM (RGB), PAM (any), JPEG (8-bit gray or RGB;\n"
          "libjpeg-turbo's, or nvJPEG's with --backend cuda), TIFF (any layout;\n"
          "--compress), WebP (8-bit, gray as RGB; lossy, or --lossless). Stages run in\n"
          "the order given.\n",
          f);
    for (size_t sec = 0; sec < sizeof sections / sizeof sections[0]; sec++) {
        const char *name = sections[sec];
        fprintf(f, "\n%s%s", name, name[0] ? ":\n" : "");
        for (int i = 0; i < nmap; i++) {
            int is_add = map[i].opt->kind == GF_OPT_ADD;
            if ((!strcmp(name, "Stages") && is_add) || (!strcmp(name, "Stage settings") && !is_add))
                help_line(f, 0, map[i].opt->name, map[i].opt->arg, map[i].opt->help);
        }
        for (int i = 0; i < N_CLI_OPTS; i++)
            if (!strcmp(cli_opts[i].section, name))
                help_line(f, cli_opts[i].short_name, cli_opts[i].name,
                          cli_opts[i].id == O_FORMAT ? formats : cli_opts[i].arg,
                          cli_opts[i].help);
        if (!strcmp(name, "Kernels")) {
            fputs("  variants:", f);
            for (int s = 0; gf_stages[s]; s++) {
                fprintf(f, " %s (", gf_stages[s]->name);
                for (int v = 0; gf_stages[s]->variants[v].name; v++)
                    fprintf(f, "%s%s", v ? ", " : "", gf_stages[s]->variants[v].name);
                fputs(gf_stages[s + 1] ? ")" : ")\n", f);
                if (s % 3 == 2 && gf_stages[s + 1])
                    fputs("\n           ", f);
            }
        }
    }
    fputs("\nExit status: 0 ok, 64 usage, 65 bad input data, 66 input unreadable,\n"
          "69 no GPU where one is required, 70 internal error or variant mismatch,\n"
          "73 cannot create output, 74 write error; 128+N after signal N.\n"
          "See gpufilt(1).\n",
          f);
}

/* A setting or modifier seen on the command line. */
typedef struct pending {
    const stage_opt *so;
    const char *arg;
    int used;
} pending;

typedef struct parse_state {
    gf_plan *p;
    pending settings[MAX_PENDING], modifiers[MAX_PENDING];
    int nsettings, nmodifiers;
    const char *variant; /* --variant NAME, --shared, --no-shared */
    const char *variant_opt;
    int plain_format;    /* --format given */
} parse_state;

/* Checks a setting's or modifier's argument on a scratch stage of its
 * owner (a histogram for a report modifier that any report stage takes). */
static int check_arg(const stage_opt *so, const char *arg)
{
    gf_stage scratch;
    int rc;

    gf_stage_init(&scratch, so->owner ? so->owner : gf_stage_find("hist"));
    rc = so->opt->parse(&scratch, arg);
    return rc < 0 ? rc : 0;
}

static int add_stage(parse_state *ps, const stage_opt *so, const char *arg)
{
    gf_plan *p = ps->p;
    gf_stage *s;
    int rc;

    if (p->nstages == GF_MAX_STAGES)
        return gf_err(GF_EUSAGE, NULL, "more than %d stages", GF_MAX_STAGES);
    s = &p->stages[p->nstages];
    gf_stage_init(s, so->owner);
    if ((rc = so->opt->parse(s, arg)) < 0)
        return rc;
    p->nstages++;
    for (int i = 0; i < ps->nmodifiers; i++) {
        if (!applies(ps->modifiers[i].so, s))
            continue;
        rc = ps->modifiers[i].so->opt->parse(s, ps->modifiers[i].arg);
        if (rc < 0)
            return rc;
        ps->modifiers[i].used |= rc == 0;
    }
    return 0;
}

static int stage_option(parse_state *ps, const stage_opt *so, const char *arg)
{
    pending *list;
    int *n, rc;

    if (so->opt->kind == GF_OPT_ADD)
        return add_stage(ps, so, arg);
    if ((rc = check_arg(so, arg)))
        return rc;
    list = so->opt->kind == GF_OPT_SETTING ? ps->settings : ps->modifiers;
    n = so->opt->kind == GF_OPT_SETTING ? &ps->nsettings : &ps->nmodifiers;
    if (*n == MAX_PENDING)
        return gf_err(GF_EUSAGE, NULL, "too many stage settings");
    list[(*n)++] = (pending){so, arg, 0};
    return 0;
}

/* --shard slurm: this task's slice of a Slurm job array, from
 * SLURM_ARRAY_TASK_ID, _MIN, _STEP and _COUNT (sbatch(1)): K is the task's
 * place in the array, from 1, and N the array's size, so --array=0-3,
 * 1-4 and 1-7:2 all give 1/4 .. 4/4. */
static int slurm_shard(gf_plan *p)
{
    const char *names[4] = {"SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_MIN", "SLURM_ARRAY_TASK_STEP",
                            "SLURM_ARRAY_TASK_COUNT"};
    int v[4] = {0, 0, 1, 0};

    for (int i = 0; i < 4; i++) {
        const char *s = getenv(names[i]);
        if (!s && i == 2)
            continue; /* older Slurm: no step, 1 */
        if (!s)
            return gf_err(GF_EUSAGE, NULL,
                          "--shard slurm: %s is not set (run it as a task of a Slurm job array: "
                          "sbatch --array)",
                          names[i]);
        if (gf_parse_int(names[i], s, 0, 100000000, &v[i]))
            return GF_EUSAGE;
    }
    if (v[2] < 1 || v[0] < v[1] || (v[0] - v[1]) % v[2] || (v[0] - v[1]) / v[2] >= v[3] ||
        v[3] > 1000000)
        return gf_err(GF_EUSAGE, NULL,
                      "--shard slurm: task %d is not in an array from %d by %d of %d tasks", v[0],
                      v[1], v[2], v[3]);
    p->shard_k = (v[0] - v[1]) / v[2] + 1;
    p->shard_n = v[3];
    return 0;
}

static int parse_shard(gf_plan *p, const char *arg)
{
    int kn[2];

    if (!strcmp(arg, "slurm"))
        return slurm_shard(p);
    if (gf_parse_ints("--shard", "K/N", arg, '/', 2, 1, 1000000, kn) || kn[0] > kn[1])
        return gf_err(GF_EUSAGE, NULL, "--shard: '%s' is not K/N with 1 <= K <= N <= 1000000",
                      arg);
    p->shard_k = kn[0];
    p->shard_n = kn[1];
    return 0;
}

/* --device N[,M...] or all. */
static int parse_devices(gf_plan *p, const char *arg)
{
    const char *s = arg;

    p->ndevices = 0;
    p->all_devices = !strcmp(arg, "all");
    if (p->all_devices)
        return 0;
    for (;;) {
        char num[16];
        size_t n = strcspn(s, ",");
        int d;
        if (n == 0 || n >= sizeof num)
            return gf_err(GF_EUSAGE, NULL, "--device: '%s' is not N[,M...] or all", arg);
        memcpy(num, s, n);
        num[n] = 0;
        if (gf_parse_int("--device", num, 0, 1023, &d))
            return GF_EUSAGE;
        /* a GPU listed again is another entry: its own workers, streams
         * and decoder state on the same GPU (the several-GPU scheduler on
         * one) */
        if (p->ndevices == GF_MAX_DEVICES)
            return gf_err(GF_EUSAGE, NULL, "--device: at most %d entries", GF_MAX_DEVICES);
        p->devices[p->ndevices++] = d;
        if (!s[n])
            return 0;
        s += n + 1;
    }
}

static int choose(const char *opt, const char *arg, const char *const *names, int *v)
{
    for (int i = 0; names[i]; i++)
        if (!strcmp(arg, names[i])) {
            *v = i;
            return 0;
        }
    return gf_err(GF_EUSAGE, NULL, "%s: '%s' is not one of %s%s%s%s%s", opt, arg, names[0],
                  names[1] ? ", " : "", names[1] ? names[1] : "", names[2] ? ", " : "",
                  names[2] ? names[2] : "");
}

static int cli_option(parse_state *ps, int id, const char *arg, int *done)
{
    static const char *const backends[] = {"auto", "cuda", "cpu", NULL};
    static const char *const timings[] = {"text", "json", NULL};
    gf_plan *p = ps->p;
    int v, rc = 0;

    switch (id) {
    case O_OUTPUT: p->output = arg; break;
    case O_FORMAT:
        if ((p->format = gf_format_parse(arg)) == GF_FMT_NONE) {
            char names[128];
            return gf_err(GF_EUSAGE, NULL, "--format: '%s' is not %s", arg,
                          gf_format_list(names, sizeof names, ", ", " or "));
        }
        ps->plain_format = 1;
        break;
    case O_PNG_LEVEL: return gf_parse_int("--png-level", arg, 0, 12, &p->png_level);
    case O_QUALITY: return gf_parse_int("--quality", arg, 1, 100, &p->jpeg_quality);
    case O_LOSSLESS: p->webp_lossless = 1; break;
    case O_STRIP: p->strip = 1; break;
    case O_DRAFT: p->draft = 1; break;
    case O_COMPRESS: {
        /* in gf_tiff_compress's order */
        static const char *const schemes[] = {"deflate", "none", "lzw", "packbits"};
        for (int i = 0; i < 4; i++)
            if (!strcmp(arg, schemes[i])) {
                p->tiff_compress = i;
                return 0;
            }
        return gf_err(GF_EUSAGE, NULL,
                      "--compress: '%s' is not one of none, lzw, deflate, packbits", arg);
    }
    case O_PAGE: {
        int page;
        if ((rc = gf_parse_int("--page", arg, 0, 65535, &page)) == 0)
            p->limits.page = (uint32_t)page;
        return rc;
    }
    case O_FORCE: p->force = 1; break;
    case O_FILES_FROM: p->files_from = arg; break;
    case O_NULL: p->files_null = 1; break;
    case O_SHARD: return parse_shard(p, arg);
    case O_JOBS: return gf_parse_int("--jobs", arg, 1, 1024, &p->jobs);
    case O_SKIP_EXISTING: p->skip_existing = 1; break;
    case O_DRY_RUN: p->dry_run = 1; break;
    case O_AUTO_ORIENT: p->auto_orient = 1; break;
    case O_STATS: p->stats = 1; break;
    case O_SHARED: ps->variant = "shared"; ps->variant_opt = "--shared"; break;
    case O_NO_SHARED: ps->variant = "global"; ps->variant_opt = "--no-shared"; break;
    case O_VARIANT: ps->variant = arg; ps->variant_opt = "--variant"; break;
    case O_BACKEND:
        if ((rc = choose("--backend", arg, backends, &v)) == 0)
            p->backend = (gf_backend)v;
        return rc;
    case O_DEVICE: return parse_devices(p, arg);
    case O_COMPARE: p->compare = 1; break;
    case O_TIMINGS:
        if ((rc = choose("--timings", arg, timings, &v)) == 0)
            p->timings = (gf_timings)v;
        return rc;
    case O_QUIET: p->quiet = 1; break;
    case O_MAX_PIXELS:
        return gf_parse_u64("--max-pixels", arg, 1, UINT64_MAX, &p->limits.max_pixels);
    case O_MAX_FILE_SIZE:
        return gf_parse_u64("--max-file-size", arg, 1, UINT64_MAX, &p->limits.max_file_bytes);
    case O_MAX_IMAGE_BYTES:
        return gf_parse_u64("--max-image-bytes", arg, 1, UINT64_MAX,
                            &p->limits.max_image_bytes);
    case O_HELP:
    case O_VERSION: *done = id; break;
    }
    return rc;
}

/* Operands: the inputs; "-" only alone. */
static int finish_inputs(gf_plan *p, int argc, char **argv)
{
    p->inputs = argv + optind;
    p->ninputs = argc - optind;
    p->batch = p->ninputs > 1 || p->files_from;
    if (!p->ninputs && !p->files_from)
        return gf_err(GF_EUSAGE, NULL, "no input file");
    for (int i = 0; i < p->ninputs && p->batch; i++)
        if (!strcmp(p->inputs[i], "-"))
            return gf_err(GF_EUSAGE, NULL, "'-' (stdin) can only be the one input");
    if (p->files_null && !p->files_from)
        return gf_err(GF_EUSAGE, NULL, "--null needs --files-from");
    return 0;
}

/* Settings apply to every stage that lists them, wherever given; a
 * modifier must precede a stage it applies to. */
static int finish_settings(parse_state *ps)
{
    gf_plan *p = ps->p;

    for (int i = 0; i < ps->nsettings; i++)
        for (int s = 0; s < p->nstages; s++)
            if (applies(ps->settings[i].so, &p->stages[s])) {
                int rc = ps->settings[i].so->opt->parse(&p->stages[s], ps->settings[i].arg);
                if (rc < 0)
                    return rc;
            }
    for (int i = 0; i < ps->nmodifiers; i++)
        if (!ps->modifiers[i].used)
            return gf_err(GF_EUSAGE, NULL,
                          "--%s: no stage that it applies to follows it (a modifier applies "
                          "to the stages given after it)",
                          ps->modifiers[i].so->opt->name);
    return 0;
}

/* --stats alone adds a histogram at the end; report files have known types,
 * outputs are distinct and at most one of them is stdout. */
static int finish_reports(gf_plan *p)
{
    const char *outs[GF_MAX_STAGES + 1];
    int n = 0, has_hist = 0, stdout_users = p->stats;
    const gf_stage_ops *hist = gf_stage_find("hist");

    for (int i = 0; i < p->nstages; i++)
        has_hist |= p->stages[i].ops == hist;
    if (p->stats && !has_hist) {
        if (p->nstages == GF_MAX_STAGES)
            return gf_err(GF_EUSAGE, NULL, "more than %d stages", GF_MAX_STAGES);
        gf_stage_init(&p->stages[p->nstages++], hist);
    }
    if (p->output)
        outs[n++] = p->output;
    for (int i = 0; i < p->nstages; i++) {
        const char *path = p->stages[i].path;
        if (!gf_stage_is_report(&p->stages[i]) || !path)
            continue;
        if (gf_report_type_of(path) == GF_REPORT_NONE)
            return gf_err(GF_EUSAGE, path,
                          "report file must end in .csv, .json, .png or .svg, or be -");
        outs[n++] = path;
    }
    for (int i = 0; i < n; i++) {
        char buf[4096];
        int rc;
        if (!outs[i][0])
            return gf_err(GF_EUSAGE, NULL, "an output name is empty");
        stdout_users += !strcmp(outs[i], "-");
        for (int j = 0; j < i; j++)
            if (strcmp(outs[i], "-") && !strcmp(outs[i], outs[j]))
                return gf_err(GF_EUSAGE, outs[i], "named as more than one output");
        if ((rc = gf_expand_template(outs[i], "dir/file.png", 1, buf, sizeof buf)))
            return rc; /* every template field known */
    }
    if (stdout_users > 1)
        return gf_err(GF_EUSAGE, NULL, "only one output may go to stdout ('-' or --stats)");
    return 0;
}

/* --variant NAME, --shared, --no-shared: each stage that has the variant
 * uses it; --variant must name one that some stage has. */
static int finish_variants(parse_state *ps)
{
    gf_plan *p = ps->p;
    int found = 0;

    if (!ps->variant)
        return 0;
    for (int i = 0; i < p->nstages; i++) {
        int v = gf_stage_variant_index(p->stages[i].ops, ps->variant);
        if (v >= 0) {
            p->stages[i].variant = v;
            found = 1;
        }
    }
    if (!found && !strcmp(ps->variant_opt, "--variant"))
        return gf_err(GF_EUSAGE, NULL, "no stage has a kernel variant '%s'", ps->variant);
    return 0;
}

/* The image output: a name, a directory or a template, its format, and
 * whether anything is asked for at all. */
static int finish_output(parse_state *ps)
{
    gf_plan *p = ps->p;
    const char *o = p->output;
    struct stat st;
    int reports = 0;

    for (int i = 0; i < p->nstages; i++)
        reports += gf_stage_is_report(&p->stages[i]);
    if (!o) {
        if (!p->compare && !reports)
            return gf_err(GF_EUSAGE, NULL,
                          "no output: give -o FILE, a report stage (--hist, --colsum, --rowsum, "
                          "--stats) or --compare");
        return 0;
    }
    if (!strcmp(o, "-")) {
        if (p->batch)
            return gf_err(GF_EUSAGE, NULL, "-o -: a batch cannot write its images to stdout");
        if (!p->format)
            p->format = GF_FMT_PNG;
        return 0;
    }
    if (!p->batch && stat(o, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
        if (!p->format) /* a device or a FIFO, written in place: PNG unless told */
            p->format = GF_FMT_PNG;
        return 0;
    }
    p->output_dir = o[strlen(o) - 1] == '/' || (stat(o, &st) == 0 && S_ISDIR(st.st_mode)) ||
                    (p->batch && !strchr(o, '{'));
    if (p->output_dir) {
        if (!p->format)
            p->format = GF_FMT_PNG;
        return 0;
    }
    return gf_format_check_name(o, &p->format, ps->plain_format);
}

int gf_cli_parse(int argc, char **argv, gf_plan *p)
{
    static parse_state ps; /* large; parsing runs once, before any thread */
    struct option longopts[MAX_OPTS + 1];
    stage_opt map[MAX_OPTS];
    char shortopts[16] = ":";
    int nmap = collect_stage_opts(map, MAX_OPTS), n = 0, c, rc, done = 0;

    memset(p, 0, sizeof *p);
    memset(&ps, 0, sizeof ps);
    ps.p = p;
    p->png_level = GF_DEFAULT_PNG_LEVEL;
    p->jpeg_quality = GF_DEFAULT_JPEG_QUALITY;
    p->limits.max_pixels = GF_DEFAULT_MAX_PIXELS;
    p->limits.max_file_bytes = GF_DEFAULT_MAX_FILE_BYTES;
    p->limits.max_image_bytes = GF_DEFAULT_MAX_IMAGE_BYTES;
    for (int i = 0; i < N_CLI_OPTS; i++) {
        longopts[n++] = (struct option){cli_opts[i].name,
                                        cli_opts[i].arg ? required_argument : no_argument, NULL,
                                        cli_opts[i].id};
        if (cli_opts[i].short_name) {
            size_t len = strlen(shortopts);
            shortopts[len] = cli_opts[i].short_name;
            shortopts[len + 1] = cli_opts[i].arg ? ':' : 0;
            shortopts[len + 2] = 0;
        }
    }
    for (int i = 0; i < nmap && n < MAX_OPTS; i++)
        longopts[n++] = (struct option){map[i].opt->name,
                                        optional_arg(map[i].opt) ? optional_argument
                                        : map[i].opt->arg        ? required_argument
                                                                 : no_argument,
                                        NULL, O_STAGE + i};
    longopts[n] = (struct option){NULL, 0, NULL, 0};

    opterr = 0;
    optind = 0; /* 0: glibc starts afresh (parsing may run more than once) */
    while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
        if (c >= O_STAGE) {
            /* an optional value is the next word when it looks like one (getopt
             * takes only --opt=VALUE); taking it moves optind past it, as getopt
             * does for a required argument, so its permutation of the operands
             * stays right */
            if (optional_arg(map[c - O_STAGE].opt) && !optarg && optind < argc &&
                optional_value(argv[optind]))
                optarg = argv[optind++];
            rc = stage_option(&ps, &map[c - O_STAGE], optarg);
        }
        else if (c == ':')
            rc = gf_err(GF_EUSAGE, NULL, "option %s needs an argument", argv[optind - 1]);
        else if (c == '?')
            rc = optopt ? gf_err(GF_EUSAGE, NULL, "unknown option -%c", optopt)
                        : gf_err(GF_EUSAGE, NULL, "unknown option %s", argv[optind - 1]);
        else {
            for (int i = 0; i < N_CLI_OPTS; i++) /* short options map to their ids */
                if (cli_opts[i].short_name && c == cli_opts[i].short_name)
                    c = cli_opts[i].id;
            rc = cli_option(&ps, c, optarg, &done);
        }
        if (rc)
            return rc;
        if (done == O_HELP) {
            help(stdout, map, nmap);
            return 1;
        }
        if (done == O_VERSION) {
            printf("gpufilt %s\n", GF_VERSION);
            return 1;
        }
    }
    if (p->draft && (p->nstages == 0 || strcmp(p->stages[0].ops->name, "resize")))
        return gf_err(GF_EUSAGE, NULL,
                      "--draft: the first stage must be a --resize (it shrinks JPEGs on load "
                      "for that size)");
    if ((rc = finish_inputs(p, argc, argv)) || (rc = finish_settings(&ps)) ||
        (rc = finish_reports(p)) || (rc = finish_variants(&ps)) || (rc = finish_output(&ps)))
        return rc;
    p->gpu_forced = p->backend == GF_BACKEND_CUDA || p->compare || ps.variant != NULL;
    return 0;
}
