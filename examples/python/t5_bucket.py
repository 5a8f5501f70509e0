"""T5's relative position bucket (modeling_t5.py's _relative_position_bucket) in torch, on
pecheck's pec_t5_bias_f32 (spec/abi.md ABI-T5-2: bias[h][i][j] = table[bucket][h]):

    pecheck verify --python examples/python/t5_bucket.py
"""
import math

import torch


def relative_position_bucket(relative_position, bidirectional=True, num_buckets=32, max_distance=128):
    relative_buckets = 0
    if bidirectional:
        num_buckets //= 2
        relative_buckets += (relative_position > 0).to(torch.long) * num_buckets
        relative_position = torch.abs(relative_position)
    else:
        relative_position = -torch.min(relative_position, torch.zeros_like(relative_position))
    max_exact = num_buckets // 2
    is_small = relative_position < max_exact
    rel_if_large = max_exact + (
        torch.log(relative_position.float() / max_exact)
        / math.log(max_distance / max_exact)
        * (num_buckets - max_exact)
    ).to(torch.long)
    rel_if_large = torch.min(rel_if_large, torch.full_like(rel_if_large, num_buckets - 1))
    relative_buckets += torch.where(is_small, relative_position, rel_if_large)
    return relative_buckets


def valid(args):
    if args is None or args.table is None or args.q_pos is None or args.k_pos is None:
        return False
    nb, md = args.num_buckets, args.max_distance
    max_exact = nb // 2 if not args.bidirectional else nb // 4
    return (args.n_heads >= 1 and args.bidirectional in (0, 1) and nb <= 1024
            and nb >= (4 if args.bidirectional else 2) and max_exact < md <= 2**31)


def t5_bias_f32(args, bias, sign=1):
    if not valid(args) or bias is None:
        return 1
    q = torch.from_numpy(args.q_pos)
    k = torch.from_numpy(args.k_pos)
    rel = sign * (k[None, :] - q[:, None])            # memory_position - context_position
    buckets = relative_position_bucket(rel, bool(args.bidirectional), args.num_buckets, args.max_distance)
    table = torch.from_numpy(args.table)              # [num_buckets, n_heads]
    torch.from_numpy(bias).copy_(table[buckets].permute(2, 0, 1))
    return 0
