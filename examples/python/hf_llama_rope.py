"""HF transformers Llama rotary (modeling_llama.py's rotate_half / apply_rotary_pos_emb), in
torch, verified through pecheck's HF adapter (docs/python.md):

    pecheck verify --python examples/python/hf_llama_rope.py:kernel
"""
import torch

import pecheck.adapters


def rotate_half(x):
    x1 = x[..., : x.shape[-1] // 2]
    x2 = x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


def apply_rotary_pos_emb(q, k, cos, sin, unsqueeze_dim=1):
    cos = cos.unsqueeze(unsqueeze_dim)
    sin = sin.unsqueeze(unsqueeze_dim)
    q_embed = (q * cos) + (rotate_half(q) * sin)
    k_embed = (k * cos) + (rotate_half(k) * sin)
    return q_embed, k_embed


kernel = pecheck.adapters.hf_rotary(apply_rotary_pos_emb, dtypes=("f32",))
