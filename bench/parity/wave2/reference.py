#!/usr/bin/env python3
"""PyTorch (Python) reference of mlb's second-wave workloads, for the parity benchmark.

recom, cart, fast_style and translator written in PyTorch with the same models,
sizes, optimizers, seed, thread count and steps as the mlb plugins (see
docs/workloads.md). The timing harness and command line are those of
../reference.py (the first wave's):

    reference.py WORKLOAD --config '{...}' --threads 1 --seed 0 --repeat 8 --number 5 --skip 3

Prints one JSON object: {"workload", "items_per_sec", "items", "mean_s", "loss"}.
"""
import math
import os
import random
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import reference  # noqa: E402  (the first wave's harness)

arg = reference.arg


# ---------------------------------------------------------------- recom
class NeuMF(nn.Module):
    def __init__(self, users, items, factors, layers):
        super().__init__()
        self.mf_user, self.mf_item = nn.Embedding(users, factors), nn.Embedding(items, factors)
        self.mlp_user, self.mlp_item = nn.Embedding(users, layers[0] // 2), nn.Embedding(items, layers[0] // 2)
        self.mlp = nn.ModuleList(nn.Linear(a, b) for a, b in zip(layers[:-1], layers[1:]))
        self.final = nn.Linear(layers[-1] + factors, 1)
        for e in (self.mf_user, self.mf_item, self.mlp_user, self.mlp_item):
            nn.init.normal_(e.weight, 0.0, 0.01)
        for layer in self.mlp:
            nn.init.xavier_uniform_(layer.weight)
            nn.init.zeros_(layer.bias)
        bound = math.sqrt(3.0 / self.final.in_features)
        nn.init.uniform_(self.final.weight, -bound, bound)

    def forward(self, u, i):
        mf = self.mf_user(u) * self.mf_item(i)
        x = torch.cat([self.mlp_user(u), self.mlp_item(i)], 1)
        for layer in self.mlp:
            x = F.relu(layer(x))
        return self.final(torch.cat([mf, x], 1))


def recom(config):
    batch, lr = arg(config, "batch_size", 2048), arg(config, "lr", 5e-4)
    users, items = arg(config, "users", 138493), arg(config, "items", 26744)
    factors, negatives = arg(config, "factors", 64), arg(config, "negatives", 4)
    layers = [int(w) for w in str(config.get("layers", "256 256 128 64")).split()]
    pairs = arg(config, "synthetic_pairs", 1_000_000)
    pos_users = torch.randint(users, (pairs,))
    pos_items = torch.multinomial(1.0 / (torch.arange(items, dtype=torch.float) + 1), pairs, replacement=True)
    model = NeuMF(users, items, factors, layers)
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    per_batch = (batch + negatives) // (negatives + 1)
    state = {"order": torch.randperm(pairs), "cursor": 0}

    def step():
        if state["cursor"] + per_batch > pairs:
            state["order"], state["cursor"] = torch.randperm(pairs), 0
        pick = state["order"][state["cursor"]:state["cursor"] + per_batch]
        state["cursor"] += per_batch
        u = pos_users[pick]
        neg_u = u.repeat(negatives)
        neg_i = torch.randint(items, (per_batch * negatives,))
        n = min(batch, per_batch * (negatives + 1))
        uu = torch.cat([u, neg_u])[:n]
        ii = torch.cat([pos_items[pick], neg_i])[:n]
        labels = torch.cat([torch.ones(per_batch), torch.zeros(per_batch * negatives)])[:n].unsqueeze(1)
        loss = F.binary_cross_entropy_with_logits(model(uu, ii), labels)
        opt.zero_grad()
        loss.backward()
        opt.step()
        return n, loss.item()

    return step


# ---------------------------------------------------------------- cart
class CartPole:
    """Gym's CartPole-v1 dynamics, 500-step limit."""

    def __init__(self, seed):
        self.rng = random.Random(seed)
        self.reset()

    def reset(self):
        self.state = [self.rng.uniform(-0.05, 0.05) for _ in range(4)]
        self.steps = 0
        return self.state

    def step(self, action):
        x, x_dot, theta, theta_dot = self.state
        force = 10.0 if action == 1 else -10.0
        cos, sin = math.cos(theta), math.sin(theta)
        temp = (force + 0.05 * theta_dot * theta_dot * sin) / 1.1
        theta_acc = (9.8 * sin - cos * temp) / (0.5 * (4.0 / 3.0 - 0.1 * cos * cos / 1.1))
        x_acc = temp - 0.05 * theta_acc * cos / 1.1
        self.state = [x + 0.02 * x_dot, x_dot + 0.02 * x_acc, theta + 0.02 * theta_dot, theta_dot + 0.02 * theta_acc]
        self.steps += 1
        x, theta = self.state[0], self.state[2]
        done = abs(x) > 2.4 or abs(theta) > 12 * 2 * math.pi / 360 or self.steps >= 500
        return self.state, 1.0, done


def cart(config):
    gamma, lr = arg(config, "gamma", 0.99), arg(config, "lr", 0.01)
    policy = nn.Sequential(nn.Linear(4, 128), nn.ReLU(), nn.Linear(128, 2))
    opt = torch.optim.Adam(policy.parameters(), lr=lr)
    env = CartPole(0)
    eps = torch.finfo(torch.float32).eps
    st = {"state": env.state, "log_probs": [], "rewards": [], "loss": math.nan}

    def finish_episode():
        ret, returns = 0.0, []
        for r in reversed(st["rewards"]):
            ret = r + gamma * ret
            returns.insert(0, ret)
        returns = torch.tensor(returns)
        returns = (returns - returns.mean()) / (returns.std() + eps)
        loss = (-torch.stack(st["log_probs"]) * returns).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
        st["log_probs"], st["rewards"] = [], []
        return loss.item()

    def step():
        probs = F.softmax(policy(torch.tensor(st["state"], dtype=torch.float).unsqueeze(0)), dim=-1)
        action = probs.multinomial(1)
        st["log_probs"].append(probs.log().gather(1, action).squeeze())
        st["state"], reward, done = env.step(action.item())
        st["rewards"].append(reward)
        if done:
            st["loss"] = finish_episode()
            st["state"] = env.reset()
        return 1, st["loss"]

    return step


# ---------------------------------------------------------------- fast_style
class ConvLayer(nn.Module):
    def __init__(self, c_in, c_out, kernel, stride, upsample=None):
        super().__init__()
        self.upsample = upsample
        self.pad = nn.ReflectionPad2d(kernel // 2)
        self.conv2d = nn.Conv2d(c_in, c_out, kernel, stride)

    def forward(self, x):
        if self.upsample:
            x = F.interpolate(x, mode="nearest", scale_factor=self.upsample)
        return self.conv2d(self.pad(x))


class ResidualBlock(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.conv1, self.in1 = ConvLayer(c, c, 3, 1), nn.InstanceNorm2d(c, affine=True)
        self.conv2, self.in2 = ConvLayer(c, c, 3, 1), nn.InstanceNorm2d(c, affine=True)

    def forward(self, x):
        return self.in2(self.conv2(F.relu(self.in1(self.conv1(x))))) + x


class TransformerNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1, self.in1 = ConvLayer(3, 32, 9, 1), nn.InstanceNorm2d(32, affine=True)
        self.conv2, self.in2 = ConvLayer(32, 64, 3, 2), nn.InstanceNorm2d(64, affine=True)
        self.conv3, self.in3 = ConvLayer(64, 128, 3, 2), nn.InstanceNorm2d(128, affine=True)
        self.res = nn.Sequential(*[ResidualBlock(128) for _ in range(5)])
        self.deconv1, self.in4 = ConvLayer(128, 64, 3, 1, 2), nn.InstanceNorm2d(64, affine=True)
        self.deconv2, self.in5 = ConvLayer(64, 32, 3, 1, 2), nn.InstanceNorm2d(32, affine=True)
        self.deconv3 = ConvLayer(32, 3, 9, 1)

    def forward(self, x):
        y = F.relu(self.in1(self.conv1(x)))
        y = F.relu(self.in2(self.conv2(y)))
        y = F.relu(self.in3(self.conv3(y)))
        y = self.res(y)
        y = F.relu(self.in4(self.deconv1(y)))
        y = F.relu(self.in5(self.deconv2(y)))
        return self.deconv3(y)


class Vgg16(nn.Module):
    """torchvision's vgg16().features up to relu4_3, randomly initialised."""

    def __init__(self):
        super().__init__()
        cfg, layers, c = [64, 64, "M", 128, 128, "M", 256, 256, 256, "M", 512, 512, 512], [], 3
        for v in cfg:
            if v == "M":
                layers.append(nn.MaxPool2d(2))
            else:
                layers += [nn.Conv2d(c, v, 3, padding=1), nn.ReLU(inplace=True)]
                c = v
        f = nn.Sequential(*layers)
        self.slices = [f[:4], f[4:9], f[9:16], f[16:23]]
        self.features = f
        for p in self.parameters():
            p.requires_grad = False

    def forward(self, x):
        out = []
        for s in self.slices:
            x = s(x)
            out.append(x)
        return out


def gram(y):
    b, c, h, w = y.size()
    f = y.view(b, c, h * w)
    return f.bmm(f.transpose(1, 2)) / (c * h * w)


def fast_style(config):
    batch, size, lr = arg(config, "batch_size", 128), arg(config, "image_size", 64), arg(config, "lr", 1e-3)
    cw, sw = arg(config, "content_weight", 1e5), arg(config, "style_weight", 1e10)
    transformer, vgg = TransformerNet(), Vgg16()
    opt = torch.optim.Adam(transformer.parameters(), lr=lr)
    mean = torch.tensor([0.485, 0.456, 0.406]).view(1, 3, 1, 1)
    std = torch.tensor([0.229, 0.224, 0.225]).view(1, 3, 1, 1)

    def normalize(x):
        return (x / 255.0 - mean) / std

    images = torch.randint(0, 256, (256, 3, size, size), dtype=torch.uint8)
    style = torch.randint(0, 256, (1, 3, size, size)).float()
    with torch.no_grad():
        gram_style = [gram(f) for f in vgg(normalize(style))]

    def step():
        x = images[torch.randint(images.size(0), (batch,))].float()
        y = transformer(x)
        features_y = vgg(normalize(y))
        with torch.no_grad():
            features_x = vgg(normalize(x))
        content = cw * F.mse_loss(features_y[1], features_x[1])
        style_loss = sw * sum(F.mse_loss(gram(f), g.expand(batch, -1, -1)) for f, g in zip(features_y, gram_style))
        total = content + style_loss
        opt.zero_grad()
        total.backward()
        opt.step()
        return batch, total.item()

    return step


# ---------------------------------------------------------------- translator
PAD, BOS, EOS = 0, 2, 3


def uniform_(module):
    for p in module.parameters():
        nn.init.uniform_(p, -0.1, 0.1)
    return module


class Attention(nn.Module):
    """Normalised Bahdanau attention of MLPerf's GNMT."""

    def __init__(self, n):
        super().__init__()
        self.linear_q, self.linear_k = nn.Linear(n, n, bias=False), nn.Linear(n, n, bias=False)
        self.linear_att = nn.Parameter(torch.empty(n).uniform_(-0.1, 0.1))
        self.normalize_scalar = nn.Parameter(torch.tensor([1.0 / math.sqrt(n)]))
        self.normalize_bias = nn.Parameter(torch.zeros(n))
        nn.init.uniform_(self.linear_q.weight, -0.1, 0.1)
        nn.init.uniform_(self.linear_k.weight, -0.1, 0.1)

    def forward(self, query, keys, pad):
        q, k = self.linear_q(query).unsqueeze(2), self.linear_k(keys).unsqueeze(1)
        v = self.linear_att / self.linear_att.norm() * self.normalize_scalar
        scores = torch.tanh(q + k + self.normalize_bias).matmul(v)
        scores = scores.masked_fill(pad.unsqueeze(1), -65504.0)
        return F.softmax(scores, -1).bmm(keys)


class GNMT(nn.Module):
    def __init__(self, vocab, h, layers, dropout):
        super().__init__()
        self.dropout = dropout
        self.embedding = nn.Embedding(vocab, h, padding_idx=PAD)
        nn.init.uniform_(self.embedding.weight, -0.1, 0.1)
        enc = [nn.LSTM(h, h, batch_first=True, bidirectional=True), nn.LSTM(2 * h, h, batch_first=True)]
        enc += [nn.LSTM(h, h, batch_first=True) for _ in range(layers - 2)]
        self.encoder = nn.ModuleList(uniform_(m) for m in enc)
        self.att_rnn = uniform_(nn.LSTM(h, h, batch_first=True))
        self.attn = Attention(h)
        self.decoder = nn.ModuleList(uniform_(nn.LSTM(2 * h, h, batch_first=True)) for _ in range(layers - 1))
        self.classifier = uniform_(nn.Linear(h, vocab))

    def forward(self, src, tgt_in):
        d = lambda x: F.dropout(x, self.dropout, self.training)  # noqa: E731
        pad = src.eq(PAD)
        x = d(self.embedding(src))
        x = d(self.encoder[0](x)[0])
        x = self.encoder[1](x)[0]
        for layer in self.encoder[2:]:
            x = layer(d(x))[0] + x
        context = x
        y = self.att_rnn(d(self.embedding(tgt_in)))[0]
        attn = self.attn(y, context, pad)
        y = self.decoder[0](torch.cat([d(y), attn], 2))[0]
        for layer in self.decoder[1:]:
            y = layer(torch.cat([d(y), attn], 2))[0] + y
        return self.classifier(y)


def translator(config):
    batch, lr = arg(config, "batch_size", 64), arg(config, "lr", 5e-4)
    vocab, h, layers = arg(config, "vocab", 32000), arg(config, "hidden", 1024), arg(config, "layers", 4)
    max_len, smoothing, clip = arg(config, "max_length", 50), arg(config, "smoothing", 0.1), arg(config, "clip", 5.0)
    model = GNMT(vocab, h, layers, arg(config, "dropout", 0.2))
    model.train()
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    words = torch.multinomial(1.0 / (torch.arange(vocab - 5, dtype=torch.float) + 1), 200_000, replacement=True) + 4
    count = arg(config, "synthetic_pairs", 10_000)
    rng = random.Random(0)
    pairs = []
    for k in range(count):
        body = words[(k * max_len) % 190_000:][:rng.randint(4, max_len - 2)]
        pairs.append((torch.cat([torch.tensor([BOS]), body, torch.tensor([EOS])]),
                      torch.cat([torch.tensor([BOS]), body + 1, torch.tensor([EOS])])))

    def padded(seqs):
        return nn.utils.rnn.pad_sequence(seqs, batch_first=True, padding_value=PAD)

    def step():
        chosen = rng.sample(range(count), batch)
        src = padded([pairs[i][0] for i in chosen])
        tgt = padded([pairs[i][1] for i in chosen])
        tgt_in, tgt_out = tgt[:, :-1], tgt[:, 1:]
        logits = model(src, tgt_in)
        logprobs = F.log_softmax(logits.reshape(-1, vocab), -1, dtype=torch.float32)
        target = tgt_out.reshape(-1)
        keep = target.ne(PAD).float()
        nll = -logprobs.gather(1, target.unsqueeze(1)).squeeze(1)
        smooth = -logprobs.mean(-1)
        loss = (((1 - smoothing) * nll + smoothing * smooth) * keep).sum()
        opt.zero_grad()
        (loss / batch).backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
        opt.step()
        return batch, loss.item() / keep.sum().item()

    return step


reference.WORKLOADS.update({"recom": recom, "cart": cart, "fast_style": fast_style, "translator": translator})

if __name__ == "__main__":
    reference.main()
