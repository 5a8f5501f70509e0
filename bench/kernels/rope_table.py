#!/usr/bin/env python3
"""Markdown table of bench_kernels_rope's JSON output (medians), for README's
`## Optimized kernels`:  rope_table.py results.json"""
import json
import re
import sys

runs = json.load(open(sys.argv[1]))["benchmarks"]
gbs = {}
for b in runs:
    if b.get("aggregate_name") != "median" or "GB/s" not in b:
        continue
    gbs[b["run_name"]] = b["GB/s"] / 1e0


def get(name):
    v = gbs.get(name)
    return v / 1e9 if v is not None and v > 1e6 else v


paths = {0: "scalar", 1: "avx2", 2: "avx512"}
print("| tokens | layout | rotary | threads | memcpy | scalar+table | pecheck scalar | pecheck avx2 | pecheck avx512 | best / memcpy |")
print("|---|---|---|---|---|---|---|---|---|---|")
for tokens in (8192, 256):
    for layout in (0, 1):
        for rot in (128, 64):
            for th in (1, 2):
                m = get(f"BM_Memcpy/tokens:{tokens}/real_time/threads:{th}")
                tab = get(f"BM_RopeScalarTable/tokens:{tokens}/layout:{layout}/rot:{rot}/real_time/threads:{th}")
                vals = [get(f"BM_RopeSimd/tokens:{tokens}/layout:{layout}/rot:{rot}/path:{p}/real_time/threads:{th}") for p in (0, 1, 2)]
                best = max(v for v in vals if v)
                cells = [f"{v:.1f}" if v else "-" for v in [m, tab] + vals]
                print(f"| {tokens} | {'neox' if layout == 0 else 'gptj'} | {rot} | {th} | " + " | ".join(cells) + f" | {best / m:.2f} |")
for tokens in (8192, 256):
    off = get(f"BM_RopeStream/tokens:{tokens}/stream:0/real_time")
    on = get(f"BM_RopeStream/tokens:{tokens}/stream:1/real_time")
    if off and on:
        print(f"\nStreaming stores, {tokens} tokens, neox, full rotary, 1 thread: off {off:.1f} GB/s, on {on:.1f} GB/s")
