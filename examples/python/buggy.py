"""Buggy torch kernels, each failing its clause with a shrunk witness (docs/python.md):

    pecheck verify --python examples/python/buggy.py:gptj_neox_mixup    # rope_cached.oracle
    pecheck verify --python examples/python/buggy.py:bf16_positions     # rope_cached.oracle, large positions
    pecheck verify --python examples/python/buggy.py:cache_by_token     # rope_cached.oracle
    pecheck verify --python examples/python/buggy.py:t5_sign            # t5.oracle
"""
import torch

import pecheck.adapters
import t5_bucket
from vllm_rope import _apply_rotary_emb, forward_native


def _rotate(positions, query, key, cos_sin, is_neox_style):
    rotary_dim = cos_sin.shape[-1]
    cos, sin = cos_sin.chunk(2, dim=-1)
    out = []
    for x in (query, key):
        rot = _apply_rotary_emb(x[..., :rotary_dim], cos, sin, is_neox_style)
        out.append(torch.cat((rot, x[..., rotary_dim:]), dim=-1))
    return out[0], out[1]


def _mixup(positions, query, key, cos_sin_cache, is_neox_style):
    # GPT-J pairs (2i, 2i+1) where NeoX pairs (i, i + d/2): the flag read the wrong way round
    return forward_native(positions, query, key, cos_sin_cache, not is_neox_style)


def _bf16_positions(positions, query, key, cos_sin_cache, is_neox_style):
    # positions carried in the activations' dtype: bf16 holds integers exactly only up to 256
    p = positions.to(torch.bfloat16).to(torch.int64).clamp(0, cos_sin_cache.shape[0] - 1)
    return _rotate(p, query, key, cos_sin_cache.index_select(0, p), is_neox_style)


def _cache_by_token(positions, query, key, cos_sin_cache, is_neox_style):
    # the cache indexed by the token's index in the batch, not by its position
    t = torch.arange(positions.shape[0]).clamp(max=cos_sin_cache.shape[0] - 1)
    return _rotate(positions, query, key, cos_sin_cache.index_select(0, t), is_neox_style)


gptj_neox_mixup = pecheck.adapters.vllm_rotary(_mixup, dtypes=("f32",))
bf16_positions = pecheck.adapters.vllm_rotary(_bf16_positions, dtypes=("f32",))
cache_by_token = pecheck.adapters.vllm_rotary(_cache_by_token, dtypes=("f32",))


class t5_sign:  # noqa: N801 -- the relative position taken as query - key
    @staticmethod
    def t5_bias_f32(args, bias):
        return t5_bucket.t5_bias_f32(args, bias, sign=-1)
