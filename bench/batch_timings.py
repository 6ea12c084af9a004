#!/usr/bin/env python3
"""batch_timings.py JSON LABEL N WALL [RATE_FILE] - one gpufilt batch's row for
the bench scripts, from its `--timings json` stderr (JSON): N files in WALL
seconds of the whole process, start-up included. Prints

  LABEL  images/s (seconds, files done, backends), steady: the second half's
         files over the second half's time (each file's done_ms)
  bottleneck (the summary's), the busy shares (the share of its time each of
         the workers and the GPUs' hardware decoders was at work), and each
         decoder's share of the files (the summary's "decode" steps by variant)
  ms a file of every step (the summary's steps: worker time, by variant)
  each GPU that took files: files, stream ms, and its hardware decoder's
         batches, busy and idle ms, queue and decoded waits a file, feeders' wait
  the workers: how many, files each (least-most), mean busy, wait, sat-out ms

and writes the rate to RATE_FILE (0 when some file was not done). Used by
bench/batch_bench.sh and bench/thumbs_bench.sh."""
import json
import sys


def main():
    path, label, n, wall = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
    done, backends, summary = [], {}, {}
    for line in open(path):
        if not line.startswith("{"):
            continue
        d = json.loads(line)
        if "summary" in d:
            summary = d["summary"]
        elif "steps" in d:
            done.append(d.get("done_ms", 0))
            backends[d["backend"]] = backends.get(d["backend"], 0) + 1
    done.sort()
    h = len(done) // 2
    steady = ((len(done) - h) / ((done[-1] - done[h - 1]) / 1e3)
              if h and done[-1] > done[h - 1] else 0)
    rate = n / wall if len(done) == n else 0.0
    print("  %-28s %7.1f images/s (%.2f s, %d done, %s), steady %.1f/s%s" %
          (label, n / wall, wall, len(done), ", ".join("%s %d" % kv for kv in backends.items()),
           steady, "" if rate else "; FAILED: %d of %d files not done" % (n - len(done), n)))
    if len(sys.argv) > 5:
        with open(sys.argv[5], "w") as f:
            f.write("%f\n" % rate)
    if not summary:
        print("    no summary in the timings")
        return
    steps = [s for s in summary.get("steps", []) if s["step"] != "total"]
    decoded = [(s.get("variant", "?"), s["files"]) for s in steps if s["step"] == "decode"]
    total = sum(f for _, f in decoded) or 1
    print("    bottleneck: %s; busy: %s; decoded by: %s" % (
        summary.get("bottleneck") or "-",
        ", ".join("%s %.2f" % kv for kv in summary.get("busy", {}).items()) or "-",
        ", ".join("%s %d (%.0f%%)" % (v, f, 100.0 * f / total) for v, f in decoded) or "-"))
    print("    ms a file: " + ", ".join(
        "%s%s %.2f" % (s["step"], "/" + s["variant"] if s.get("variant") else "", s["ms_per_file"])
        for s in steps))
    for g in summary.get("gpus", []):
        dec = g.get("decoder")
        if not g["files"] and not dec:
            continue
        line = "    gpu %d (%s): %d files, streams %.0f ms" % (g["device"], g["name"], g["files"],
                                                           g["stream_ms"])
        if dec:
            line += ("; decoder %d files in %d batches, busy %.0f ms, idle %.0f ms, waits a file:"
                     " queued %.2f ms, decoded %.2f ms; feeders waited %.0f ms" %
                     (dec["files"], dec["batches"], dec["busy_ms"], dec["idle_ms"],
                      dec["queued_ms_per_file"], dec["decoded_wait_ms_per_file"],
                      dec["feeders_wait_ms"]))
        print(line)
    ws = summary.get("workers", [])
    if ws:
        files = [x["files"] for x in ws]
        print("    %d workers: %d-%d files each; a worker's mean ms: busy %.0f, wait %.0f, out %.0f" %
              (len(ws), min(files), max(files), *(sum(x[k] for x in ws) / len(ws)
                                                   for k in ("busy_ms", "wait_ms", "out_ms"))))


if __name__ == "__main__":
    main()
