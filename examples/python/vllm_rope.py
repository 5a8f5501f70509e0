"""vLLM's RotaryEmbedding.forward_native (rotary_embedding.py), in torch, with its cos/sin
cache, verified through pecheck's vLLM adapter (docs/python.md):

    pecheck verify --python examples/python/vllm_rope.py:kernel
"""
import torch

import pecheck.adapters


def _apply_rotary_emb(x, cos, sin, is_neox_style):
    cos = cos.unsqueeze(-2).to(x.dtype)
    sin = sin.unsqueeze(-2).to(x.dtype)
    if is_neox_style:
        x1, x2 = torch.chunk(x, 2, dim=-1)
    else:
        x1 = x[..., ::2]
        x2 = x[..., 1::2]
    o1 = x1 * cos - x2 * sin
    o2 = x2 * cos + x1 * sin
    if is_neox_style:
        return torch.cat((o1, o2), dim=-1)
    return torch.stack((o1, o2), dim=-1).flatten(-2)


def forward_native(positions, query, key, cos_sin_cache, is_neox_style):
    # query [tokens, heads, head_size] as the adapter passes it. (vLLM's own reshape of a flat
    # [tokens, heads*head_size] query with view(num_tokens, -1, head_size) raises for 0 tokens:
    # pecheck's first finding on it; the number of heads is taken from the shape instead.)
    rotary_dim = cos_sin_cache.shape[-1]
    cos_sin = cos_sin_cache.index_select(0, positions)
    cos, sin = cos_sin.chunk(2, dim=-1)
    out = []
    for x in (query, key):
        shape = x.shape
        rot = _apply_rotary_emb(x[..., :rotary_dim], cos, sin, is_neox_style)
        out.append(torch.cat((rot, x[..., rotary_dim:]), dim=-1).reshape(shape))
    return out[0], out[1]


kernel = pecheck.adapters.vllm_rotary(forward_native, dtypes=("f32",))
