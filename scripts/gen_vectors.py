#!/usr/bin/env python3
"""Recompute pecheck's independent reference vectors (tests/vectors/*.tsv) with mpmath.

The committed vectors were computed with MPFR at 256 bits, outside pecheck's code. This script
computes the same quantities a second time with a different arbitrary-precision library
(python3-mpmath, Debian 12) and with exact integer arithmetic where a decision is discrete (T5
buckets), from the formulas stated in each file's header -- it shares no code with pecheck or
with the MPFR program. Each file's input columns (positions, bases, ...) are taken from the file;
every output column is recomputed.

  python3 scripts/gen_vectors.py --check                 # every row of every committed file
  python3 scripts/gen_vectors.py --check --sample 200    # 200 rows per file (fixed seed)
  python3 scripts/gen_vectors.py --out DIR               # write regenerated files to DIR
  python3 scripts/gen_vectors.py --check --dir DIR       # check the files of another folder

Agreement (--check): an integer column must be equal. A decimal column is printed as %.40e (41
significant digits, 40 after the point) and must be the correct rounding of the recomputed
value: |committed - recomputed| <= 1/2 unit in its last printed digit, plus 2^-200 relative for
the recomputation's own error (the recomputation is good to about 1e-150 relative, so this is
rounding to nearest with no slack that matters). Any change of the last printed digit therefore
fails, and so does a printed zero that is not exactly zero. Each value is computed at two working
precisions (--precisions, default 384 and 512 bits); a row whose two results differ by more than
1e-60 relative fails as "working precision insufficient", so a precision too low for a huge
RoPE argument cannot pass silently.

Exit status: 0 every checked row agrees (or the files were written); 1 a disagreement; 2 bad
usage, a missing or malformed file.
"""

import argparse
import os
import random
import sys
from fractions import Fraction

try:
    import mpmath
    from mpmath import mp, mpf
except ImportError:  # a declared dependency (scripts/setup.sh): fail, never skip
    print("gen_vectors: python3-mpmath is not installed (apt-get install python3-mpmath)",
          file=sys.stderr)
    sys.exit(2)

DIGITS = 41              # significant digits printed in the files (%.40e: 40 after the point)
# Working precisions in bits; positions to 2^31-1 times scales to 4 make angles < 2^33, which
# costs at most 33 bits in the reduction modulo 2*pi. --precisions changes them.
PRECISIONS = [384, 512]
SELF_AGREEMENT = mpf(10) ** -60
SLACK = Fraction(1, 2 ** 200)
DEFAULT_SEED = 12
FILES = ("rope_angles.tsv", "alibi_slopes.tsv", "t5_buckets.tsv", "sinusoidal.tsv",
         "rope_attn_factor.tsv", "llama4_temperature.tsv")




class BadInput(Exception):
    pass


class Insufficient(Exception):
    pass


def exact(text):
    """A decimal input as written in a file, as an exact rational."""
    try:
        return Fraction(text)
    except (ValueError, ZeroDivisionError):
        raise BadInput("not a number: %r" % text)


def integer(text):
    try:
        return int(text)
    except ValueError:
        raise BadInput("not an integer: %r" % text)


def to_mpf(q):
    """An exact rational at the current working precision (one rounding)."""
    return mpf(q.numerator) / q.denominator


def inv_freq_angle(pos, scale, base, k, dim):
    """pos * scale * base^(-2k/dim), all inputs exact rationals."""
    p = to_mpf(pos * scale)
    if p == 0:
        return mpf(0)
    return p * mpmath.power(to_mpf(base), -mpf(2 * k) / dim)


# --- the four files: (input columns, output columns, compute(inputs) -> outputs) -------------

def rope_row(c):
    pos, scale, base = exact(c["position"]), exact(c["position_scale"]), exact(c["base"])
    dim, i = integer(c["rotary_dim"]), integer(c["i"])
    if dim <= 0 or dim % 2 or not 0 <= i < dim // 2 or pos < 0 or base <= 1:
        raise BadInput("outside the domain of the RoPE formula")
    theta = inv_freq_angle(pos, scale, base, i, dim)
    # mpmath reduces the argument modulo 2*pi with extra precision of about the magnitude of
    # theta (here <= 2^33), so cos/sin keep the working precision (checked by PRECISIONS).
    return [theta, mpmath.cos(theta), mpmath.sin(theta)]


