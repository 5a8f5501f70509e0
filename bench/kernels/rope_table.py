#!/usr/bin/env python3
"""Markdown tables of bench_kernels_rope's JSON output (medians over repetitions), for README's
`## Optimized kernels`.

    rope_table.py results.json [--before OLD.json] [--readme FILE]

prints the tables, or with --readme replaces the text between the markers
<!-- rope_table:begin --> / <!-- rope_table:end --> of FILE; --before adds a column with the
`pec_rope_f32` ratio of an earlier run (another JSON of the same program, e.g. the same binary
run against an older libpecheck_simd.so through LD_LIBRARY_PATH).

    rope_table.py --cached cached.json [--readme FILE]

the cos/sin-cache rotation table (BM_RopeCached rows, `pec_rope_cached_f32`), between
<!-- rope_cached_table:begin --> / <!-- rope_cached_table:end -->.
"""
import argparse
import json
import re
import sys

GOAL_OUT, GOAL_IN = 0.8, 0.75  # issue 15: out of cache (8192 tokens), in cache (256 tokens)
GOAL_CACHED = 0.9  # issue 15 item 2: pec_rope_cached_f32 out of cache


def load(path):
    doc = json.load(open(path))
    med = {}
    for b in doc["benchmarks"]:
        if b.get("aggregate_name") == "median" or (b.get("run_type") == "iteration" and b["run_name"] not in med):
            med[b["run_name"]] = b
    return doc["context"], med


def tables(ctx, med, before=None):
    out = []
    load_end = next((b["load1"] for k, b in med.items() if k.startswith("BM_LoadAverage")), None)
    out.append(
        f"CPU: {ctx.get('cpu_model', '?')} ({ctx.get('cpu_family', '?')}), {ctx.get('num_cpus', '?')} CPUs at "
        f"{ctx.get('mhz_per_cpu', '?')} MHz; `pec_rope_f32` dispatches to `{ctx.get('pec_rope_f32_path', '?')}`; "
        f"load average {float(ctx.get('load_average_start', 'nan')):.2f} at the start, "
        f"{load_end if load_end is None else f'{load_end:.2f}'} at the end; run {ctx.get('date', '?')}.")
    out.append("")
    names = ["auto", "avx512", "avx2", "scalar", "table"]
    ids = {"scalar": 0, "avx2": 1, "avx512": 2, "auto": 3, "table": 4}
    head = "| tokens | layout | rotary | memcpy GB/s | `pec_rope_f32` GB/s | **ratio** | goal | "
    if before is not None:
        head += "before | "
    out.append(head + "avx512 | avx2 | scalar | scalar+table |")
    out.append("|---" * (11 + (before is not None)) + "|")
    for tokens in (8192, 256):
        for layout in (0, 1):
            for rot in (128, 64):
                row = {}
                for n in names:
                    b = med.get(f"BM_Rope/tokens:{tokens}/layout:{layout}/rot:{rot}/impl:{ids[n]}/manual_time")
                    row[n] = b
                a = row["auto"]
                if a is None:
                    continue
                goal = GOAL_OUT if tokens == 8192 else GOAL_IN
                ratio = a["ratio"]
                cells = [str(tokens), "neox" if layout == 0 else "gptj", str(rot), f"{a['memcpy_GB/s']:.1f}",
                         f"{a['GB/s']:.1f}", f"**{ratio:.2f}**", f"{goal} {'met' if ratio >= goal else 'NOT met'}"]
                if before is not None:
                    b = before.get(f"BM_Rope/tokens:{tokens}/layout:{layout}/rot:{rot}/impl:{ids['auto']}/manual_time")
                    cells.append("-" if b is None else f"{b['ratio']:.2f}")
                for n in names[1:]:
                    b = row[n]
                    cells.append("-" if b is None or "ratio" not in b else f"{b['ratio']:.2f}")
                out.append("| " + " | ".join(cells) + " |")
    out.append("")
    note = ("Columns avx512 … scalar+table: ratio to memcpy of that code path in its own row (each row "
            "pairs memcpy with the kernel call by call).")
    if before is not None:
        bctx, bmed = before["__ctx"], before
        bload = next((b["load1"] for k, b in bmed.items() if k.startswith("BM_LoadAverage")), None)
        note += (f" Column before: `pec_rope_f32` ratio of a run at {bctx.get('date', '?')} (load average "
                 f"{float(bctx.get('load_average_start', 'nan')):.2f} at the start"
                 + ("" if bload is None else f", {bload:.2f} at the end") + f"): {before['__what']}.")
    out.append(note)
    out.append("")
    rows = [(k, b) for k, b in med.items() if k.startswith("BM_RopeStream/")]
    if rows:
        out.append("Streaming stores off / on, full rotary, same iteration (ratio to memcpy):")
        out.append("")
        out.append("| tokens | MiB per tensor | layout | memcpy GB/s | off GB/s | on GB/s | ratio off | ratio on |")
        out.append("|---|---|---|---|---|---|---|---|")
        for k, b in rows:
            m = re.match(r"BM_RopeStream/tokens:(\d+)/layout:(\d)", k)
            tokens, layout = int(m.group(1)), int(m.group(2))
            out.append(f"| {tokens} | {tokens * 32 * 128 * 4 // 2**20} | {'neox' if layout == 0 else 'gptj'} | "
                       f"{b['memcpy_GB/s']:.1f} | {b['GB/s_off']:.1f} | {b['GB/s_on']:.1f} | "
                       f"{b['ratio_off']:.2f} | {b['ratio_on']:.2f} |")
        out.append("")
    sc = [(k, b) for k, b in med.items() if k.startswith("BM_RopeSinCosOnly/")]
    if sc:
        paths = {"0": "scalar", "1": "avx2", "2": "avx512"}
        parts = []
        for k, b in sc:
            if "ns_per_token" in b:
                name = paths[re.search(r"path:(\d)", k).group(1)]
                parts.append(f"{name} {b['ns_per_token'] * 1e9:.0f} ns")
        out.append("cos/sin alone (`BM_RopeSinCosOnly`, 128 lanes, one head, per token): " + ", ".join(parts) + ".")
    return "\n".join(out)


