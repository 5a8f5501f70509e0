#!/usr/bin/env python3
"""The check of scripts/gen_vectors.py can fail: it is run on temporary copies of the committed
vectors with one value changed at a time (the last printed digit of a decimal, an exponent, a sign,
a T5 bucket, an ambiguous flag), on a malformed copy and at a working precision too low for huge
RoPE angles, and must report each of them; the untouched copy must pass, and regenerating the
files must reproduce the committed ones byte for byte.

Usage: test_gen_vectors.py REPO_ROOT   (CTest vectors.check_can_fail)
"""

import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", ".."))
SCRIPT = os.path.join(ROOT, "scripts", "gen_vectors.py")
VECTORS = os.path.join(ROOT, "tests", "vectors")
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import gen_vectors  # noqa: E402  (sample_rows and read_file: the rows a sampled check looks at)

SAMPLE = 64
failures = []


def run(*args):
    p = subprocess.run([sys.executable, SCRIPT] + list(args), capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


def expect(what, rc_want, args, needle=None):
    rc, out = run(*args)
    ok = rc == rc_want and (needle is None or needle in out)
    print("%s  %s (exit %d, want %d%s)" % ("ok  " if ok else "FAIL", what, rc, rc_want,
                                           ", output names %r" % needle if needle else ""))
    if not ok:
        failures.append(what)
        print("    " + out.replace("\n", "\n    "))


def lines_of(path):
    with open(path, encoding="utf-8") as f:
        return f.read().split("\n")


def write_lines(path, lines):
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines))


def last_digit_changed(text):
    """The same decimal with its last significand digit moved by one (no carry)."""
    mant, exp = text.split("e")
    d = int(mant[-1])
    return mant[:-1] + str(d + 1 if d < 9 else d - 1) + "e" + exp


def exponent_changed(text):
    mant, exp = text.split("e")
    return mant + "e" + "%+03d" % (int(exp) - 1)


def sign_changed(text):
    return text[1:] if text.startswith("-") else "-" + text


def perturbed_copy(tmp, name, line_no, column, change):
    """tmp/name = the committed file with one cell changed; returns (old, new)."""
    shutil.copy(os.path.join(VECTORS, name), os.path.join(tmp, name))
    lines = lines_of(os.path.join(tmp, name))
    _, header, _ = gen_vectors.read_file(os.path.join(VECTORS, name))
    cells = lines[line_no - 1].split("\t")
    old = cells[header.index(column)]
    cells[header.index(column)] = change(old)
    lines[line_no - 1] = "\t".join(cells)
    write_lines(os.path.join(tmp, name), lines)
    return old, cells[header.index(column)]


def pick(name, sampled, want):
    """The first row (line number) satisfying want, among the sampled rows or among all rows."""
    _, _, rows = gen_vectors.read_file(os.path.join(VECTORS, name))
    if sampled:
        rows = gen_vectors.sample_rows(rows, SAMPLE, gen_vectors.DEFAULT_SEED, name)
    for no, cells in rows:
        if want(cells):
            return no
    raise SystemExit("no row of %s fits the perturbation" % name)


def nonzero(col):
    return lambda c: c[col].lstrip("-").split("e")[0].strip("0.") != ""


