"""pecheck for Python kernels: verify a torch (or any Python) function with every check of
``pecheck verify`` (docs/python.md).

    import pecheck, pecheck.testing
    result = pecheck.verify(kernel)                # kernel: any object with rope_qk_f32, ...
    pecheck.testing.assert_verified(kernel)        # in a pytest test: AssertionError on a finding

A kernel object provides any subset of the ABI functions of spec/pecheck_kernel.h as callables
named without the ``pec_`` prefix (``rope_qk_bf16``, ``rope_cached_f32``, ``alibi_bias_f32``, ...).
Each is called as ``fn(args, *tensors)``: ``args`` is the argument struct as an object with the
same field names (its arrays -- positions, inv_freq, tables, the cos/sin cache -- are numpy
arrays), the tensors are numpy arrays that view pecheck's own buffers with the ABI's shapes and
strides (16-bit storage as uint16 bit patterns: ``as_torch(a, torch.bfloat16)``), outputs are
written through them, and the call returns the status (0, or non-zero to reject; None = 0).
"""
import json as _json
import os as _os
import re as _re
import sys as _sys

import numpy as _np

from ._pecheck import UsageError, _verify, check_names  # noqa: F401

# enum values of spec/pecheck_kernel.h
PEC_ROPE_NEOX, PEC_ROPE_GPTJ = 0, 1
PEC_ALIBI_SYMMETRIC, PEC_ALIBI_CAUSAL = 0, 1
PEC_DTYPE_F32, PEC_DTYPE_BF16, PEC_DTYPE_F16 = 0, 1, 2


def torch_dtype(code_or_suffix):
    """The torch dtype of a storage suffix ("f32", "bf16", "f16") or a pec_dtype code."""
    import torch
    m = {"f32": torch.float32, "bf16": torch.bfloat16, "f16": torch.float16,
         PEC_DTYPE_F32: torch.float32, PEC_DTYPE_BF16: torch.bfloat16, PEC_DTYPE_F16: torch.float16}
    return m[code_or_suffix]


def as_torch(array, dtype=None):
    """A torch tensor sharing the memory of a numpy view pecheck passed (no copy): float32 as is,
    16-bit storage (uint16 bit patterns) reinterpreted as ``dtype`` (torch.bfloat16 or
    torch.float16). Writing into it writes pecheck's buffer. None stays None."""
    import torch
    if array is None:
        return None
    if array.size == 0:  # an empty view may have any strides, negative ones included
        array = _np.empty(array.shape, array.dtype)
    if array.dtype == _np.uint16:
        if dtype not in (torch.bfloat16, torch.float16):
            raise ValueError("16-bit storage: give dtype=torch.bfloat16 or torch.float16")
        return torch.from_numpy(array.view(_np.int16)).view(dtype)
    t = torch.from_numpy(array)
    if dtype is not None and dtype != t.dtype:
        raise ValueError(f"a {array.dtype} array cannot be viewed as {dtype}")
    return t


class Result:
    """What ``verify`` found. ``verdict``: "pass", "fail" or "incomplete" (never a pass when a
    check could not decide); ``exit_status`` as ``pecheck verify``'s; ``checks``: one dict per
    check (name, clause, status, reason, cases, counterexample, accuracy); ``counterexamples``:
    the failing checks' shrunk witnesses (with their ``reproduce`` line); ``grades``: check name
    -> its accuracy grading; ``text``: the console summary; ``report``: the whole report.json;
    ``paths``: the files written (report, junit)."""

    def __init__(self, raw):
        self.report = _json.loads(raw["json"])
        self.text = raw["text"]
        self.exit_status = raw["exit_status"]
        self.verdict = self.report["verdict"]
        self.checks = self.report["checks"]
        self.counterexamples = [dict(c["counterexample"], check=c["name"]) for c in self.checks
                                if c.get("counterexample")]
        self.grades = {c["name"]: c["accuracy"] for c in self.checks if c.get("accuracy")}
        self.paths = {k: raw[k] for k in ("report_json", "report_md", "report_html", "junit") if k in raw}

    @property
    def passed(self):
        return self.verdict == "pass"

    def status(self, check):
        """The status of one check ("pass", "fail", "skipped", ...), KeyError when not listed."""
        for c in self.checks:
            if c["name"] == check:
                return c["status"]
        raise KeyError(check)

    def __repr__(self):
        return f"<pecheck.Result {self.verdict}: {self.report['summary']}>"


class _Reporting:  # set by the pytest plugin (pecheck.pytest_plugin): where every call reports
    dir = None
    test = None
    calls = 0


def _label(obj):
    """MODULE:OBJECT for reproduce lines: the file and global name that hold obj, when found."""
    spec = getattr(obj, "__pecheck_spec__", None)
    if spec:
        return spec
    cwd = _os.getcwd()

    def path_of(m):
        f = getattr(m, "__file__", None)
        if not f:
            return getattr(m, "__name__", "?")
        f = _os.path.abspath(f)
        return _os.path.relpath(f, cwd) if f.startswith(cwd + _os.sep) else f

    if type(obj).__name__ == "module":
        return path_of(obj)
    for m in list(_sys.modules.values()):
        name = getattr(m, "__name__", "")
        if m is None or name.startswith(("pecheck", "torch", "numpy", "_")):
            continue
        try:
            for k, v in vars(m).items():
                if v is obj and not k.startswith("_"):
                    return f"{path_of(m)}:{k}"
        except TypeError:
            continue
    return "<python object>"


def verify(obj, **options):
    """Verifies the kernel callables of ``obj`` with every check that applies; returns a Result.

    Options (as ``pecheck verify``'s): seed, budget_seconds (60), max_position, contract
    ("logits"/"softmax"), only (a check name, prefix or list), accuracy (a class, "scheme=CLASS",
    or a list), strict, domain (rules; default: obj.domain), case, case_scale, jobs (2),
    call_timeout (5 s), isolate (True: every call in a forked worker; False: in this process,
    no protection), corpus (DIR), regressions (True), shard ("I/N"), report (DIR: report.json,
    .md, .html), junit (FILE), label (MODULE:OBJECT for the reproduce lines)."""
    o = dict(options)
    for k in ("only", "accuracy"):
        v = o.get(k)
        if isinstance(v, str):
            o[k] = [v]
        elif isinstance(v, dict):
            o[k] = [f"{s}={c}" for s, c in v.items()]
    if not o.get("label"):
        o["label"] = _label(obj)
    if _Reporting.dir and "report" not in o:
        _Reporting.calls += 1
        name = _re.sub(r"[^A-Za-z0-9_.-]+", "_", _Reporting.test or "call").strip("_")
        d = _os.path.join(_Reporting.dir, f"{name}-{_Reporting.calls}" if _Reporting.calls > 1 else name)
        o["report"] = d
        o.setdefault("junit", _os.path.join(d, "junit.xml"))
    return Result(_verify(obj, o))