def context_line(ctx, med):
    load_end = next((b["load1"] for k, b in med.items() if k.startswith("BM_LoadAverage")), None)
    return (f"CPU: {ctx.get('cpu_model', '?')} ({ctx.get('cpu_family', '?')}), {ctx.get('num_cpus', '?')} CPUs at "
            f"{ctx.get('mhz_per_cpu', '?')} MHz; `pec_*` dispatch to `{ctx.get('pec_rope_f32_path', '?')}`; "
            f"load average {float(ctx.get('load_average_start', 'nan')):.2f} at the start, "
            f"{load_end if load_end is None else f'{load_end:.2f}'} at the end; run {ctx.get('date', '?')}.")


def cached_table(ctx, med):
    out = [context_line(ctx, med), ""]
    out.append("| tokens | q heads / kv heads | layout | rotary | memcpy GB/s | `pec_rope_cached_f32` GB/s | **ratio** "
               "| goal | `pec_rope_qk_f32` ratio |")
    out.append("|---" * 9 + "|")
    for layout in (0, 1):
        for rot in (128, 64):
            b = med.get(f"BM_RopeCached/tokens:8192/layout:{layout}/rot:{rot}/fn:0/manual_time")
            if b is None or "ratio" not in b:
                continue
            q = med.get(f"BM_RopeCached/tokens:8192/layout:{layout}/rot:{rot}/fn:1/manual_time")
            r = b["ratio"]
            out.append(f"| 8192 | 32 / 8 | {'neox' if layout == 0 else 'gptj'} | {rot} | {b['memcpy_GB/s']:.1f} | "
                       f"{b['GB/s']:.1f} | **{r:.2f}** | {GOAL_CACHED} {'met' if r >= GOAL_CACHED else 'NOT met'} | "
                       f"{'-' if q is None or 'ratio' not in q else format(q['ratio'], '.2f')} |")
    out.append("")
    out.append("Column `pec_rope_qk_f32`: the same tensors with the angles computed per token (no cache), "
               "its own memcpy pairing in its own row.")
    return "\n".join(out)


def replace_between(path, name, text):
    doc = open(path).read()
    begin, end = f"<!-- {name}:begin -->", f"<!-- {name}:end -->"
    i, j = doc.index(begin) + len(begin), doc.index(end)
    open(path, "w").write(doc[:i] + "\n" + text + "\n" + doc[j:])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("results", nargs="?")
    ap.add_argument("--cached")
    ap.add_argument("--before")
    ap.add_argument("--before-what", default="the library before issue 15's changes")
    ap.add_argument("--readme")
    args = ap.parse_args()
    if args.cached:
        text = cached_table(*load(args.cached))
        if args.readme:
            replace_between(args.readme, "rope_cached_table", text)
        else:
            print(text)
        if not args.results:
            return
    ctx, med = load(args.results)
    before = None
    if args.before:
        bctx, before = load(args.before)
        before["__ctx"], before["__what"] = bctx, args.before_what
    text = tables(ctx, med, before)
    if args.readme:
        replace_between(args.readme, "rope_table", text)
    else:
        print(text)


if __name__ == "__main__":
    main()
