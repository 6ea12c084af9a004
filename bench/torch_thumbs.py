#!/usr/bin/env python3
"""torch_thumbs.py OUTDIR LIST [BATCH] - torchvision's GPU thumbnail pipeline,
the peer of `gpufilt --resize 320x320 --quality 85` in bench/thumbs_bench.sh.

What it measures: one process on one GPU (cuda:0) doing, BATCH (256) files
at a time, in turn: read each listed JPEG's bytes (torchvision.io.read_file),
decode the batch with torchvision.io.decode_jpeg(list, device='cuda')
(nvJPEG; RGB), resize each image on the GPU to fit 320x320 keeping its
aspect (the size rule of the script's other peers: scale min(320/w, 320/h),
sides rounded, at least 1) with transforms.v2.functional.resize(...,
antialias=True) (bilinear), encode the batch on the GPU with
torchvision.io.encode_jpeg(list, quality=85) (CUDA tensors: torchvision
0.19 or later), copy the bytes to the host and write OUTDIR/NNNNNN.jpg (the
file's index in LIST). Prints "steady R images/s": the files after the first batch
over the seconds from the first batch's last write to the last batch's, so
the interpreter's, torch's, CUDA's and nvJPEG's start-up are left out; the
whole process's rate, start-up included, is the caller's clock.

torch_thumbs.py --check prints why the pipeline cannot run here (torch or
torchvision missing, torchvision older than 0.19, no CUDA device) and exits
1; exits 0 when it can."""
import os
import sys
import time


def check():
    try:
        import torch
        import torchvision
    except ImportError as e:
        return "no torch/torchvision (%s)" % e
    major, minor = (int(x) for x in torchvision.__version__.split("+")[0].split(".")[:2])
    if (major, minor) < (0, 19):
        return "torchvision %s encodes no CUDA tensors (0.19 or later does)" % torchvision.__version__
    if not torch.cuda.is_available():
        return "torch %s sees no CUDA device" % torch.__version__
    return None


def main():
    if sys.argv[1:] == ["--check"]:
        why = check()
        if why:
            print(why)
        sys.exit(1 if why else 0)
    import torch
    from torchvision.io import ImageReadMode, decode_jpeg, encode_jpeg, read_file
    from torchvision.transforms.v2 import functional as F

    out, files = sys.argv[1], open(sys.argv[2]).read().splitlines()
    batch = int(sys.argv[3]) if len(sys.argv) > 3 else 256
    t_first, first = None, 0
    for b in range(0, len(files), batch):
        data = [read_file(f) for f in files[b:b + batch]]
        small = []
        for im in decode_jpeg(data, mode=ImageReadMode.RGB, device="cuda"):
            h, w = im.shape[-2:]
            s = min(320 / w, 320 / h)
            small.append(F.resize(im, [max(1, round(h * s)), max(1, round(w * s))],
                                  antialias=True))
        # the encoder's stream waits for no other: torchvision issue 8587
        torch.cuda.current_stream().synchronize()
        for i, jpg in enumerate(encode_jpeg(small, quality=85)):
            with open(os.path.join(out, "%06d.jpg" % (b + i)), "wb") as f:
                f.write(jpg.cpu().numpy().tobytes())
        if t_first is None:
            t_first, first = time.perf_counter(), len(data)
    t_end = time.perf_counter()
    rest = len(files) - first
    print("steady %.1f images/s" % (rest / (t_end - t_first)) if rest and t_end > t_first else
          "steady: one batch only")


if __name__ == "__main__":
    main()