def alibi_row(c):
    n, h = integer(c["n_heads"]), integer(c["head"])
    if n < 1 or not 0 <= h < n:
        raise BadInput("outside the domain of the ALiBi formula")
    p = 1 << (n.bit_length() - 1)  # largest power of two <= n
    if h < p:
        e = Fraction(-8 * (h + 1), p)
    else:
        e = Fraction(-4 * (2 * (h - p) + 1), p)
    return [mpmath.power(2, to_mpf(e))]


def t5_bucket(num_buckets, max_distance, bidirectional, r):
    """(bucket, ambiguous) in exact arithmetic: no logarithm decides anything.

    v = n * ln(d/e) / ln(M/e) >= j  <=>  (d/e)^n >= (M/e)^j  <=>  d^n * e^j >= M^j * e^n
    (M > e, j >= 0), so floor(v) and "v is an integer" are decided with Python integers; a
    floating-point estimate only picks where the exact search starts.
    """
    if bidirectional:
        nb = num_buckets // 2
        base = nb if r > 0 else 0
        d = abs(r)
    else:
        nb = num_buckets
        base = 0
        d = max(-r, 0)
    e = nb // 2
    n = nb - e
    if d < e:
        return base + d, 0
    if max_distance <= e or e < 1:
        raise BadInput("max_distance must exceed max_exact")
    lhs = d ** n  # v >= j  <=>  lhs * e^j >= M^j * e^n

    def at_least(j):
        return lhs * e ** j >= max_distance ** j * e ** n

    k = int(mpmath.floor(n * mpmath.log(mpf(d) / e) / mpmath.log(mpf(max_distance) / e)))
    k = max(k, 0)
    while not at_least(k):
        k -= 1
    while at_least(k + 1):
        k += 1
    on_integer = lhs * e ** k == max_distance ** k * e ** n
    return base + min(e + k, nb - 1), int(on_integer)


def t5_row(c):
    nbk, md = integer(c["num_buckets"]), integer(c["max_distance"])
    bi, r = integer(c["bidirectional"]), integer(c["relative"])
    if nbk < 2 or bi not in (0, 1):
        raise BadInput("outside the domain of the T5 formula")
    return list(t5_bucket(nbk, md, bi == 1, r))


