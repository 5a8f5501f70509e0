#!/usr/bin/python3
"""Progress on stderr when it is a terminal, silent otherwise (issue 22, "Why" item 6).

    check_progress.py PECHECK LIB

Runs `pecheck verify --kernel LIB --only rope_qk.bf16.oracle` twice (LIB: 5 ms a call): with stderr on a pseudo-terminal, the terminal
must receive progress lines ("N/M checks, K cases") with a case count that grows while checks
are still running, and the line is cleared at the end; with stderr on a pipe, stderr stays empty.
stdout is a pipe both times and must not change (the same verdict line). Exit 0 when all hold."""
import os
import pty
import re
import subprocess
import sys
import time

pecheck, lib = sys.argv[1], sys.argv[2]
cmd = [pecheck, "verify", "--kernel", lib, "--jobs", "2", "--budget-seconds", "0", "--only", "rope_qk.bf16.oracle"]
problems = []

master, slave = pty.openpty()
p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=slave, stdin=subprocess.DEVNULL)
os.close(slave)
seen = b""
deadline = time.monotonic() + 300
while True:
    try:
        chunk = os.read(master, 4096)
    except OSError:  # EIO: the last writer closed the terminal
        break
    if not chunk:
        break
    seen += chunk
    if time.monotonic() > deadline:
        p.kill()
        problems.append("timed out")
        break
out_tty = p.stdout.read().decode()
p.wait()
text = seen.decode(errors="replace")
counts = [int(m.group(2)) for m in re.finditer(r"(starting|\d+/\d+ checks), (\d+) cases", text)]
if not counts:
    problems.append("no progress line on the terminal: %r" % text[:300])
elif max(counts) == 0:
    problems.append("progress never counted a case: %r" % text[-300:])
if not text.endswith("\r\x1b[K"):
    problems.append("the progress line is not cleared at the end: %r" % text[-80:])
if "cases" in out_tty and "checks," in out_tty:
    problems.append("progress leaked into stdout")

q = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
if q.stderr:
    problems.append("stderr is not a terminal but got: %r" % q.stderr[:300])
verdict = lambda s: [l for l in s.splitlines() if l.startswith("verdict:")]
if [re.sub(r"in [0-9.]+ s", "", l) for l in verdict(q.stdout)] != [re.sub(r"in [0-9.]+ s", "", l) for l in verdict(out_tty)]:
    problems.append("stdout differs with and without a terminal on stderr")
for pr in problems:
    print("PROBLEM: " + pr)
print("check_progress: %d progress updates, largest case count %d" % (len(counts), max(counts or [0])))
sys.exit(1 if problems else 0)