def main():
    with tempfile.TemporaryDirectory(prefix="pecheck-vectors-") as tmp:
        for name in gen_vectors.FILES:
            shutil.copy(os.path.join(VECTORS, name), os.path.join(tmp, name))
        expect("untouched copy passes (all rows)", 0, ["--check", "--dir", tmp])
        expect("untouched copy passes (sample)", 0, ["--check", "--dir", tmp, "--sample", str(SAMPLE)])

        # (file, column, change, row filter) -- decimals that are not zero, so each change moves
        # the value by at least one unit in the last digit
        cases = [
            ("rope_angles.tsv", "theta", last_digit_changed, nonzero("theta")),
            ("rope_angles.tsv", "cos_theta", last_digit_changed, nonzero("cos_theta")),
            ("rope_angles.tsv", "sin_theta", sign_changed, nonzero("sin_theta")),
            # an exact zero (position 0; none falls in the 64-row sample) must stay exactly zero
            ("rope_angles.tsv", "sin_theta", lambda t: "1.0000000000000000000000000000000000000000e-50",
             lambda c: not nonzero("sin_theta")(c), (False,)),
            ("alibi_slopes.tsv", "slope", last_digit_changed, nonzero("slope")),
            ("alibi_slopes.tsv", "slope", exponent_changed, nonzero("slope")),
            ("sinusoidal.tsv", "value", last_digit_changed, nonzero("value")),
            ("t5_buckets.tsv", "bucket", lambda t: str(int(t) + 1), lambda c: True),
            ("t5_buckets.tsv", "bucket", lambda t: str(int(t) - 1), lambda c: c["ambiguous"] == "1"),
            ("t5_buckets.tsv", "ambiguous", lambda t: str(1 - int(t)), lambda c: c["ambiguous"] == "1"),
            ("t5_buckets.tsv", "ambiguous", lambda t: str(1 - int(t)), lambda c: c["ambiguous"] == "0"),
        ]
        for name, column, change, want, *modes in cases:
            for sampled in (modes[0] if modes else (True, False)):
                sub = os.path.join(tmp, "p")
                os.makedirs(sub, exist_ok=True)
                no = pick(name, sampled, want)
                if not sampled:  # a row far from the start, outside the sample if possible
                    _, _, rows = gen_vectors.read_file(os.path.join(VECTORS, name))
                    in_sample = {n for n, _ in gen_vectors.sample_rows(rows, SAMPLE, gen_vectors.DEFAULT_SEED, name)}
                    late = [n for n, c in rows if want(c) and n not in in_sample]
                    no = late[len(late) // 2] if late else no
                old, new = perturbed_copy(sub, name, no, column, change)
                args = ["--check", "--dir", sub, "--files", name]
                if sampled:
                    args += ["--sample", str(SAMPLE)]
                expect("%s line %d %s %s -> %s detected (%s)" % (name, no, column, old, new,
                                                                  "sample" if sampled else "all rows"),
                       1, args, "%s:%d: %s" % (name, no, column))

        # malformed input is bad input (exit 2), not a pass
        bad = os.path.join(tmp, "bad")
        os.makedirs(bad)
        lines = lines_of(os.path.join(VECTORS, "t5_buckets.tsv"))
        k = next(i for i, l in enumerate(lines) if l and not l.startswith("#")) + 1
        lines[k] = "\t".join(lines[k].split("\t")[:-1])
        write_lines(os.path.join(bad, "t5_buckets.tsv"), lines)
        expect("a row with a column missing is refused", 2,
               ["--check", "--dir", bad, "--files", "t5_buckets.tsv"], "line %d" % (k + 1))
        expect("a missing file is refused", 2, ["--check", "--dir", bad, "--files", "alibi_slopes.tsv"])

        # a working precision too low for angles near 2^33 is caught by the two-precision check
        expect("64-bit working precision is reported as insufficient", 1,
               ["--check", "--files", "rope_angles.tsv", "--precisions", "64,512"],
               "working precision insufficient")

        # regeneration reproduces the committed files byte for byte
        out = os.path.join(tmp, "regen")
        expect("regeneration writes every file", 0, ["--out", out])
        for name in gen_vectors.FILES:
            with open(os.path.join(out, name), "rb") as a, open(os.path.join(VECTORS, name), "rb") as b:
                same = a.read() == b.read()
            print("%s  regenerated %s is identical to the committed file" % ("ok  " if same else "FAIL", name))
            if not same:
                failures.append("regenerated " + name)

    if failures:
        print("test_gen_vectors: %d failures" % len(failures))
        return 1
    print("test_gen_vectors: all passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
