#!/usr/bin/env python3
"""PyTorch (Python, eager) reference of mlb's `gpt` workload, for the parity
benchmark: the same model written independently (RMSNorm, rotary positions,
SwiGLU, fused causal attention, tied embeddings), AdamW with warm-up and
cosine decay, gradient clipping, autocast for bf16 and fp16 (with
`GradScaler`'s dynamic loss scaling for fp16), on synthetic tokens.
PyTorch's fastest standard path: queries, keys and values split by
`unbind`, gate and up by `chunk`; AdamW `fused` by default (`--adamw`:
`fused`, `foreach` or `for-loop`), the gradient norm by `_foreach_norm`
(`clip_grad_norm_(foreach=True)`), the gradients set to None between steps.
Timing follows mlb's worker: `repeat` observations of `number` steps, the
first `skip` excluded; throughput = items per observation / mean time.

    reference.py --config '{"size": "tiny", "precision": "bf16", ...}' --threads 1 --seed 0 \
        --repeat 6 --number 2 --skip 2 [--compile] [--device cuda:0]
    reference.py --config '{...}' --flops

Prints one JSON object: {"workload", "items_per_sec", "tokens_per_sec",
"items", "mean_s", "loss"}; with --flops, {"flops_per_item"}: the FLOPs of
one training step (forward and backward) counted by PyTorch's
`FlopCounterMode`, per sequence.
"""
import argparse
import json
import math
import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from reference import build_on, measure  # noqa: E402  (bench/parity/reference.py)

# The autocast type of each precision (none: float32 throughout).
AUTOCAST = {"fp32": None, "bf16": torch.bfloat16, "fp16": torch.float16}
SIZES = {"tiny": (2, 2, 64, 64), "124m": (12, 12, 768, 1024), "350m": (24, 16, 1024, 1024), "1.3b": (24, 16, 2048, 1024)}


def rotate(x, cos, sin):
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat((x1 * cos - x2 * sin, x2 * cos + x1 * sin), dim=-1)


class RMSNorm(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(width))

    def forward(self, x):
        return F.rms_norm(x, (x.shape[-1],), self.weight, 1e-5)


