/* cli.c - options -> an ordered list of stages (getopt_long), usage and --help. */
#include "cli.h"

#include "batch.h"
#include "stages/orient.h"
#include "stages/report_file.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum {
    OPT_MEAN = 256,
    OPT_BORDER,
    OPT_SHARED,
    OPT_NO_SHARED,
    OPT_VARIANT,
    OPT_BACKEND,
    OPT_DEVICE,
    OPT_COMPARE,
    OPT_TIMINGS,
    OPT_FORMAT,
    OPT_PNG_LEVEL,
    OPT_MAX_PIXELS,
    OPT_MAX_FILE_SIZE,
    OPT_FORCE,
    OPT_VERSION,
    OPT_TRANSPOSE,
    OPT_TRANSVERSE,
    OPT_ROTATE,
    OPT_FLIP,
    OPT_FLOP,
    OPT_HIST,
    OPT_HIST_LOG,
    OPT_HIST_CHANNELS,
    OPT_STATS,
    OPT_COLSUM,
    OPT_ROWSUM,
    OPT_FILES_FROM,
    OPT_SHARD,
    OPT_JOBS,
    OPT_SKIP_EXISTING,
};

static const struct option long_options[] = {
    {"output", required_argument, NULL, 'o'},
    {"mean", required_argument, NULL, OPT_MEAN},
    {"transpose", no_argument, NULL, OPT_TRANSPOSE},
    {"transverse", no_argument, NULL, OPT_TRANSVERSE},
    {"rotate", required_argument, NULL, OPT_ROTATE},
    {"flip", no_argument, NULL, OPT_FLIP},
    {"flop", no_argument, NULL, OPT_FLOP},
    {"hist", required_argument, NULL, OPT_HIST},
    {"hist-log", no_argument, NULL, OPT_HIST_LOG},
    {"hist-channels", required_argument, NULL, OPT_HIST_CHANNELS},
    {"stats", no_argument, NULL, OPT_STATS},
    {"colsum", required_argument, NULL, OPT_COLSUM},
    {"rowsum", required_argument, NULL, OPT_ROWSUM},
    {"border", required_argument, NULL, OPT_BORDER},
    {"shared", no_argument, NULL, OPT_SHARED},
    {"no-shared", no_argument, NULL, OPT_NO_SHARED},
    {"variant", required_argument, NULL, OPT_VARIANT},
    {"backend", required_argument, NULL, OPT_BACKEND},
    {"device", required_argument, NULL, OPT_DEVICE},
    {"compare", no_argument, NULL, OPT_COMPARE},
    {"quiet", no_argument, NULL, 'q'},
    {"timings", required_argument, NULL, OPT_TIMINGS},
    {"format", required_argument, NULL, OPT_FORMAT},
    {"png-level", required_argument, NULL, OPT_PNG_LEVEL},
    {"max-pixels", required_argument, NULL, OPT_MAX_PIXELS},
    {"max-file-size", required_argument, NULL, OPT_MAX_FILE_SIZE},
    {"force", no_argument, NULL, OPT_FORCE},
    {"files-from", required_argument, NULL, OPT_FILES_FROM},
    {"shard", required_argument, NULL, OPT_SHARD},
    {"jobs", required_argument, NULL, OPT_JOBS},
    {"skip-existing", no_argument, NULL, OPT_SKIP_EXISTING},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, OPT_VERSION},
    {NULL, 0, NULL, 0},
};

