#!/usr/bin/env python3
"""PyTorch (Python) reference of mlb's libtorch workloads, for the parity benchmark.

Each workload is the original suite's model with the same sizes, optimizer,
seed, thread count and step count as the mlb plugin it is compared with
(see docs/workloads.md). Timing follows mlb's worker: `repeat` observations of
`number` steps, the first `skip` excluded; throughput = items per observation /
mean observation time.

    reference.py WORKLOAD --config '{"batch_size": 256, ...}' --threads 1 --seed 0 \
        --repeat 20 --number 100 --skip 5

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
        x = torch.randn(batch, 1)
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
        h_t = torch.zeros(input.size(0), 51, dtype=input.dtype)
        c_t = torch.zeros(input.size(0), 51, dtype=input.dtype)
        h_t2 = torch.zeros(input.size(0), 51, dtype=input.dtype)
        c_t2 = torch.zeros(input.size(0), 51, dtype=input.dtype)
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
        index = torch.randint(images.size(0), (batch,))
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


# ---------------------------------------------------------------- convnet
class BasicBlock(nn.Module):
    def __init__(self, c_in, c_out, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(c_in, c_out, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(c_out)
        self.conv2 = nn.Conv2d(c_out, c_out, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(c_out)
        self.downsample = nn.Sequential()
        if stride != 1 or c_in != c_out:
            self.downsample = nn.Sequential(nn.Conv2d(c_in, c_out, 1, stride, bias=False), nn.BatchNorm2d(c_out))

    def forward(self, x):
        y = self.bn2(self.conv2(F.relu(self.bn1(self.conv1(x)))))
        return F.relu(self.downsample(x) + y)


class ResNet18(nn.Module):
    """ResNet-18 as torchvision (and tch's vision::resnet) define it."""

    def __init__(self, classes):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 64, 7, 2, 3, bias=False)
        self.bn1 = nn.BatchNorm2d(64)
        layers, c_in = [], 64
        for c_out, stride in [(64, 1), (128, 2), (256, 2), (512, 2)]:
            layers += [BasicBlock(c_in, c_out, stride), BasicBlock(c_out, c_out, 1)]
            c_in = c_out
        self.layers = nn.Sequential(*layers)
        self.fc = nn.Linear(512, classes)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.bn1(self.conv1(x))), 3, 2, 1)
        x = F.adaptive_avg_pool2d(self.layers(x), 1).flatten(1)
        return self.fc(x)


def convnet(config):
    if config.get("arch", "resnet18") != "resnet18":
        raise SystemExit("the reference implements resnet18 only")
    batch, lr = arg(config, "batch_size", 64), arg(config, "lr", 0.1)
    classes, size = arg(config, "classes", 1000), arg(config, "image_size", 224)
    model = ResNet18(classes).train()
    opt = torch.optim.SGD(model.parameters(), lr=lr)
    images = torch.randn(batch, 3, size, size)
    labels = torch.randint(0, classes, (batch,))

    def step():
        loss = F.cross_entropy(model(images), labels)
        opt.zero_grad()
        loss.backward()
        opt.step()
        return batch, loss.item()

    step.model, step.data = model, (images, labels)
    return step


def convnet_ddp(config):
    """convnet as one rank of a DistributedDataParallel group (Gloo), the
    group read from torchrun's variables: each rank its own batch."""
    import torch.distributed as dist

    dist.init_process_group("gloo")
    step_of = convnet(config)
    model = step_of.model
    ddp = nn.parallel.DistributedDataParallel(model, bucket_cap_mb=25)
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
        noise = torch.randn(batch, nz, 1, 1)
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


def wlm(config):
    batch, bptt = arg(config, "batch_size", 64), arg(config, "bptt", 35)
    emsize, nhid, nlayers = arg(config, "emsize", 656), arg(config, "nhid", 656), arg(config, "nlayers", 2)
    dropout, lr, clip = arg(config, "dropout", 0.5), arg(config, "lr", 20.0), arg(config, "clip", 0.25)
    vocab, tokens = arg(config, "vocab", 33278), arg(config, "corpus_tokens", 2088628)
    corpus = torch.multinomial(1.0 / torch.arange(1, vocab + 1, dtype=torch.float), tokens, replacement=True)
    rows = corpus.size(0) // batch
    source = corpus.narrow(0, 0, rows * batch).view(batch, -1).t().contiguous()
    model = RNNModel(vocab, emsize, nhid, nlayers, dropout).train()
    criterion = nn.CrossEntropyLoss()
    hidden = torch.zeros(nlayers, batch, nhid)
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
        loss = criterion(output.view(-1, vocab), target)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
        for p in model.parameters():
            p.data.add_(p.grad, alpha=-lr)
        return batch, loss.item()

    return step


WORKLOADS = {"toy_reg": toy_reg, "toy_lstm": toy_lstm, "vae": vae, "convnet": convnet, "convnet_ddp": convnet_ddp,
             "dcgan": dcgan, "wlm": wlm}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("workload", choices=sorted(WORKLOADS))
    parser.add_argument("--config", default="{}", help="workload arguments, as mlb's --config")
    parser.add_argument("--threads", type=int, required=True)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeat", type=int, required=True)
    parser.add_argument("--number", type=int, required=True)
    parser.add_argument("--skip", type=int, required=True)
    args = parser.parse_args()
    if args.repeat <= args.skip:
        parser.error("repeat must be greater than skip")

    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    step = WORKLOADS[args.workload](json.loads(args.config))
    print(json.dumps(dict(workload=args.workload, **measure(step, args.repeat, args.number, args.skip))))


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
