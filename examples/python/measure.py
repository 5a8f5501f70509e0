"""Measures what verifying a torch kernel costs (docs/python.md): the default run of the vLLM
example (every check of pec_rope_cached_f32, calls in forked workers) and the per-call overhead
of a Python kernel (the argument object, the numpy views and the call, through the bridge in
this process) against a kernel that does nothing.

    PYTHONPATH=build/python /usr/bin/python3 examples/python/measure.py
"""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import pecheck  # noqa: E402
import vllm_rope  # noqa: E402
from pecheck import _pecheck  # noqa: E402


class noop:  # noqa: N801
    @staticmethod
    def rope_cached_f32(args, q, k, q_out, k_out):
        return 0


t0 = time.perf_counter()
c0 = os.times()
r = pecheck.verify(vllm_rope.kernel, seed=0)
c1 = os.times()
wall = time.perf_counter() - t0
cpu = (c1.user - c0.user) + (c1.system - c0.system) + (c1.children_user - c0.children_user) + \
    (c1.children_system - c0.children_system)
print(f"default verify of examples/python/vllm_rope.py:kernel: {r.verdict}, {wall:.2f} s wall, "
      f"{cpu:.2f} s CPU (this process and its workers)")
n = 2000
t_noop = _pecheck._bench_call(noop, n)
t_torch = _pecheck._bench_call(vllm_rope.kernel, n // 4)
print(f"per call, in process: bridge + no-op kernel {t_noop * 1e6:.1f} us; "
      f"bridge + vLLM adapter + torch forward_native {t_torch * 1e6:.1f} us")