static const char help_text[] =
    "Image filters on the GPU: box mean, transpose, rotate, flip, histograms and\n"
    "projection profiles; with a CPU fallback.\n"
    "\n"
    "Input: PNG, JPEG, BMP or binary PGM/PPM, detected from the content ('-' is\n"
    "stdin); colour becomes 8-bit luma (77 R + 150 G + 29 B) >> 8.\n"
    "Stages run in the order given, on the GPU when one is usable.\n"
    "\n"
    "Stages:\n"
    "      --mean 3|5          box mean (box filter), rounded to nearest\n"
    "      --transpose         swap the axes (numpy a.T)\n"
    "      --transverse        reflect about the anti-diagonal\n"
    "      --rotate 90|180|270 rotate clockwise\n"
    "      --flip              mirror top to bottom\n"
    "      --flop              mirror left to right\n"
    "      --hist FILE         256-bin histogram: FILE.csv, .json, .png plot, or -\n"
    "                          (CSV on stdout); statistics on stderr\n"
    "      --colsum FILE       column sums (vertical projection profile)\n"
    "      --rowsum FILE       row sums (horizontal projection profile)\n"
    "      --stats             histogram statistics as key=value lines on stdout\n"
    "\n"
    "Stage options:\n"
    "      --border MODE       replicate (default), reflect101, constant[=V]\n"
    "      --shared            shared-memory kernels (the default)\n"
    "      --no-shared         global-memory kernels\n"
    "      --variant NAME      kernel variant by name (global, shared, vector,\n"
    "                          byte, word, split, warp)\n"
    "      --hist-log          plot histograms on a log scale\n"
    "      --hist-channels C   luma (default) or rgb: also count the decoded\n"
    "                          image's R, G and B\n"
    "\n"
    "Output:\n"
    "  -o, --output FILE       write the image to FILE ('-' is stdout); not needed\n"
    "                          when a report stage or --compare is given\n"
    "      --format png|pgm    output format (default: from FILE's extension)\n"
    "      --png-level N       PNG deflate level 0-12 (default 1)\n"
    "      --force             allow FILE to be the input file\n"
    "\n"
    "Batches (several inputs, or --files-from):\n"
    "  -o DIR/ or TEMPLATE     outputs in DIR, or named by a template of {stem},\n"
    "                          {name}, {ext}, {dir} and {index}; reports too\n"
    "      --files-from FILE   input paths, one a line ('-' is stdin)\n"
    "      --shard K/N         only the K-th of N slices of the list (1 <= K <= N)\n"
    "      --jobs N            CPU workers decoding and encoding (default: cores)\n"
    "      --skip-existing     skip inputs whose outputs all exist\n"
    "\n"
    "Backend and reports:\n"
    "      --backend B         auto (default), cuda or cpu\n"
    "      --device N          GPU number (default 0)\n"
    "      --compare           run and time every variant, check each against\n"
    "                          the CPU reference\n"
    "      --timings text|json timing report format on stderr (default text)\n"
    "  -q, --quiet             no timings or notices\n"
    "\n"
    "Limits:\n"
    "      --max-pixels N      largest width x height (default 268435456)\n"
    "      --max-file-size N   largest input file in bytes (default 1073741824)\n"
    "\n"
    "  -h, --help              this help\n"
    "      --version           version\n"
    "\n"
    "Exit status: 0 ok, 64 usage, 65 bad input data, 66 input unreadable,\n"
    "69 no GPU with --backend cuda, 70 internal error or variant mismatch,\n"
    "73 cannot create output, 74 write error. See gpufilt(1).\n";

void gf_cli_usage(FILE *f)
{
    fputs("usage: gpufilt [OPTIONS] INPUT [-o OUTPUT] [STAGE...]  (gpufilt --help)\n", f);
}

/* Parses a whole unsigned decimal in [lo, hi]. */
static int parse_u64(const char *s, unsigned long long lo, unsigned long long hi,
                     unsigned long long *v)
{
    char *end;

    if (!s[0] || s[0] == '-' || s[0] == '+')
        return -1;
    errno = 0;
    *v = strtoull(s, &end, 10);
    return (errno || *end || *v < lo || *v > hi) ? -1 : 0;
}

static int parse_int(const char *opt, const char *s, int lo, int hi, int *v)
{
    unsigned long long u;

    if (parse_u64(s, (unsigned long long)lo, (unsigned long long)hi, &u))
        return gf_err(GF_EUSAGE, NULL, "%s: '%s' is not a number in %d..%d", opt, s, lo, hi);
    *v = (int)u;
    return 0;
}

