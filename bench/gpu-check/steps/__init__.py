"""The steps of the GPU check, one module each, in the order of their
value (docs/gpu-check.md); each module's `STEP` is its `runner.Step`."""
