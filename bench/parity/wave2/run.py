#!/usr/bin/env python3
"""Parity benchmark, second wave: recom, cart, fast_style and translator
through `mlb worker` against their PyTorch Python equivalents (reference.py
here), with the first wave's harness (../run.py: same sizes, seed, threads,
steps and CPU set on both sides, runs alternating, medians). Run through
run.sh here, which sets up the environment and builds the plugins.
"""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import run as harness  # noqa: E402  (bench/parity/run.py)

# name, workload arguments, repeat, number, skip
CASES = [
    ("recom", {"batch_size": 2048}, 8, 10, 3),
    ("cart", {}, 10, 1000, 3),
    ("fast_style", {"batch_size": 8, "image_size": 64, "workers": 0}, 6, 2, 2),
    ("translator", {"batch_size": 16, "hidden": 256, "vocab": 4000, "max_length": 30}, 6, 3, 2),
]

FIRST_WAVE_REFERENCE = os.path.join(os.path.dirname(HERE), "reference.py")
SECOND_WAVE_REFERENCE = os.path.join(HERE, "reference.py")


class _SecondWaveReference:
    """`subprocess` as the harness sees it: runs this wave's reference.py
    where the harness names the first wave's."""

    @staticmethod
    def run(cmd, **kwargs):
        same = [os.path.realpath(c) == os.path.realpath(FIRST_WAVE_REFERENCE) if c.endswith(".py") else False for c in cmd]
        return subprocess.run([SECOND_WAVE_REFERENCE if s else c for c, s in zip(cmd, same)], **kwargs)


harness.CASES = CASES
harness.GOALS = {}
harness.subprocess = _SecondWaveReference()

if __name__ == "__main__":
    harness.main()
