"""torch adapters: the interfaces users already have, wrapped onto the ABI's calls.

    kernel = pecheck.adapters.hf_rotary(apply_rotary_pos_emb)   # HF transformers style
    kernel = pecheck.adapters.vllm_rotary(forward)              # vLLM style, cos/sin cache
    pecheck.testing.assert_verified(kernel)

Both provide ``rope_cached_f32``, ``rope_cached_bf16`` and ``rope_cached_f16`` (or the
``dtypes`` given: ("f32",) for float32 only; spec/abi.md
ABI-CACHE: q and k rotated by a cos/sin cache indexed by position). Each reads pecheck's views
as torch tensors (no copy), rejects what the ABI says to reject (returns 1: tier A and B of
spec/abi.md), calls the wrapped function with the tensors as it expects them and writes what it
returns into the output views, checking its shape (a wrong shape is reported as an exception).
"""
import numpy as np
import torch

import pecheck

_SUFFIXES = ("f32", "bf16", "f16")


def _view_ok(n_tokens, heads, head_dim, s):
    """ABI-VIEW-1: token-major or head-major strides, never negative (an empty view: any)."""
    if n_tokens <= 0 or heads <= 0 or head_dim <= 0:
        return True
    if s.token < 0 or s.head < 0:
        return False
    if heads <= 1 and n_tokens <= 1:
        return True
    if heads <= 1:
        return s.token >= head_dim
    if n_tokens <= 1:
        return s.head >= head_dim
    return (s.head >= head_dim and s.token >= heads * s.head) or (s.token >= head_dim and s.head >= n_tokens * s.token)


def _same_view(x, y):
    return (x.__array_interface__["data"][0] == y.__array_interface__["data"][0]
            and x.strides == y.strides and x.shape == y.shape)


def _overlap(x, y):
    return np.may_share_memory(x, y) and np.shares_memory(x, y)


def _rejects(a, q, k, qo, ko):
    """True when the call is outside ABI-CACHE-1 (the kernel must return non-zero)."""
    if a is None or any(x is None for x in (q, k, qo, ko, a.positions, a.cos_sin_cache)):
        return True
    if a.n_q_heads < 1 or a.n_kv_heads < 1 or a.n_q_heads % a.n_kv_heads or a.n_tokens < 0:
        return True
    if a.head_dim < 2 or a.rotary_dim < 2 or a.rotary_dim % 2 or a.rotary_dim > a.head_dim:
        return True
    if a.layout not in (pecheck.PEC_ROPE_NEOX, pecheck.PEC_ROPE_GPTJ) or a.cache_dtype not in (0, 1, 2):
        return True
    if a.cos_sin_cache.shape[1] != a.rotary_dim:
        return True
    for v, heads, st in ((q, a.n_q_heads, a.q), (k, a.n_kv_heads, a.k), (qo, a.n_q_heads, a.q_out),
                         (ko, a.n_kv_heads, a.k_out)):
        if not _view_ok(a.n_tokens, heads, a.head_dim, st):
            return True
    # ABI-VIEW-1: an out-of-place output overlaps no input (q_out == q, k_out == k: in place)
    for out, own in ((qo, q), (ko, k)):
        for inp in (q, k):
            if not (inp is own and _same_view(out, inp)) and _overlap(out, inp):
                return True
    p = a.positions
    return bool(len(p) and (p.min() < 0 or p.max() >= a.cache_positions))


def _views(a, dt, q, k, qo, ko):
    td = pecheck.torch_dtype(dt)
    return (pecheck.as_torch(q, td), pecheck.as_torch(k, td), pecheck.as_torch(qo, td), pecheck.as_torch(ko, td),
            torch.from_numpy(a.positions), pecheck.as_torch(a.cos_sin_cache, pecheck.torch_dtype(a.cache_dtype)))


