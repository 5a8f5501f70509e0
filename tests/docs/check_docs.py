#!/usr/bin/python3
"""Every command the README and docs/ show is run by a test (issue 22).

    check_docs.py ROOT BUILD_DIR

1. Installs the build into a temporary prefix (`cmake --install BUILD --prefix P`), so that
   `pecheck` on PATH and `P/include/pecheck` are what a reader gets after `scripts/main.sh`
   (`/usr/local` is replaced by P in the commands run).
2. Walks README.md and docs/*.md. A fenced block after `<!-- docs-test: file NAME -->` is written
   to NAME in a scratch folder; the commands of an `sh` block after `<!-- docs-test: run -->` run
   there, in order, and must exit 0; a block after `<!-- docs-test: output of CMD -->` must equal
   what CMD printed (time figures masked).
   The README has at most 300 lines; every relative link resolves.
3. Every other command of an `sh` block, and every `$ ` line of any block, must have a row in
   tests/docs/commands.tsv saying how it is covered:
     run EXIT       this script runs it in the scratch folder (build/ = the build folder,
                    libmine.so = the README's plug-in, pecheck on PATH) and expects EXIT;
     ctest REGEX    the ctest tests matching REGEX run it (at least one must exist);
     file PATH      PATH (a script CI runs) contains the command verbatim;
     manual REASON  no test runs it (benchmarks, GPU); printed, so the gap stays visible.
   A row whose command no document shows any more fails too (no stale rows).
Exit 0 when all hold; 1 with one line per problem.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT, BUILD = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
problems = []


def docs():
    out = [os.path.join(ROOT, "README.md")]
    d = os.path.join(ROOT, "docs")
    out += sorted(os.path.join(d, f) for f in os.listdir(d) if f.endswith(".md"))
    return out


def blocks(path):
    """(marker or None, info string, body) for every fenced block."""
    lines = open(path, encoding="utf-8").read().split("\n")
    i, marker = 0, None
    while i < len(lines):
        m = re.match(r"<!-- docs-test: (.*) -->$", lines[i].strip())
        if m:
            marker = m.group(1)
            i += 1
            continue
        f = re.match(r"^```(\w*)\s*$", lines[i])
        if f:
            j = i + 1
            while j < len(lines) and not lines[j].startswith("```"):
                j += 1
            yield marker, f.group(1), "\n".join(lines[i + 1:j]) + "\n"
            marker, i = None, j + 1
            continue
        if lines[i].strip():
            marker = None if not lines[i].startswith("<!--") else marker
        i += 1


def commands(info, body):
    """Commands of a block: every line of an sh block (continuations joined, comments dropped),
    and the `$ ` lines of any block."""
    out, buf = [], ""
    for line in body.split("\n"):
        if info != "sh":
            if line.startswith("$ "):
                out.append(strip_comment(line[2:]))
            continue
        if line.rstrip().endswith("\\"):
            buf += line.rstrip()[:-1].strip() + " "
            continue
        line, buf = buf + line.strip(), ""
        if line and not line.startswith("#"):
            out.append(strip_comment(line))
    return out


def strip_comment(cmd):
    m = re.search(r"\s{2,}#.*$|\s#\s.*$", cmd)
    cmd = cmd[: m.start()] if m else cmd
    return re.sub(r"\s+", " ", cmd).strip()


def mask(text):
    text = re.sub(r"in [0-9]+(\.[0-9]+)? s\b", "in … s", text)
    return "\n".join(line.rstrip() for line in text.strip("\n").split("\n"))


def main():
    # The README is a landing page (issue 22): at most ~300 lines; the rest lives in docs/.
    n_readme = len(open(os.path.join(ROOT, "README.md"), encoding="utf-8").read().split("\n"))
    if n_readme > 300:
        problems.append(f"README.md has {n_readme} lines; the landing page keeps to 300 (move the rest to docs/)")
    # Every relative link of the README and docs/ names a file of the repository.
    for path in docs():
        for m in re.finditer(r"\]\(([^)#\s]+)(#[^)]*)?\)", open(path, encoding="utf-8").read()):
            target = m.group(1)
            if re.match(r"[a-z]+:", target):
                continue
            if not os.path.exists(os.path.normpath(os.path.join(os.path.dirname(path), target))):
                problems.append(f"{os.path.relpath(path, ROOT)}: link to {target}, which does not exist")
    manifest = {}
    for n, line in enumerate(open(os.path.join(ROOT, "tests/docs/commands.tsv"), encoding="utf-8"), 1):
        if not line.strip() or line.startswith("#"):
            continue
        parts = line.rstrip("\n").split("\t")
        if len(parts) != 3:
            problems.append(f"commands.tsv line {n}: want command<TAB>kind<TAB>detail")
            continue
        manifest[re.sub(r"\s+", " ", parts[0]).strip()] = (parts[1], parts[2])

    work = tempfile.mkdtemp(prefix="pecheck-docs-")
    try:
        prefix = os.path.join(work, "prefix")
        r = subprocess.run(["cmake", "--install", BUILD, "--prefix", prefix], capture_output=True, text=True)
        if r.returncode != 0 or not os.access(os.path.join(prefix, "bin", "pecheck"), os.X_OK):
            print("cmake --install did not install bin/pecheck:\n" + r.stdout + r.stderr)
            return 1
        scratch = os.path.join(work, "run")
        os.makedirs(scratch)
        os.symlink(BUILD, os.path.join(scratch, "build"))
        env = dict(os.environ, PATH=os.path.join(prefix, "bin") + os.pathsep + os.environ.get("PATH", ""), SHARD="0")

        def run(cmd):
            cmd = cmd.replace("/usr/local", prefix)
            return subprocess.run(["bash", "-c", cmd], cwd=scratch, env=env, capture_output=True, text=True, timeout=600)

        printed, seen = {}, set()
        for path in docs():
            rel = os.path.relpath(path, ROOT)
            for marker, info, body in blocks(path):
                if marker and marker.startswith("file "):
                    open(os.path.join(scratch, marker[5:].strip()), "w").write(body)
                    if marker[5:].strip().endswith(".c"):  # every C file shown compiles
                        r = run(f"cc -std=c11 -Wall -Wextra -Werror -fsyntax-only -I {ROOT}/spec {marker[5:].strip()}")
                        if r.returncode != 0:
                            problems.append(f"{rel}: {marker[5:]} does not compile:\n{r.stderr}")
                    continue
                if marker == "run":
                    for cmd in commands(info, body):
                        r = run(cmd)
                        printed[cmd] = r.stdout
                        if r.returncode != 0:
                            problems.append(f"{rel}: `{cmd}` exited {r.returncode}:\n{r.stdout}{r.stderr}")
                    continue
                if marker and marker.startswith("output of "):
                    cmd = re.sub(r"\s+", " ", marker[len("output of "):]).strip()
                    if cmd not in printed:
                        problems.append(f"{rel}: output shown for `{cmd}`, which no earlier run block runs")
                    elif mask(printed[cmd]) != mask(body):
                        problems.append(f"{rel}: the output shown for `{cmd}` is not what it prints; it prints:\n{printed[cmd]}")
                    continue
                for cmd in commands(info, body):
                    seen.add(cmd)
                    if cmd not in manifest:
                        problems.append(f"{rel}: `{cmd}` has no row in tests/docs/commands.tsv")

        # libmine.so: the README's plug-in, for the commands that name a user's library.
        if os.path.exists(os.path.join(scratch, "libmy_rope.so")):
            os.symlink(os.path.join(scratch, "libmy_rope.so"), os.path.join(scratch, "libmine.so"))
        tests = subprocess.run(["ctest", "-N", "--test-dir", BUILD], capture_output=True, text=True).stdout
        names = re.findall(r"Test\s+#\d+: (\S+)", tests)
        manual = 0
        for cmd, (kind, detail) in sorted(manifest.items()):
            if cmd not in seen:
                problems.append(f"commands.tsv: `{cmd}` is shown by no document (stale row)")
                continue
            if kind == "run":
                r = run(cmd)
                if str(r.returncode) != detail:
                    problems.append(f"`{cmd}` exited {r.returncode}, want {detail}:\n{r.stdout[-2000:]}{r.stderr[-2000:]}")
            elif kind == "ctest":
                if not any(re.search(detail, n) for n in names):
                    problems.append(f"`{cmd}`: no ctest test matches {detail}")
            elif kind == "file":
                text = re.sub(r"\s+", " ", open(os.path.join(ROOT, detail), encoding="utf-8").read())
                if cmd not in text:
                    problems.append(f"`{cmd}`: not in {detail}")
            elif kind == "manual":
                manual += 1
                print(f"not run by a test: `{cmd}` ({detail})")
            else:
                problems.append(f"`{cmd}`: unknown kind {kind}")
        print(f"check_docs: {len(seen)} commands shown; {manual} not run by a test (listed above)")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    for p in problems:
        print("PROBLEM: " + p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
