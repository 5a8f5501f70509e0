"""Python kernels that fail without a wrong number, each reported as a failed call of the check
that met it, never as a failure of pecheck (docs/python.md):

    pecheck verify --python examples/python/broken.py:raises       # an exception: "raised ..."
    pecheck verify --python examples/python/broken.py:wrong_shape  # adapter: "has shape ..."
    pecheck verify --python examples/python/broken.py:segfault     # SIGSEGV inside ctypes
    pecheck verify --python examples/python/broken.py:hangs        # never returns: a hang
"""
import ctypes
import time

import pecheck.adapters
from vllm_rope import forward_native


class raises:  # noqa: N801
    @staticmethod
    def rope_cached_f32(args, q, k, q_out, k_out):
        raise ValueError("rotary_dim %d not supported" % args.rotary_dim)


def _wrong_shape(positions, query, key, cos_sin_cache, is_neox_style):
    q, k = forward_native(positions, query, key, cos_sin_cache, is_neox_style)
    return q.flatten(1), k     # flattened heads: [tokens, heads*head_size]


wrong_shape = pecheck.adapters.vllm_rotary(_wrong_shape, dtypes=("f32",))


class segfault:  # noqa: N801
    @staticmethod
    def rope_cached_f32(args, q, k, q_out, k_out):
        return ctypes.string_at(16, 8)  # reads an unmapped address in C: SIGSEGV in the worker


class hangs:  # noqa: N801
    @staticmethod
    def rope_cached_f32(args, q, k, q_out, k_out):
        while True:
            time.sleep(1)
