#!/usr/bin/env python3
"""PyTorch (Python) reference of mlb's `vit`, for its parity benchmark.

The same Vision Transformer, written independently in PyTorch eager: patch
embedding by a strided convolution, class token, learned positions,
pre-norm blocks (fused scaled_dot_product_attention, GELU MLP of 4 x width),
final norm, head on the class token; initialised as timm's and DeiT's
(Linear weights, class token and positions from a normal of std 0.02 cut at
two standard deviations, biases zero, layer norms 1 and 0, the patch
projection PyTorch's default); AdamW (weight decay 0.05 on the Linear
weights and the patch kernel only) with linear warm-up then cosine decay to
a tenth, clipping at norm 1; `precision` fp32, bf16 or fp16 as autocast
(float32 weights), as mlb does. PyTorch's fastest standard path: queries,
keys and values split by `unbind`, AdamW `fused` (`--adamw`: `fused`,
`foreach`, `for-loop`), the gradient norm by `_foreach_norm`. `--compile`
runs the model through torch.compile (for information). Timing as mlb's
worker.

    reference.py --config '{"size": "tiny", ...}' --threads 1 --seed 0 --repeat 6 --number 2 --skip 1 \
        [--compile] [--device cuda:0]

Prints one JSON object: {"items_per_sec", "items", "mean_s", "loss"}.
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

SIZES = {"tiny": (12, 3, 192), "small": (12, 6, 384), "base": (12, 12, 768)}
# AdamW's implementations by name: the keyword arguments selecting each.
ADAMW = {"fused": {"fused": True}, "foreach": {"foreach": True}, "for-loop": {"foreach": False}}
STD = 0.02


def linear(inputs, outputs):
    """A Linear layer initialised as timm's ViT: truncated normal weight,
    zero bias."""
    layer = nn.Linear(inputs, outputs)
    nn.init.trunc_normal_(layer.weight, std=STD, a=-2 * STD, b=2 * STD)
    nn.init.zeros_(layer.bias)
    return layer


def token(*shape):
    return nn.Parameter(nn.init.trunc_normal_(torch.empty(*shape), std=STD, a=-2 * STD, b=2 * STD))


class Block(nn.Module):
    def __init__(self, width, heads):
        super().__init__()
        self.heads = heads
        self.norm1, self.norm2 = nn.LayerNorm(width), nn.LayerNorm(width)
        self.qkv, self.proj = linear(width, 3 * width), linear(width, width)
        self.fc1, self.fc2 = linear(width, 4 * width), linear(4 * width, width)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(self.norm1(x)).view(b, t, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4).unbind(0)
        x = x + self.proj(F.scaled_dot_product_attention(q, k, v).transpose(1, 2).reshape(b, t, d))
        return x + self.fc2(F.gelu(self.fc1(self.norm2(x))))

    def forward_class(self, x):
        """The class token's output alone (`--last-block class`): keys and
        values of every token, the rest of the class token only."""
        b, t, d = x.shape
        h = self.norm1(x)
        w, bias = self.qkv.weight, self.qkv.bias
        q = F.linear(h[:, :1], w[:d], bias[:d]).view(b, 1, self.heads, d // self.heads).transpose(1, 2)
        k, v = F.linear(h, w[d:], bias[d:]).view(b, t, 2, self.heads, d // self.heads).permute(2, 0, 3, 1, 4).unbind(0)
        x = x[:, :1] + self.proj(F.scaled_dot_product_attention(q, k, v).transpose(1, 2).reshape(b, 1, d))
        return x + self.fc2(F.gelu(self.fc1(self.norm2(x))))


class ViT(nn.Module):
    def __init__(self, layers, heads, width, image, patch, classes, last_block="all"):
        super().__init__()
        self.last_block = last_block
        tokens = (image // patch) ** 2 + 1
        self.embed = nn.Conv2d(3, width, patch, stride=patch)
        self.class_token = token(1, 1, width)
        self.position = token(1, tokens, width)
        self.blocks = nn.ModuleList(Block(width, heads) for _ in range(layers))
        self.norm, self.head = nn.LayerNorm(width), linear(width, classes)

    def forward(self, images):
        x = self.embed(images).flatten(2).transpose(1, 2)
        x = torch.cat([self.class_token.expand(x.shape[0], -1, -1), x], 1) + self.position
        if self.last_block == "class":
            for block in self.blocks[:-1]:
                x = block(x)
            return self.head(self.norm(self.blocks[-1].forward_class(x)[:, 0]))
        for block in self.blocks:
            x = block(x)
        return self.head(self.norm(x)[:, 0])


def decays(name, param):
    """Whether a parameter gets weight decay: the matrices and the patch
    kernel do; biases, norms and the class and position tokens do not."""
    return param.dim() >= 2 and name not in ("class_token", "position")


def vit(config, compile_model, adamw="fused", last_block="all"):
    layers, heads, width = SIZES[config.get("size", "base")]
    layers, heads, width = (int(config.get(k, v)) for k, v in (("layers", layers), ("heads", heads), ("width", width)))
    image, patch = int(config.get("image_size", 224)), int(config.get("patch", 16))
    classes, batch = int(config.get("classes", 1000)), int(config.get("batch_size", 64))
    lr, warmup, decay = float(config.get("lr", 1e-3)), int(config.get("warmup", 10)), int(config.get("decay", 1000))
    dtype = {"fp32": None, "bf16": torch.bfloat16, "fp16": torch.float16}[config.get("precision", "fp32")]
    model = ViT(layers, heads, width, image, patch, classes, last_block).train()
    forward = torch.compile(model) if compile_model else model
    wd = float(config.get("weight_decay", 0.05))
    named = list(model.named_parameters())
    groups = [{"params": [p for n, p in named if decays(n, p)], "weight_decay": wd},
              {"params": [p for n, p in named if not decays(n, p)], "weight_decay": 0.0}]
    opt = torch.optim.AdamW(groups, lr=lr, **ADAMW[adamw])
    images, labels = torch.randn(batch, 3, image, image), torch.randint(0, classes, (batch,))
    scaler = torch.amp.GradScaler(images.device.type, enabled=dtype == torch.float16)
    step_no = [0]

    def rate(step):
        if step < warmup:
            return lr * (step + 1) / warmup
        t = min((step - warmup) / max(decay, 1), 1.0)
        return lr * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * t)))

    def step():
        with torch.autocast(images.device.type, dtype=dtype, enabled=dtype is not None):
            logits = forward(images)
        loss = F.cross_entropy(logits.float(), labels)
        opt.zero_grad()
        scaler.scale(loss).backward()
        scaler.unscale_(opt)
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0, foreach=True)
        for group in opt.param_groups:
            group["lr"] = rate(step_no[0])
        scaler.step(opt)
        scaler.update()
        step_no[0] += 1
        return batch, loss.item()

    return step


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default="{}", help="vit's arguments, as mlb's --config")
    parser.add_argument("--threads", type=int, required=True)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeat", type=int, required=True)
    parser.add_argument("--number", type=int, required=True)
    parser.add_argument("--skip", type=int, required=True)
    parser.add_argument("--compile", action="store_true", help="the model through torch.compile")
    parser.add_argument("--adamw", choices=ADAMW, default="fused", help="AdamW's implementation")
    parser.add_argument("--first-loss", action="store_true", help="print the loss of the first step only")
    parser.add_argument("--last-block", choices=["all", "class"], default="all",
                        help="the last block over every token (timm's, the default) or the class token alone (mlb's)")
    parser.add_argument("--device", default="cpu", help="cpu or cuda:N")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    step = build_on(args.device, vit, json.loads(args.config), args.compile, args.adamw, args.last_block)
    if args.first_loss:
        print(json.dumps({"loss": step()[1]}))
        return
    print(json.dumps(measure(step, args.repeat, args.number, args.skip)))


if __name__ == "__main__":
    main()