def _store(name, out, got):
    if not isinstance(got, torch.Tensor):
        raise TypeError(f"{name}: expected a tensor, got {type(got).__name__}")
    if tuple(got.shape) != tuple(out.shape):
        raise ValueError(f"{name} has shape {tuple(got.shape)}, expected {tuple(out.shape)}")
    if got.data_ptr() != out.data_ptr():
        out.copy_(got)


class _Kernel:
    def __init__(self, one, dtypes, domain=None):
        for dt in dtypes:
            setattr(self, f"rope_cached_{dt}", self._bind(one, dt))
        if domain:
            self.domain = domain

    @staticmethod
    def _bind(one, dt):
        def call(a, q, k, qo, ko):
            if _rejects(a, q, k, qo, ko):
                return 1
            with torch.no_grad():
                one(a, *_views(a, dt, q, k, qo, ko))
            return 0
        call.__name__ = f"rope_cached_{dt}"
        return call


def hf_rotary(apply_rotary_pos_emb, dtypes=_SUFFIXES):
    """HF transformers: ``apply_rotary_pos_emb(q, k, cos, sin) -> (q_embed, k_embed)`` with q, k
    ``[batch, heads, seq, head_dim]`` and cos, sin ``[batch, seq, head_dim]`` (``cat(freqs,
    freqs)``, cast to q's dtype, as LlamaRotaryEmbedding returns them). NeoX pairing only (its
    rotate_half), so the domain says ``rope.layout neox``; partial rotary as GPT-NeoX and Phi do it
    (the first rotary_dim lanes rotated, the rest passed through)."""
    def one(a, Q, K, QO, KO, pos, cache):
        rd, h = a.rotary_dim, a.rotary_dim // 2
        rows = cache[pos]                                   # [T, rotary_dim]: cos then sin
        cos = torch.cat([rows[:, :h], rows[:, :h]], -1).to(Q.dtype)[None]
        sin = torch.cat([rows[:, h:], rows[:, h:]], -1).to(Q.dtype)[None]
        q4, k4 = Q.permute(1, 0, 2)[None], K.permute(1, 0, 2)[None]   # [1, heads, T, head_dim]
        qe, ke = apply_rotary_pos_emb(q4[..., :rd], k4[..., :rd], cos, sin)
        for name, out, e, x in (("q_embed", QO, qe, q4), ("k_embed", KO, ke, k4)):
            if tuple(e.shape) != tuple(x[..., :rd].shape):
                raise ValueError(f"apply_rotary_pos_emb returned {name} of shape {tuple(e.shape)}, "
                                 f"expected {tuple(x[..., :rd].shape)}")
            full = torch.cat([e, x[..., rd:]], -1)[0].permute(1, 0, 2)
            _store(f"apply_rotary_pos_emb's {name}", out, full)
    return _Kernel(one, dtypes, domain="pecheck-domain 1\nrope.layout neox\n")


def vllm_rotary(forward, dtypes=_SUFFIXES):
    """vLLM: ``forward(positions, query, key, cos_sin_cache, is_neox) -> (query, key)`` as
    RotaryEmbedding.forward_native computes it: query ``[tokens, heads, head_size]``, key
    ``[tokens, kv_heads, head_size]``, cos_sin_cache ``[max_positions, rotary_dim]`` (cosines then
    sines). It may also rotate query and key in place and return None (the CUDA op's style): it
    is then handed the output views, holding copies of the inputs."""
    def one(a, Q, K, QO, KO, pos, cache):
        if QO.data_ptr() != Q.data_ptr():
            QO.copy_(Q)
        if KO.data_ptr() != K.data_ptr():
            KO.copy_(K)
        got = forward(pos, QO, KO, cache, a.layout == pecheck.PEC_ROPE_NEOX)
        if got is not None:
            if not isinstance(got, (tuple, list)) or len(got) != 2:
                raise TypeError(f"forward returned {type(got).__name__}, expected (query, key) or None")
            _store("forward's query", QO, got[0])
            _store("forward's key", KO, got[1])
    return _Kernel(one, dtypes)
