"""BLOOM-style ALiBi (modeling_bloom.py's build_alibi_tensor slopes) in torch, on pecheck's
pec_alibi_bias_f32 (spec/abi.md ABI-ALIBI-2: the bias added in place to scores [heads][n_q][n_k]):

    pecheck verify --python examples/python/bloom_alibi.py
"""
import math

import torch

import pecheck


def slopes(n_heads):
    closest = 2 ** math.floor(math.log2(n_heads))
    base = 2 ** (-(2 ** -(math.log2(closest) - 3)))
    s = torch.pow(torch.tensor(base, dtype=torch.float64), torch.arange(1, 1 + closest, dtype=torch.int64))
    if closest != n_heads:
        extra = 2 ** (-(2 ** -(math.log2(2 * closest) - 3)))
        n = min(closest, n_heads - closest)
        s = torch.cat([s, torch.pow(torch.tensor(extra, dtype=torch.float64),
                                    torch.arange(1, 1 + 2 * n, 2, dtype=torch.int64))])
    return s


def alibi_bias_f32(args, scores):
    if args is None or scores is None or args.q_pos is None or args.k_pos is None:
        return 1
    if args.n_heads < 1 or args.mode not in (pecheck.PEC_ALIBI_SYMMETRIC, pecheck.PEC_ALIBI_CAUSAL):
        return 1
    q = torch.from_numpy(args.q_pos)
    k = torch.from_numpy(args.k_pos)
    if (len(q) and (q.min() < 0 or q.max() >= 2**31)) or (len(k) and (k.min() < 0 or k.max() >= 2**31)):
        return 1
    rel = (k[None, :] - q[:, None]).to(torch.float64)              # [n_q, n_k]: k - q
    s = slopes(args.n_heads)[:, None, None]
    if args.mode == pecheck.PEC_ALIBI_SYMMETRIC:
        bias = -s * rel.abs()
    else:
        bias = (s * rel).masked_fill(rel > 0, -math.inf)
    out = torch.from_numpy(scores)
    out.copy_((out.to(torch.float64) + bias).to(torch.float32))
    return 0
