#!/usr/bin/env python3
"""PyTorch (Python) reference of mlb's libtorch workloads, for the parity benchmark.

Each workload is the original suite's model with the same sizes, optimizer,
seed, thread count and step count as the mlb plugin it is compared with
(see docs/workloads.md). Timing follows mlb's worker: `repeat` observations of
`number` steps, the first `skip` excluded; throughput = items per observation /
mean observation time. Every step reads its loss back (`.item()`), which
waits for the device, as mlb's worker checks every step's loss.

`--device cuda:0` builds the model and its data on that GPU (under
`torch.device`, which is left before the timed steps: its mode would add
Python overhead to every call) and turns cuDNN's autotuner on, as mlb's
convnet does on a GPU.

    reference.py WORKLOAD --config '{"batch_size": 256, ...}' --threads 1 --seed 0 \
        --repeat 20 --number 100 --skip 5 [--device cuda:0]

Prints one JSON object: {"workload", "items_per_sec", "items", "mean_s", "loss"}.
"""
import argparse
import json
import math
import time

import torch
import torch.nn as nn
import torch.nn.functional as F


def arg(config, key, default):
    return type(default)(config.get(key, default))


# ---------------------------------------------------------------- toy_reg
def toy_reg(config):
    batch, lr = arg(config, "batch_size", 256), arg(config, "lr", 0.01)
    fc = nn.Linear(4, 1)
    opt = torch.optim.SGD(fc.parameters(), lr=lr)
    w_target = torch.randn(4, 1) * 5
    b_target = torch.randn(1) * 5
    powers = torch.arange(1, 5, dtype=torch.float)

    def step():
        x = torch.randn(batch, 1, device=w_target.device)
        features = x.pow(powers)
        y = torch.addmm(b_target, features, w_target)
        loss = F.smooth_l1_loss(fc(features), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        return batch, loss.item()

    return step


# ---------------------------------------------------------------- toy_lstm
class Sequence(nn.Module):
    """The original model: two LSTM cells and a linear layer, unrolled."""

    def __init__(self):
        super().__init__()
        self.lstm1 = nn.LSTMCell(1, 51)
        self.lstm2 = nn.LSTMCell(51, 51)
        self.linear = nn.Linear(51, 1)

    def forward(self, input):
        outputs = []
        h_t, c_t, h_t2, c_t2 = (torch.zeros(input.size(0), 51, dtype=input.dtype, device=input.device)
                                for _ in range(4))
        for input_t in input.split(1, dim=1):
            h_t, c_t = self.lstm1(input_t, (h_t, c_t))
            h_t2, c_t2 = self.lstm2(h_t, (h_t2, c_t2))
            outputs += [self.linear(h_t2)]
        return torch.cat(outputs, dim=1)


def toy_lstm(config):
    dtype = {"float16": torch.half, "float32": torch.float, "float64": torch.double}[config.get("dtype", "float32")]
    series, length, lr = arg(config, "series", 100), arg(config, "length", 1000), arg(config, "lr", 0.01)
    t = torch.arange(length, dtype=torch.double)
    offsets = torch.randint(-80, 80, (series, 1)).double()
    data = torch.sin((t + offsets) / 20.0).to(dtype)
    input, target = data[3:, :-1], data[3:, 1:]
    model = Sequence().to(dtype)
    opt = torch.optim.SGD(model.parameters(), lr=lr)

    def step():
        opt.zero_grad()
        loss = F.mse_loss(model(input), target)
        loss.backward()
        opt.step()
        return 1, loss.item()

    return step


# ---------------------------------------------------------------- vae
class VAE(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(784, 400)
        self.fc21 = nn.Linear(400, 20)
        self.fc22 = nn.Linear(400, 20)
        self.fc3 = nn.Linear(20, 400)
        self.fc4 = nn.Linear(400, 784)

    def forward(self, x):
        h1 = F.relu(self.fc1(x))
        mu, logvar = self.fc21(h1), self.fc22(h1)
        std = torch.exp(0.5 * logvar)
        z = mu + torch.randn_like(std) * std
        return torch.sigmoid(self.fc4(F.relu(self.fc3(z)))), mu, logvar


def vae(config):
    batch, lr = arg(config, "batch_size", 128), arg(config, "lr", 1e-3)
    images = torch.randint(0, 256, (4096, 784), dtype=torch.uint8)
    model = VAE()
    opt = torch.optim.Adam(model.parameters(), lr=lr)

    def step():
        index = torch.randint(images.size(0), (batch,), device=images.device)
        x = images.index_select(0, index).float() / 255.0
        recon, mu, logvar = model(x)
        bce = F.binary_cross_entropy(recon, x, reduction="sum")
        kld = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
        loss = bce + kld
        opt.zero_grad()
        loss.backward()
        opt.step()
        return batch, loss.item() / batch

    return step


# ---------------------------------------------------------------- half precision
class MasterWeights:
    """Half precision as mlb's `amp::MasterWeights` trains it (convnet_fp16,
    wlmfp16): the model's parameters in float16, a float32 copy of each
    that plain SGD updates, the loss multiplied by a static scale before the
    backward pass and the gradients divided by it, in float32, after."""

    def __init__(self, model, lr, config, default_scale):
        scale = config.get("loss_scale", default_scale)
        if scale == "dynamic":
            raise SystemExit("the reference implements a static loss_scale only")
        self.params = list(model.parameters())
        self.master = [p.detach().float() for p in self.params]
        self.lr, self.scale = lr, float(scale)

    def backward(self, loss):
        """Back-propagates `loss` (float32) times the scale; the float32
        gradients, unscaled."""
        for p in self.params:
            p.grad = None
        (loss * self.scale).backward()
        return [p.grad.float() / self.scale for p in self.params]

    def sgd_step(self, grads):
        """`master -= lr * grad`, copied into the half model."""
        with torch.no_grad():
            for p, m, g in zip(self.params, self.master, grads):
                m.add_(g, alpha=-self.lr)
                p.copy_(m)


def clip_(grads, max_norm):
    """Scales `grads` in place so that their total norm is at most
    `max_norm`, as `clip_grad_norm_` does for parameters."""
    total = torch.linalg.vector_norm(torch.stack([torch.linalg.vector_norm(g) for g in grads]))
    coefficient = torch.clamp(max_norm / (total + 1e-6), max=1.0)
    for g in grads:
        g.mul_(coefficient)


# ---------------------------------------------------------------- convnet
class BasicBlock(nn.Module):
    expansion = 1

    def __init__(self, c_in, width, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(c_in, width, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(width)
        self.conv2 = nn.Conv2d(width, width, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(width)
        self.downsample = downsample(c_in, width, stride)

    def forward(self, x):
        y = self.bn2(self.conv2(F.relu(self.bn1(self.conv1(x)))))
        return F.relu(self.downsample(x) + y)


class Bottleneck(nn.Module):
    """ResNet-50's block, the stride on the 3x3 convolution (torchvision's
    and tch's)."""

    expansion = 4

    def __init__(self, c_in, width, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(c_in, width, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(width)
        self.conv2 = nn.Conv2d(width, width, 3, stride, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(width)
        self.conv3 = nn.Conv2d(width, 4 * width, 1, bias=False)
        self.bn3 = nn.BatchNorm2d(4 * width)
        self.downsample = downsample(c_in, 4 * width, stride)

    def forward(self, x):
        y = F.relu(self.bn1(self.conv1(x)))
        y = self.bn3(self.conv3(F.relu(self.bn2(self.conv2(y)))))
        return F.relu(self.downsample(x) + y)


def downsample(c_in, c_out, stride):
    if stride == 1 and c_in == c_out:
        return nn.Sequential()
    return nn.Sequential(nn.Conv2d(c_in, c_out, 1, stride, bias=False), nn.BatchNorm2d(c_out))


class ResNet(nn.Module):
    """ResNet as torchvision (and tch's vision::resnet) define it."""

    def __init__(self, block, counts, classes):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 64, 7, 2, 3, bias=False)
        self.bn1 = nn.BatchNorm2d(64)
        layers, c_in = [], 64
        for width, count, stride in zip([64, 128, 256, 512], counts, [1, 2, 2, 2]):
            for i in range(count):
                layers.append(block(c_in, width, stride if i == 0 else 1))
                c_in = width * block.expansion
        self.layers = nn.Sequential(*layers)
        self.fc = nn.Linear(c_in, classes)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.bn1(self.conv1(x))), 3, 2, 1)
        x = F.adaptive_avg_pool2d(self.layers(x), 1).flatten(1)
        return self.fc(x)


ARCHS = {
    "resnet18": (BasicBlock, [2, 2, 2, 2]),
    "resnet34": (BasicBlock, [3, 4, 6, 3]),
    "resnet50": (Bottleneck, [3, 4, 6, 3]),
    "resnet101": (Bottleneck, [3, 4, 23, 3]),
    "resnet152": (Bottleneck, [3, 8, 36, 3]),
}


def convnet(config, half=False):
    arch = config.get("arch", "resnet101")
    if arch not in ARCHS:
        raise SystemExit(f"unknown arch {arch}: one of {', '.join(ARCHS)}")
    batch, lr = arg(config, "batch_size", 128 if half else 64), arg(config, "lr", 0.1)
    classes, size = arg(config, "classes", 1000), arg(config, "image_size", 224)
    model = ResNet(*ARCHS[arch], classes).train()
    images = torch.randn(batch, 3, size, size)
    labels = torch.randint(0, classes, (batch,))
    if half:
        model.half()
        images = images.half()
        master = MasterWeights(model, lr, config, 128)
    else:
        opt = torch.optim.SGD(model.parameters(), lr=lr)

    def step():
        loss = F.cross_entropy(model(images).float(), labels)
        if half:
            master.sgd_step(master.backward(loss))
        else:
            opt.zero_grad()
            loss.backward()
            opt.step()
        return batch, loss.item()

    step.model, step.data = model, (images, labels)
    return step


def convnet_fp16(config):
    return convnet(config, half=True)


def convnet_ddp(config):
    """convnet as one rank of a DistributedDataParallel group, the group
    read from torchrun's variables: each rank its own batch. `backend` as
    mlb's: `auto` (the default) is NCCL for a model on a GPU, Gloo on the
    CPU."""
    import torch.distributed as dist

    backend = config.get("backend", "auto")
    step_of = convnet(config)
    model = step_of.model
    on_gpu = next(model.parameters()).is_cuda
    dist.init_process_group(("nccl" if on_gpu else "gloo") if backend == "auto" else backend)
    ddp = nn.parallel.DistributedDataParallel(model, bucket_cap_mb=arg(config, "bucket_mb", 25))
    opt = torch.optim.SGD(ddp.parameters(), lr=arg(config, "lr", 0.1))
    images, labels = step_of.data

    def step():
        loss = F.cross_entropy(ddp(images), labels)
        opt.zero_grad()
        loss.backward()
        opt.step()
        return images.shape[0], loss.item()

    return step


# ---------------------------------------------------------------- dcgan
def generator(nz, ngf):
    return nn.Sequential(
        nn.ConvTranspose2d(nz, ngf * 8, 4, 1, 0, bias=False), nn.BatchNorm2d(ngf * 8), nn.ReLU(True),
        nn.ConvTranspose2d(ngf * 8, ngf * 4, 4, 2, 1, bias=False), nn.BatchNorm2d(ngf * 4), nn.ReLU(True),
        nn.ConvTranspose2d(ngf * 4, ngf * 2, 4, 2, 1, bias=False), nn.BatchNorm2d(ngf * 2), nn.ReLU(True),
        nn.ConvTranspose2d(ngf * 2, ngf, 4, 2, 1, bias=False), nn.BatchNorm2d(ngf), nn.ReLU(True),
        nn.ConvTranspose2d(ngf, 3, 4, 2, 1, bias=False), nn.Tanh())


def discriminator(ndf):
    return nn.Sequential(
        nn.Conv2d(3, ndf, 4, 2, 1, bias=False), nn.LeakyReLU(0.2, inplace=True),
        nn.Conv2d(ndf, ndf * 2, 4, 2, 1, bias=False), nn.BatchNorm2d(ndf * 2), nn.LeakyReLU(0.2, inplace=True),
        nn.Conv2d(ndf * 2, ndf * 4, 4, 2, 1, bias=False), nn.BatchNorm2d(ndf * 4), nn.LeakyReLU(0.2, inplace=True),
        nn.Conv2d(ndf * 4, ndf * 8, 4, 2, 1, bias=False), nn.BatchNorm2d(ndf * 8), nn.LeakyReLU(0.2, inplace=True),
        nn.Conv2d(ndf * 8, 1, 4, 1, 0, bias=False), nn.Sigmoid())


def dcgan(config):
    batch, lr = arg(config, "batch_size", 128), arg(config, "lr", 2e-4)
    nz, ngf, ndf = arg(config, "nz", 100), arg(config, "ngf", 64), arg(config, "ndf", 64)
    net_g, net_d = generator(nz, ngf), discriminator(ndf)
    opt_g = torch.optim.Adam(net_g.parameters(), lr=lr, betas=(0.5, 0.999))
    opt_d = torch.optim.Adam(net_d.parameters(), lr=lr, betas=(0.5, 0.999))
    criterion = nn.BCELoss()
    real = F.interpolate(torch.rand(batch, 3, 8, 8) * 2 - 1, size=(64, 64), mode="bilinear", align_corners=False)
    real_label, fake_label = torch.ones(batch), torch.zeros(batch)

    def step():
        net_d.zero_grad()
        err_real = criterion(net_d(real).view(-1), real_label)
        err_real.backward()
        noise = torch.randn(batch, nz, 1, 1, device=real.device)
        fake = net_g(noise)
        err_fake = criterion(net_d(fake.detach()).view(-1), fake_label)
        err_fake.backward()
        opt_d.step()
        net_g.zero_grad()
        err_g = criterion(net_d(fake).view(-1), real_label)
        err_g.backward()
        opt_g.step()
        err_g.item()
        return batch, (err_real + err_fake).item()

    return step


# ---------------------------------------------------------------- wlm
class RNNModel(nn.Module):
    def __init__(self, ntoken, ninp, nhid, nlayers, dropout):
        super().__init__()
        self.drop = nn.Dropout(dropout)
        self.encoder = nn.Embedding(ntoken, ninp)
        self.rnn = nn.GRU(ninp, nhid, nlayers, dropout=dropout)
        self.decoder = nn.Linear(nhid, ntoken)
        nn.init.uniform_(self.encoder.weight, -0.1, 0.1)
        nn.init.zeros_(self.decoder.bias)
        nn.init.uniform_(self.decoder.weight, -0.1, 0.1)

    def forward(self, input, hidden):
        output, hidden = self.rnn(self.drop(self.encoder(input)), hidden)
        return self.decoder(self.drop(output)), hidden


def wlm(config, half=False):
    batch, bptt = arg(config, "batch_size", 128 if half else 64), arg(config, "bptt", 35)
    emsize, nhid, nlayers = arg(config, "emsize", 656), arg(config, "nhid", 656), arg(config, "nlayers", 2)
    dropout, lr, clip = arg(config, "dropout", 0.5), arg(config, "lr", 20.0), arg(config, "clip", 0.25)
    vocab, tokens = arg(config, "vocab", 33278), arg(config, "corpus_tokens", 2088628)
    corpus = torch.multinomial(1.0 / torch.arange(1, vocab + 1, dtype=torch.float), tokens, replacement=True)
    rows = corpus.size(0) // batch
    source = corpus.narrow(0, 0, rows * batch).view(batch, -1).t().contiguous()
    # mlb pads the half model's vocabulary to a multiple of 8 (tensor cores).
    ntokens = (vocab + 7) // 8 * 8 if half else vocab
    model = RNNModel(ntokens, emsize, nhid, nlayers, dropout).train()
    criterion = nn.CrossEntropyLoss()
    hidden = torch.zeros(nlayers, batch, nhid)
    if half:
        model.half()
        hidden = hidden.half()
        master = MasterWeights(model, lr, config, 128)
    state = {"i": 0, "hidden": hidden}

    def step():
        i = state["i"]
        if i + bptt + 1 > source.size(0):
            i = 0
        data, target = source[i:i + bptt], source[i + 1:i + 1 + bptt].reshape(-1)
        state["i"] = i + bptt
        model.zero_grad()
        output, hidden = model(data, state["hidden"].detach())
        state["hidden"] = hidden
        loss = criterion(output.view(-1, ntokens).float(), target)
        if half:
            grads = master.backward(loss)
            clip_(grads, clip)
            master.sgd_step(grads)
        else:
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
            for p in model.parameters():
                p.data.add_(p.grad, alpha=-lr)
        return batch, loss.item()

    return step


def wlmfp16(config):
    return wlm(config, half=True)


WORKLOADS = {"toy_reg": toy_reg, "toy_lstm": toy_lstm, "vae": vae, "convnet": convnet, "convnet_fp16": convnet_fp16,
             "convnet_ddp": convnet_ddp, "dcgan": dcgan, "wlm": wlm, "wlmfp16": wlmfp16}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("workload", choices=sorted(WORKLOADS))
    parser.add_argument("--config", default="{}", help="workload arguments, as mlb's --config")
    parser.add_argument("--threads", type=int, required=True)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeat", type=int, required=True)
    parser.add_argument("--number", type=int, required=True)
    parser.add_argument("--skip", type=int, required=True)
    parser.add_argument("--device", default="cpu", help="cpu or cuda:N")
    args = parser.parse_args()
    if args.repeat <= args.skip:
        parser.error("repeat must be greater than skip")

    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    step = build_on(args.device, WORKLOADS[args.workload], json.loads(args.config))
    print(json.dumps(dict(workload=args.workload, **measure(step, args.repeat, args.number, args.skip))))


def build_on(device, build, *args):
    """`build(*args)` with the tensors it makes on `device` (cuDNN's
    autotuner on for a GPU); the step it returns runs outside the
    `torch.device` mode."""
    device = torch.device(device)
    if device.type == "cuda":
        torch.backends.cudnn.benchmark = True
    with device:
        return build(*args)


def measure(step, repeat, number, skip):
    """Times `step` as mlb's worker does: `repeat` observations of `number`
    steps, the first `skip` left out; items per observation / mean time."""
    times, items, loss = [], 0, math.nan
    for observation in range(repeat):
        start = time.perf_counter()
        block_items = 0
        for _ in range(number):
            n, loss = step()
            block_items += n
        elapsed = time.perf_counter() - start
        if observation >= skip:
            times.append(elapsed)
            items = block_items
    mean = sum(times) / len(times)
    return {"items_per_sec": items / mean, "items": items, "mean_s": mean, "loss": loss}


if __name__ == "__main__":
    main()