static int parse_border(const char *s, gf_border *b)
{
    b->value = 0;
    if (!strcmp(s, "replicate"))
        b->mode = GF_BORDER_REPLICATE;
    else if (!strcmp(s, "reflect101"))
        b->mode = GF_BORDER_REFLECT101;
    else if (!strcmp(s, "constant"))
        b->mode = GF_BORDER_CONSTANT;
    else if (!strncmp(s, "constant=", 9)) {
        b->mode = GF_BORDER_CONSTANT;
        return parse_int("--border constant", s + 9, 0, 255, &b->value);
    } else
        return gf_err(GF_EUSAGE, NULL,
                      "--border: '%s' is not replicate, reflect101 or constant[=V]", s);
    return 0;
}

static int add_stage(gf_options *o, const gf_stage_ops *ops);

/* --stats alone adds a histogram at the end; outputs must be distinct and
 * at most one of them standard output. */
static int check_reports(gf_options *o)
{
    const char *outs[GF_MAX_STAGES + 1];
    int n = 0, has_hist = 0, stdout_users = 0;

    for (int i = 0; i < o->nstages; i++)
        has_hist |= o->stages[i].ops == &gf_stage_hist;
    if (o->report.stats && !has_hist) {
        int rc = add_stage(o, &gf_stage_hist);
        if (rc)
            return rc;
        o->stages[o->nstages - 1].u.report.path = NULL;
    }
    if (o->output)
        outs[n++] = o->output;
    for (int i = 0; i < o->nstages; i++)
        if (gf_stage_is_report(&o->stages[i]) && o->stages[i].u.report.path)
            outs[n++] = o->stages[i].u.report.path;
    for (int i = 0; i < n; i++) {
        stdout_users += !strcmp(outs[i], "-");
        for (int j = 0; j < i; j++)
            if (strcmp(outs[i], "-") && !strcmp(outs[i], outs[j]))
                return gf_err(GF_EUSAGE, outs[i], "named as more than one output");
    }
    for (int i = 0; i < n; i++) { /* templates: every field known */
        char buf[4096];
        int rc = gf_expand_template(outs[i], "dir/file.png", 1, buf, sizeof buf);
        if (rc)
            return rc;
    }
    if (stdout_users + o->report.stats > 1)
        return gf_err(GF_EUSAGE, NULL, "only one output may go to stdout ('-' or --stats)");
    return 0;
}

static int add_stage(gf_options *o, const gf_stage_ops *ops)
{
    if (o->nstages == GF_MAX_STAGES)
        return gf_err(GF_EUSAGE, NULL, "more than %d stages", GF_MAX_STAGES);
    memset(&o->stages[o->nstages], 0, sizeof o->stages[0]);
    o->stages[o->nstages].ops = ops;
    o->stages[o->nstages++].variant = -1;
    return 0;
}

