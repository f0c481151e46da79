#!/usr/bin/env python3
"""The loader workload in PyTorch: torchvision's ImageFolder (PIL decoding),
RandomResizedCrop, RandomHorizontalFlip, ToTensor, Normalize, through a
DataLoader with `workers` processes; timed as `mlb worker` times the plugin
(observations of `number` batches, the first `skip` excluded; items of an
observation / mean observation time). Prints one JSON line."""
import argparse
import json
import time

import torch
from torch.utils.data import DataLoader
from torchvision import datasets, transforms


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("data")
    p.add_argument("--batch-size", type=int, default=256)
    p.add_argument("--workers", type=int, default=8)
    p.add_argument("--image-size", type=int, default=224)
    p.add_argument("--repeat", type=int, default=15)
    p.add_argument("--number", type=int, default=5)
    p.add_argument("--skip", type=int, default=2)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args()
    torch.set_num_threads(a.threads)
    torch.manual_seed(a.seed)
    normalize = transforms.Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225])
    pipeline = transforms.Compose([transforms.RandomResizedCrop(a.image_size), transforms.RandomHorizontalFlip(),
                                   transforms.ToTensor(), normalize])
    loader = DataLoader(datasets.ImageFolder(a.data, pipeline), batch_size=a.batch_size, shuffle=True,
                        num_workers=a.workers, drop_last=True, persistent_workers=a.workers > 0)

    def batches():
        while True:
            yield from loader

    it = batches()
    observations = []
    for _ in range(a.repeat):
        start, items = time.perf_counter(), 0
        for _ in range(a.number):
            images, _labels = next(it)
            items += images.shape[0]
        observations.append((time.perf_counter() - start, items))
    timed = observations[a.skip:]
    seconds = sum(t for t, _ in timed) / len(timed)
    items = sum(n for _, n in timed) / len(timed)
    print(json.dumps({"items_per_sec": items / seconds}))


if __name__ == "__main__":
    main()
