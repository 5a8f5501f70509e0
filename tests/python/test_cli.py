"""pecheck verify --python MODULE:OBJECT: the same verdicts, exit statuses and reports as a C
library, the kernel run in workers forked from a fork server that imported it once."""
import json
import os
import subprocess

import pytest


def run(pecheck_bin, spec, *args, timeout=240):
    # no wall-clock cap unless a test is about it: a verdict must not depend on the machine's load
    cap = [] if "--budget-seconds" in args else ["--budget-seconds", "0"]
    p = subprocess.run([pecheck_bin, "verify", "--python", spec, "--seed", "7", *args, *cap],
                       capture_output=True, text=True, timeout=timeout)
    return p.returncode, p.stdout, p.stderr


@pytest.mark.parametrize("spec", ["hf_llama_rope.py:kernel", "vllm_rope.py:kernel", "bloom_alibi.py", "t5_bucket.py"])
def test_examples_pass(pecheck_bin, examples, tmp_path, spec):
    rc, out, err = run(pecheck_bin, os.path.join(examples, spec), "--report", str(tmp_path))
    assert rc == 0, out + err
    rep = json.loads((tmp_path / "report.json").read_text())
    assert rep["verdict"] == "pass" and rep["kernel"].endswith(spec)
    # the module is imported once, in the fork server, however many workers ran it
    assert "kernel library loaded 1 time(s) in this run" in rep["notes"]


@pytest.mark.parametrize("spec,check", [
    ("buggy.py:gptj_neox_mixup", "rope_cached.oracle"),
    ("buggy.py:bf16_positions", "rope_cached.oracle"),
    ("buggy.py:cache_by_token", "rope_cached.oracle"),
    ("buggy.py:t5_sign", "t5.oracle"),
])
def test_buggy_fail_their_clause(pecheck_bin, examples, tmp_path, spec, check):
    # --no-regressions: t5_sign is also caught at once by a shipped regression vector (no shrinking)
    rc, out, err = run(pecheck_bin, os.path.join(examples, spec), "--only", check, "--format", "json", "--no-regressions")
    assert rc == 1, out + err
    rep = json.loads(out)
    (c,) = [c for c in rep["checks"] if c["name"] == check]
    assert c["status"] == "fail" and c["counterexample"]["shrink_steps"] > 0
    # reproduce lines name pecheck as invoked: the path run here, or "pecheck" when it is the one on PATH
    prog, rest = c["reproduce"].split(" verify ", 1)
    assert prog in ("pecheck", pecheck_bin), c["reproduce"]
    assert rest.startswith("--python " + os.path.join(examples, spec)), c["reproduce"]


@pytest.mark.parametrize("spec,needle", [
    ("broken.py:raises", "raised ValueError: rotary_dim"),
    ("broken.py:wrong_shape", "forward's query has shape"),
    ("broken.py:segfault", "killed by SIGSEGV"),
])
def test_broken_calls_are_reported(pecheck_bin, examples, spec, needle):
    rc, out, err = run(pecheck_bin, os.path.join(examples, spec), "--only", "rope_cached.oracle")
    assert rc == 1, out + err
    assert needle in out


def test_hang_is_reported(pecheck_bin, examples):
    rc, out, err = run(pecheck_bin, os.path.join(examples, "broken.py:hangs"), "--only", "rope_cached.oracle",
                       "--call-timeout", "0.5")
    assert rc == 1, out + err
    assert "did not return within" in out


@pytest.mark.parametrize("spec,needle", [
    ("no_such_module_xyz:kernel", "ModuleNotFoundError"),
    ("broken.py:nothing_here", "AttributeError"),
    ("t5_bucket.py:math", "none of the kernel callables"),
])
def test_load_errors_are_usage_errors(pecheck_bin, examples, spec, needle):
    if spec.startswith("broken") or spec.startswith("t5"):
        spec = os.path.join(examples, spec)
    rc, out, err = run(pecheck_bin, spec)
    assert rc == 2, out + err
    assert needle in err and len(err.strip().splitlines()) == 1


def test_kernel_and_python_are_exclusive(pecheck_bin, examples):
    p = subprocess.run([pecheck_bin, "verify"], capture_output=True, text=True, timeout=60)
    assert p.returncode == 2 and "exactly one of --kernel" in p.stderr
