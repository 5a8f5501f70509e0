"""pecheck.verify / pecheck.testing on torch kernels, in this process (docs/python.md)."""
import pytest

import pecheck
import pecheck.testing
import bloom_alibi
import broken
import buggy
import hf_llama_rope
import t5_bucket
import vllm_rope

# Small runs: every check of the function, fewer cases (the CLI tests run the defaults).
FAST = dict(seed=7, case_scale=0.1)


def test_hf_llama_rotary_passes():
    r = pecheck.testing.assert_verified(hf_llama_rope.kernel, **FAST)
    assert r.verdict == "pass" and r.exit_status == 0
    assert r.status("rope_cached.oracle") == "pass"
    assert "rope_cached.oracle" in r.grades  # graded against its accuracy class
    assert any("layout gptj untested" in n for n in r.report["notes"])  # the adapter's domain, said


def test_vllm_forward_native_passes():
    r = pecheck.testing.assert_verified(vllm_rope.kernel, **FAST)
    assert r.status("rope_cached.oracle") == "pass"


def test_bloom_alibi_passes():
    pecheck.testing.assert_verified(bloom_alibi, **FAST)


def test_t5_bucket_passes():
    r = pecheck.testing.assert_verified(t5_bucket, **FAST)
    assert r.status("t5.oracle") == "pass"


@pytest.mark.parametrize("kernel", [buggy.gptj_neox_mixup, buggy.bf16_positions, buggy.cache_by_token])
def test_buggy_rotary_fails_the_oracle(kernel):
    cx = pecheck.testing.assert_fails(kernel, "rope_cached.oracle", only="rope_cached.oracle", seed=7)
    assert cx["clause"].startswith("ABI-CACHE") and cx["kind"] in ("mismatch", "nan")  # nan: a row it must not read
    assert "--python" in cx["reproduce"] and "buggy.py:" in cx["reproduce"]
    assert cx["shrink_steps"] > 0  # a shrunk witness


def test_bf16_positions_witness_is_past_256():
    cx = pecheck.testing.assert_fails(buggy.bf16_positions, "rope_cached.oracle", only="rope_cached.oracle", seed=7)
    pos = cx["args"]["positions"]
    assert max(pos) > 256, pos  # bf16 holds every integer up to 256


def test_t5_sign_fails_the_oracle():
    # without the shipped regression vector (which catches it at once): found and shrunk
    cx = pecheck.testing.assert_fails(buggy.t5_sign, "t5.oracle", only="t5.oracle", seed=7, regressions=False)
    assert cx["clause"].startswith("ABI-T5") and cx["shrink_steps"] > 0


def test_exception_is_a_failed_call():
    r = pecheck.verify(broken.raises, only="rope_cached.oracle", seed=7)
    assert r.verdict == "fail" and r.exit_status == 1
    cx = r.counterexamples[0]
    assert cx["kind"] == "exception"
    assert "raised ValueError: rotary_dim" in cx["message"] and "broken.py" in cx["message"]


def test_wrong_shape_is_reported():
    r = pecheck.verify(broken.wrong_shape, only="rope_cached.oracle", seed=7)
    cx = r.counterexamples[0]
    assert cx["kind"] == "exception" and "has shape" in cx["message"]


def test_segfault_in_ctypes_is_a_crash():
    r = pecheck.verify(broken.segfault, only="rope_cached.oracle", seed=7)
    cx = r.counterexamples[0]
    assert cx["kind"] == "crash" and "SIGSEGV" in cx["message"]


def test_assert_verified_message_has_summary_and_reproduce_line():
    with pytest.raises(AssertionError) as e:
        pecheck.testing.assert_verified(buggy.cache_by_token, only="rope_cached.oracle", seed=7)
    text = str(e.value)
    assert "rope_cached.oracle" in text and "FAIL" in text.upper()
    assert "pecheck verify --python" in text and "--only rope_cached.oracle" in text


def test_fork_after_torch_threads_keeps_the_verdict():
    # The parent runs torch ops on an intra-op pool of 2 threads first; every worker forked from
    # it then calls torch: none may hang, and the verdict is the in-process one.
    import torch
    torch.set_num_threads(2)
    x = torch.randn(512, 512)
    for _ in range(4):
        x = (x @ x).tanh()
    try:
        forked = pecheck.verify(vllm_rope.kernel, only="rope_cached.oracle", seed=3, call_timeout=30)
        inproc = pecheck.verify(vllm_rope.kernel, only="rope_cached.oracle", seed=3, isolate=False)
    finally:
        torch.set_num_threads(1)
    assert forked.verdict == inproc.verdict == "pass"
    assert [c["status"] for c in forked.checks] == [c["status"] for c in inproc.checks]


def test_no_callables_is_a_usage_error():
    with pytest.raises(ValueError, match="none of the kernel callables"):
        pecheck.verify(object())


def test_report_files(tmp_path):
    r = pecheck.verify(bloom_alibi, only="alibi.oracle", report=str(tmp_path / "rep"), junit=str(tmp_path / "j.xml"))
    for k in ("report_json", "report_md", "report_html", "junit"):
        assert (tmp_path / r.paths[k]).exists() if not r.paths[k].startswith("/") else __import__("os").path.exists(r.paths[k])


def test_pytest_option_writes_every_calls_reports(tmp_path):
    import os
    import subprocess
    import sys
    t = tmp_path / "test_one.py"
    t.write_text("import pecheck.testing, bloom_alibi\n"
                 "def test_alibi():\n"
                 "    pecheck.testing.assert_verified(bloom_alibi, only='alibi.oracle', case_scale=0.1)\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    p = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "pecheck.pytest_plugin",
                        "--pecheck-report", str(tmp_path / "rep"), str(t)],
                       cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stdout + p.stderr
    (d,) = list((tmp_path / "rep").iterdir())
    assert "test_alibi" in d.name
    for f in ("report.json", "report.md", "report.html", "junit.xml"):
        assert (d / f).exists(), f