int gf_cli_parse(int argc, char **argv, gf_options *o)
{
    const char *variant = NULL;
    gf_border border = {GF_BORDER_REPLICATE, 0};
    int c, rc, v, reports = 0;
    unsigned long long u;

    memset(o, 0, sizeof *o);
    o->png_level = GF_DEFAULT_PNG_LEVEL;
    o->limits.max_pixels = GF_DEFAULT_MAX_PIXELS;
    o->limits.max_file_bytes = GF_DEFAULT_MAX_FILE_BYTES;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":o:qh", long_options, NULL)) != -1) {
        switch (c) {
        case 'o':
            o->output = optarg;
            break;
        case OPT_MEAN:
            if (strcmp(optarg, "3") && strcmp(optarg, "5"))
                return gf_err(GF_EUSAGE, NULL, "--mean: size must be 3 or 5, not '%s'", optarg);
            if ((rc = add_stage(o, &gf_stage_mean)))
                return rc;
            o->stages[o->nstages - 1].u.mean.ksize = optarg[0] - '0';
            break;
        case OPT_TRANSPOSE:
        case OPT_TRANSVERSE:
        case OPT_ROTATE:
        case OPT_FLIP:
        case OPT_FLOP: {
            int op = c == OPT_TRANSPOSE    ? GF_TRANSPOSE
                     : c == OPT_TRANSVERSE ? GF_TRANSVERSE
                     : c == OPT_FLIP       ? GF_FLIP
                     : c == OPT_FLOP       ? GF_FLOP
                     : !strcmp(optarg, "90")  ? GF_ROTATE90
                     : !strcmp(optarg, "180") ? GF_ROTATE180
                     : !strcmp(optarg, "270") ? GF_ROTATE270
                                              : -1;
            if (op < 0)
                return gf_err(GF_EUSAGE, NULL, "--rotate: angle must be 90, 180 or 270, not '%s'",
                              optarg);
            if ((rc = add_stage(o, gf_orient_swaps(op) ? &gf_stage_transpose : &gf_stage_mirror)))
                return rc;
            o->stages[o->nstages - 1].u.orient.op = op;
            break;
        }
        case OPT_HIST:
        case OPT_COLSUM:
        case OPT_ROWSUM:
            if (gf_report_type_of(optarg) == GF_REPORT_NONE)
                return gf_err(GF_EUSAGE, optarg,
                              "report file must end in .csv, .json or .png, or be -");
            if ((rc = add_stage(o, c == OPT_HIST     ? &gf_stage_hist
                                   : c == OPT_COLSUM ? &gf_stage_colsum
                                                     : &gf_stage_rowsum)))
                return rc;
            o->stages[o->nstages - 1].u.report.path = optarg;
            break;
        case OPT_HIST_LOG:
            o->report.hist_log = 1;
            break;
        case OPT_HIST_CHANNELS:
            if (strcmp(optarg, "luma") && strcmp(optarg, "rgb"))
                return gf_err(GF_EUSAGE, NULL, "--hist-channels: '%s' is not luma or rgb", optarg);
            o->hist_rgb = !strcmp(optarg, "rgb");
            break;
        case OPT_STATS:
            o->report.stats = 1;
            break;
        case OPT_BORDER:
            if ((rc = parse_border(optarg, &border)))
                return rc;
            break;
        case OPT_SHARED:
            variant = "shared";
            break;
        case OPT_NO_SHARED:
            variant = "global";
            break;
        case OPT_VARIANT:
            variant = optarg;
            break;
        case OPT_BACKEND:
            if (!strcmp(optarg, "auto"))
                o->backend = GF_BACKEND_AUTO;
            else if (!strcmp(optarg, "cuda"))
                o->backend = GF_BACKEND_CUDA;
            else if (!strcmp(optarg, "cpu"))
                o->backend = GF_BACKEND_CPU;
            else
                return gf_err(GF_EUSAGE, NULL, "--backend: '%s' is not auto, cuda or cpu",
                              optarg);
            break;
        case OPT_DEVICE:
            if ((rc = parse_int("--device", optarg, 0, 1023, &o->device)))
                return rc;
            break;
        case OPT_COMPARE:
            o->compare = 1;
            break;
        case 'q':
            o->quiet = 1;
            break;
        case OPT_TIMINGS:
            if (!strcmp(optarg, "text"))
                o->timings = GF_TIMINGS_TEXT;
            else if (!strcmp(optarg, "json"))
                o->timings = GF_TIMINGS_JSON;
            else
                return gf_err(GF_EUSAGE, NULL, "--timings: '%s' is not text or json", optarg);
            break;
        case OPT_FORMAT:
            if (!strcmp(optarg, "png"))
                o->format = GF_FMT_PNG;
            else if (!strcmp(optarg, "pgm"))
                o->format = GF_FMT_PGM;
            else
                return gf_err(GF_EUSAGE, NULL, "--format: '%s' is not png or pgm", optarg);
            break;
        case OPT_PNG_LEVEL:
            if ((rc = parse_int("--png-level", optarg, 0, 12, &o->png_level)))
                return rc;
            break;
        case OPT_MAX_PIXELS:
        case OPT_MAX_FILE_SIZE:
            if (parse_u64(optarg, 1, UINT64_MAX, &u))
                return gf_err(GF_EUSAGE, NULL, "--%s: '%s' is not a positive number",
                              c == OPT_MAX_PIXELS ? "max-pixels" : "max-file-size", optarg);
            if (c == OPT_MAX_PIXELS)
                o->limits.max_pixels = u;
            else
                o->limits.max_file_bytes = u;
            break;
        case OPT_FORCE:
            o->force = 1;
            break;
        case OPT_FILES_FROM:
            o->files_from = optarg;
            break;
        case OPT_SHARD: {
            int k, n;
            char extra;
            if (sscanf(optarg, "%d/%d%c", &k, &n, &extra) != 2 || n < 1 || k < 1 || k > n)
                return gf_err(GF_EUSAGE, NULL, "--shard: '%s' is not K/N with 1 <= K <= N",
                              optarg);
            o->shard_k = k;
            o->shard_n = n;
            break;
        }
        case OPT_JOBS:
            if ((rc = parse_int("--jobs", optarg, 1, 1024, &o->jobs)))
                return rc;
            break;
        case OPT_SKIP_EXISTING:
            o->skip_existing = 1;
            break;
        case 'h':
            gf_cli_usage(stdout);
            fputs(help_text, stdout);
            return 1;
        case OPT_VERSION:
            printf("gpufilt %s\n", GF_VERSION);
            return 1;
        case ':':
            return gf_err(GF_EUSAGE, NULL, "option %s needs an argument", argv[optind - 1]);
        default:
            if (optopt)
                return gf_err(GF_EUSAGE, NULL, "unknown option -%c", optopt);
            return gf_err(GF_EUSAGE, NULL, "unknown option %s", argv[optind - 1]);
        }
    }
    /* getopt_long moves the operands after the options. */
    o->inputs = argv + optind;
    o->ninputs = argc - optind;
    o->batch = o->ninputs > 1 || o->files_from;
    if (!o->ninputs && !o->files_from)
        return gf_err(GF_EUSAGE, NULL, "no input file");
    for (int i = 0; i < o->ninputs && o->batch; i++)
        if (!strcmp(o->inputs[i], "-"))
            return gf_err(GF_EUSAGE, NULL, "'-' (stdin) can only be the one input");
    o->input = o->ninputs ? o->inputs[0] : NULL;
    o->report.quiet = o->quiet;
    if ((rc = check_reports(o)))
        return rc;

    /* Stage-wide settings: border mode, the variant choice, RGB counts. */
    for (int i = 0; i < o->nstages; i++) {
        if (o->stages[i].ops == &gf_stage_mean)
            o->stages[i].u.mean.border = border;
        if (o->stages[i].ops == &gf_stage_hist)
            o->stages[i].u.report.rgb = o->hist_rgb;
        reports += gf_stage_is_report(&o->stages[i]);
    }
    if (variant) {
        int found = 0;
        for (int i = 0; i < o->nstages; i++) {
            v = gf_stage_variant_index(o->stages[i].ops, variant);
            if (v >= 0) {
                o->stages[i].variant = v;
                found = 1;
            }
        }
        if (!found)
            return gf_err(GF_EUSAGE, NULL, "no stage has a kernel variant '%s'", variant);
    }

    if (o->output) {
        struct stat st;
        size_t n = strlen(o->output);
        gf_format f = gf_format_from_name(o->output);
        o->output_dir = strcmp(o->output, "-") &&
                        (o->output[n - 1] == '/' ||
                         (stat(o->output, &st) == 0 && S_ISDIR(st.st_mode)) ||
                         (o->batch && !strchr(o->output, '{')));
        if (o->output_dir && !o->format)
            o->format = GF_FMT_PNG;
        if (!o->format)
            o->format = f;
        if (!o->format)
            return gf_err(GF_EUSAGE, NULL,
                          "%s: cannot tell the output format from the name; use --format png|pgm",
                          o->output);
        if (o->batch && !strcmp(o->output, "-"))
            return gf_err(GF_EUSAGE, NULL, "-o -: a batch cannot write its images to stdout");
    } else if (!o->compare && !reports) {
        return gf_err(GF_EUSAGE, NULL,
                      "no output: give -o FILE, a report stage (--hist, --colsum, --rowsum, "
                      "--stats) or --compare");
    }
    return 0;
}