def sinusoidal_row(c):
    pos, d, base = exact(c["position"]), integer(c["d_model"]), exact(c["base"])
    lane = integer(c["lane"])
    if d <= 0 or d % 2 or not 0 <= lane < d or pos < 0 or base <= 1:
        raise BadInput("outside the domain of the sinusoidal formula")
    angle = inv_freq_angle(pos, Fraction(1), base, lane // 2, d)
    return [mpmath.sin(angle) if lane % 2 == 0 else mpmath.cos(angle)]


def mscale(s, mu):
    """yarn_get_mscale: 1 if s <= 1 else 0.1 mu ln s + 1 (0.1 the real 1/10), s and mu exact."""
    if s <= 1:
        return mpf(1)
    return to_mpf(mu) * mpmath.log(to_mpf(s)) / 10 + 1


def attn_factor_row(c):
    """spec/rope.md ROPE-ATTN-1 from a rope_scaling config."""
    t = c["rope_type"]
    if t not in ("default", "linear", "dynamic", "ntk", "llama3", "yarn", "longrope"):
        raise BadInput("unknown rope_type %r" % t)
    s, given = exact(c["factor"]), exact(c["attention_factor"])
    mu, mu_all = exact(c["mscale"]), exact(c["mscale_all_dim"])
    orig, top = integer(c["original_max"]), integer(c["max_position"])
    if t not in ("yarn", "longrope"):
        return [mpf(1)]
    if given > 0:
        return [to_mpf(given)]
    if t == "yarn":
        if mu != 0 and mu_all != 0:
            return [mscale(s, mu) / mscale(s, mu_all)]
        return [mscale(s, 1)]
    if orig < 2 or top < 1:
        raise BadInput("outside the domain of the longrope factor")
    ratio = Fraction(top, orig)
    if ratio <= 1:
        return [mpf(1)]
    return [mpmath.sqrt(1 + mpmath.log(to_mpf(ratio)) / mpmath.log(orig))]


def llama4_temperature_row(c):
    """spec/rope.md ROPE-L4-3: ln(floor((p + 1)/floor_scale) + 1) attn_scale + 1, exactly."""
    p, fs, a = integer(c["position"]), exact(c["floor_scale"]), exact(c["attn_scale"])
    if p < 0 or fs <= 0 or a < 0:
        raise BadInput("outside the domain of the temperature")
    k = (Fraction(p + 1) / fs).numerator // (Fraction(p + 1) / fs).denominator  # exact floor
    return [mpmath.log(k + 1) * to_mpf(a) + 1]


SPECS = {
    "rope_angles.tsv": (["position", "position_scale", "base", "rotary_dim", "i"],
                        ["theta", "cos_theta", "sin_theta"], rope_row),
    "alibi_slopes.tsv": (["n_heads", "head"], ["slope"], alibi_row),
    "t5_buckets.tsv": (["num_buckets", "max_distance", "bidirectional", "relative"],
                       ["bucket", "ambiguous"], t5_row),
    "sinusoidal.tsv": (["position", "d_model", "base", "lane"], ["value"], sinusoidal_row),
    "rope_attn_factor.tsv": (["rope_type", "factor", "attention_factor", "mscale", "mscale_all_dim",
                              "original_max", "max_position"], ["attn_factor"], attn_factor_row),
    "llama4_temperature.tsv": (["position", "floor_scale", "attn_scale"], ["tau"],
                               llama4_temperature_row),
}


# --- formatting and comparison ---------------------------------------------------------------

def fmt40(x):
    """x rounded to nearest with 41 significant digits, as %.40e prints it (MPFR's style)."""
    if x == 0:
        return "0." + "0" * (DIGITS - 1) + "e+00"
    sign = "-" if x < 0 else ""
    a = abs(x)
    e = int(mpmath.floor(mpmath.log10(a)))
    while True:
        m = int(mpmath.nint(a * mpf(10) ** (DIGITS - 1 - e)))
        if m >= 10 ** DIGITS:
            e += 1
        elif m < 10 ** (DIGITS - 1):
            e -= 1
        else:
            break
    s = str(m)
    return "%s%s.%se%s%02d" % (sign, s[0], s[1:], "-" if e < 0 else "+", abs(e))


def compute(fn, cells):
    """The row's outputs at the first working precision, checked against the second."""
    results = []
    for prec in PRECISIONS:
        with mpmath.workprec(prec):
            results.append(fn(cells))
    lo, hi = results
    for a, b in zip(lo, hi):
        if isinstance(b, int):
            if a != b:
                raise Insufficient("integer result changed with the working precision")
        elif b == 0:
            if a != 0:
                raise Insufficient("zero at %d bits, %s at %d bits" % (PRECISIONS[1], a, PRECISIONS[0]))
        else:
            with mpmath.workprec(PRECISIONS[1]):
                if abs(a - b) > SELF_AGREEMENT * abs(b):
                    raise Insufficient("results at %d and %d bits differ" % tuple(PRECISIONS))
    return hi


def decimal_agrees(text, value):
    """(ok, deviation in units of the last printed digit) of a committed %.40e decimal."""
    q = exact(text)
    mant = text.lstrip("+-").split("e")[0].split("E")[0]
    if mant.replace(".", "").strip("0") == "":
        # a printed zero must be an exact zero
        return value == 0, (0 if value == 0 else float("inf"))
    if "e" not in text.lower() or len(mant.replace(".", "")) != DIGITS:
        raise BadInput("not a %d-digit decimal: %r" % (DIGITS, text))
    ex = int(text.lower().split("e")[1])
    unit = Fraction(10) ** (ex - (DIGITS - 1))
    sign, man, ee, _ = value._mpf_  # value exactly, as a rational (man_exp drops the sign)
    v = (-1 if sign else 1) * Fraction(int(man)) * Fraction(2) ** int(ee)
    dev = abs(q - v) / unit
    return dev <= Fraction(1, 2) + SLACK * abs(v) / unit, float(dev)


# --- files -----------------------------------------------------------------------------------

def read_file(path):
    """(comment lines, header cells, [(line number, cells)])."""
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().split("\n")
    except OSError as err:
        raise BadInput("%s: %s" % (path, err.strerror))
    comments, header, rows = [], None, []
    for no, line in enumerate(lines, 1):
        if line == "" or line.startswith("#"):
            if header is None and line.startswith("#"):
                comments.append(line)
            continue
        cells = line.split("\t")
        if header is None:
            header = cells
            continue
        if len(cells) != len(header):
            raise BadInput("%s, line %d: %d columns, header has %d" % (path, no, len(cells), len(header)))
        rows.append((no, dict(zip(header, cells))))
    if header is None:
        raise BadInput("%s: no header row" % path)
    return comments, header, rows


def sample_rows(rows, n, seed, name):
    """n rows chosen deterministically (the same for every run with the same seed and file)."""
    if n is None or n >= len(rows):
        return list(rows)
    rng = random.Random("%s:%d" % (name, seed))
    return [rows[i] for i in sorted(rng.sample(range(len(rows)), n))]


def check_file(path, name, sample, seed, out):
    inputs, outputs, fn = SPECS[name]
    _, header, rows = read_file(path)
    if header != inputs + outputs:
        raise BadInput("%s: header %s, expected %s" % (path, header, inputs + outputs))
    chosen = sample_rows(rows, sample, seed, name)
    failures, identical, worst = [], 0, 0.0
    for no, cells in chosen:
        try:
            got = compute(fn, cells)
        except BadInput as err:
            raise BadInput("%s, line %d: %s" % (path, no, err))
        except Insufficient as err:
            failures.append("%s:%d: working precision insufficient: %s" % (name, no, err))
            continue
        same = True
        for col, value in zip(outputs, got):
            text = cells[col]
            if isinstance(value, int):
                ok = integer(text) == value
                shown = str(value)
            else:
                ok, dev = decimal_agrees(text, value)
                worst = max(worst, dev)
                shown = fmt40(value)
            if shown != text:
                same = False
            if not ok:
                failures.append("%s:%d: %s = %s, mpmath gives %s" % (name, no, col, text, shown))
        identical += same
    print("gen_vectors: %-17s %5d of %5d rows checked, %5d printed identically, "
          "largest deviation %.3g units in the last digit, %d disagreements"
          % (name, len(chosen), len(rows), identical, worst, len(failures)), file=out)
    for f in failures[:20]:
        print("  " + f, file=out)
    if len(failures) > 20:
        print("  ... and %d more" % (len(failures) - 20), file=out)
    return len(failures)


def write_file(src, dst, name):
    inputs, outputs, fn = SPECS[name]
    comments, header, rows = read_file(src)
    if header[:len(inputs)] != inputs:
        raise BadInput("%s: input columns %s, expected %s" % (src, header[:len(inputs)], inputs))
    lines = comments + ["\t".join(inputs + outputs)]
    for no, cells in rows:
        try:
            got = compute(fn, cells)
        except (BadInput, Insufficient) as err:
            raise BadInput("%s, line %d: %s" % (src, no, err))
        out = [cells[c] for c in inputs]
        out += [str(v) if isinstance(v, int) else fmt40(v) for v in got]
        lines.append("\t".join(out))
    tmp = dst + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    os.replace(tmp, dst)
    print("gen_vectors: wrote %s (%d rows)" % (dst, len(rows)))


def main(argv):
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dir", default=os.path.join(here, "..", "tests", "vectors"),
                    help="folder of the vector files (default: tests/vectors)")
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--check", action="store_true", help="compare the files with mpmath")
    mode.add_argument("--out", metavar="DIR", help="write regenerated files to DIR")
    ap.add_argument("--sample", type=int, metavar="N", help="check N rows per file (default all)")
    ap.add_argument("--seed", type=int, default=DEFAULT_SEED, help="seed of the sample")
    ap.add_argument("--files", nargs="+", choices=FILES, default=list(FILES))
    ap.add_argument("--precisions", default="%d,%d" % tuple(PRECISIONS), metavar="P1,P2",
                    help="the two working precisions in bits (default %(default)s)")
    try:
        args = ap.parse_args(argv)
    except SystemExit as e:
        return 2 if e.code else 0
    try:
        PRECISIONS[:] = [int(p) for p in args.precisions.split(",")]
        if len(PRECISIONS) != 2 or not 53 <= PRECISIONS[0] < PRECISIONS[1]:
            raise ValueError
    except ValueError:
        print("gen_vectors: --precisions takes two increasing bit counts >= 53", file=sys.stderr)
        return 2
    mp.prec = PRECISIONS[1]  # formatting and comparison run at the higher precision
    if args.sample is not None and args.sample < 1:
        print("gen_vectors: --sample must be at least 1", file=sys.stderr)
        return 2
    try:
        if args.out:
            if os.path.realpath(args.out) == os.path.realpath(args.dir):
                raise BadInput("--out must differ from --dir (compare, then copy by hand)")
            os.makedirs(args.out, exist_ok=True)
            for name in args.files:
                write_file(os.path.join(args.dir, name), os.path.join(args.out, name), name)
            return 0
        bad = 0
        for name in args.files:
            bad += check_file(os.path.join(args.dir, name), name, args.sample, args.seed, sys.stdout)
    except BadInput as err:
        print("gen_vectors: %s" % err, file=sys.stderr)
        return 2
    print("gen_vectors: %s" % ("all checked rows agree" if bad == 0 else "%d disagreements" % bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