class Attention(nn.Module):
    def __init__(self, width, heads, layers):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(width, 3 * width, bias=False)
        self.out = nn.Linear(width, width, bias=False)
        nn.init.normal_(self.qkv.weight, std=0.02)
        nn.init.normal_(self.out.weight, std=0.02 / math.sqrt(2 * layers))

    def forward(self, x, cos, sin):
        b, t, w = x.shape
        q, k, v = self.qkv(x).view(b, t, 3, self.heads, w // self.heads).permute(2, 0, 3, 1, 4).unbind(0)
        q, k = rotate(q, cos, sin), rotate(k, cos, sin)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.out(y.transpose(1, 2).reshape(b, t, w))


class SwiGLU(nn.Module):
    def __init__(self, width, hidden, layers):
        super().__init__()
        self.gate_up = nn.Linear(width, 2 * hidden, bias=False)
        self.down = nn.Linear(hidden, width, bias=False)
        nn.init.normal_(self.gate_up.weight, std=0.02)
        nn.init.normal_(self.down.weight, std=0.02 / math.sqrt(2 * layers))

    def forward(self, x):
        gate, up = self.gate_up(x).chunk(2, dim=-1)
        return self.down(F.silu(gate) * up)


class Block(nn.Module):
    def __init__(self, width, heads, hidden, layers):
        super().__init__()
        self.attn_norm, self.attn = RMSNorm(width), Attention(width, heads, layers)
        self.mlp_norm, self.mlp = RMSNorm(width), SwiGLU(width, hidden, layers)

    def forward(self, x, cos, sin):
        x = x + self.attn(self.attn_norm(x), cos, sin)
        return x + self.mlp(self.mlp_norm(x))


class GPT(nn.Module):
    def __init__(self, vocab, layers, heads, width, seq_len, tied=True):
        super().__init__()
        hidden = (8 * width // 3 + 63) // 64 * 64
        self.embedding = nn.Embedding(vocab, width)
        nn.init.normal_(self.embedding.weight, std=0.02)
        self.blocks = nn.ModuleList(Block(width, heads, hidden, layers) for _ in range(layers))
        self.norm = RMSNorm(width)
        self.head = None if tied else nn.Parameter(torch.randn(vocab, width) * 0.02)
        d = width // heads
        inv_freq = 1.0 / (10000.0 ** (torch.arange(0, d, 2, dtype=torch.float64) / d))
        angles = torch.outer(torch.arange(seq_len, dtype=torch.float64), inv_freq)
        self.register_buffer("cos", angles.cos().float(), persistent=False)
        self.register_buffer("sin", angles.sin().float(), persistent=False)

    def forward(self, tokens, targets):
        x = self.embedding(tokens)
        t = tokens.shape[1]
        cos, sin = self.cos[:t], self.sin[:t]
        for block in self.blocks:
            x = block(x, cos, sin)
        head = self.embedding.weight if self.head is None else self.head
        logits = F.linear(self.norm(x), head)
        return F.cross_entropy(logits.view(-1, logits.shape[-1]).float(), targets.reshape(-1))


def schedule(peak, warmup, decay, step):
    if step < warmup:
        return peak * (step + 1) / warmup
    floor = 0.1 * peak
    progress = min((step - warmup) / max(decay, 1), 1.0)
    return floor + (peak - floor) * 0.5 * (1.0 + math.cos(math.pi * progress))


# AdamW's implementations by name: the keyword arguments selecting each.
ADAMW = {"fused": {"fused": True}, "foreach": {"foreach": True}, "for-loop": {"foreach": False}}


def build(config, compile_model=False, adamw="fused"):
    layers, heads, width, seq_len = SIZES[config.get("size", "124m")]
    layers, heads = int(config.get("layers", layers)), int(config.get("heads", heads))
    width, seq_len = int(config.get("width", width)), int(config.get("seq_len", seq_len))
    vocab, batch = int(config.get("vocab", 50304)), int(config.get("batch_size", 8))
    accumulate = int(config.get("accumulate", 1))
    precision = config.get("precision", "bf16")
    if precision not in AUTOCAST:
        raise SystemExit(f"reference.py runs {', '.join(AUTOCAST)}, not {precision}")
    peak, warmup, decay = float(config.get("lr", 6e-4)), int(config.get("warmup", 100)), int(config.get("decay_steps", 5000))
    model = GPT(vocab, layers, heads, width, seq_len, bool(config.get("tied", True)))
    norms = [p for n, p in model.named_parameters() if n.endswith("norm.weight")]
    others = [p for n, p in model.named_parameters() if not n.endswith("norm.weight")]
    groups = [{"params": others, "weight_decay": float(config.get("weight_decay", 0.1))}, {"params": norms, "weight_decay": 0.0}]
    opt = torch.optim.AdamW(groups, lr=schedule(peak, warmup, decay, 0), betas=(0.9, 0.95), eps=1e-8, **ADAMW[adamw])
    forward = torch.compile(model) if compile_model else model
    stream = (torch.arange(vocab, dtype=torch.float) + 1).reciprocal().multinomial(1 << 20, replacement=True)
    clip = float(config.get("clip", 1.0))
    scaler = torch.amp.GradScaler(stream.device.type, enabled=precision == "fp16")
    state = {"step": 0}

    def batch_of():
        starts = torch.randint(0, stream.numel() - seq_len - 1, (batch,))
        windows = torch.stack([stream[s : s + seq_len + 1] for s in starts.tolist()])
        return windows[:, :-1], windows[:, 1:]

    def loss_of(tokens, targets):
        dtype = AUTOCAST[precision]
        with torch.autocast(tokens.device.type, dtype=dtype, enabled=dtype is not None):
            return forward(tokens, targets)

    def step():
        for g in opt.param_groups:
            g["lr"] = schedule(peak, warmup, decay, state["step"])
        opt.zero_grad()
        total = 0.0
        for _ in range(accumulate):
            tokens, targets = batch_of()
            loss = loss_of(tokens, targets) / accumulate
            scaler.scale(loss).backward()
            total += loss.detach()
        scaler.unscale_(opt)
        torch.nn.utils.clip_grad_norm_(model.parameters(), clip, foreach=True)
        scaler.step(opt)
        scaler.update()
        state["step"] += 1
        return batch * accumulate, float(total)

    return step, (batch_of, loss_of, batch * accumulate)


def count_flops(config):
    """One step's FLOPs per sequence. The counter has no formula for the
    CPU's fused attention kernel: attention runs on the math backend here,
    whose matrix products it counts (the same products, over the whole
    T x T square)."""
    from torch.nn.attention import SDPBackend, sdpa_kernel
    from torch.utils.flop_counter import FlopCounterMode

    _, (batch_of, loss_of, items) = build(config)
    tokens, targets = batch_of()
    with FlopCounterMode(display=False) as counter, sdpa_kernel(SDPBackend.MATH):
        loss_of(tokens, targets).backward()
    return counter.get_total_flops() / items


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default="{}", help="workload arguments, as mlb's --config")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeat", type=int, default=6)
    parser.add_argument("--number", type=int, default=2)
    parser.add_argument("--skip", type=int, default=2)
    parser.add_argument("--compile", action="store_true", help="torch.compile the model")
    parser.add_argument("--adamw", choices=ADAMW, default="fused", help="AdamW's implementation")
    parser.add_argument("--flops", action="store_true", help="count one step's FLOPs and exit")
    parser.add_argument("--device", default="cpu", help="cpu or cuda:N")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    config = json.loads(args.config)
    if args.flops:
        print(json.dumps({"flops_per_item": count_flops(config)}))
        return
    step, _ = build_on(args.device, build, config, args.compile, args.adamw)
    timed = measure(step, args.repeat, args.number, args.skip)
    seq_len = int(config.get("seq_len", SIZES[config.get("size", "124m")][3]))
    print(json.dumps({"workload": "gpt", "tokens_per_sec": timed["items_per_sec"] * seq_len, **timed}))

if __name__ == "__main__":
    main()
