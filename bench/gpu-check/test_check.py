"""Tests of the check's own logic, without mlb or PyTorch: the time rules
and statuses of runner.py, and render.py's tables. CI runs them in the
torch tier (xtask/src/gpu_check.rs): `python3 -m unittest discover -s
bench/gpu-check`."""
import os
import shutil
import tempfile
import time
import unittest

import render
from runner import FAILED, NO_GPU, NO_TIME, OK, Failed, Step, run_steps


class Host:
    """A context without a GPU (the steps here use nothing else of it)."""

    gpu = False


def sleeping(seconds):
    def run(context, figures):
        figures.set("started", True)
        time.sleep(seconds)
        figures.set("finished", True)

    return run


def failing(error):
    def run(context, figures):
        figures.row("rows", {"a": 1})
        raise error

    return run


class Budgets(unittest.TestCase):
    def setUp(self):
        self.work = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.work)

    def run_steps(self, steps, total_s):
        return {r["name"]: r for r in run_steps(steps, Host(), "cpu", total_s, self.work, min_start_s=0.5)}

    def test_with_a_tiny_total_budget_the_later_steps_are_not_run_for_time(self):
        results = self.run_steps([Step("quick", "", {"cpu": 5}, sleeping(0.1)),
                                  Step("long", "", {"cpu": 30}, sleeping(30)),
                                  Step("later", "", {"cpu": 1}, sleeping(0)),
                                  Step("last", "", {"cpu": 1}, sleeping(0))], total_s=2.0)
        self.assertEqual(results["quick"]["status"], OK)
        self.assertEqual(results["quick"]["figures"], {"started": True, "finished": True})
        # The run's time left, not the step's own budget, stopped it.
        self.assertEqual(results["long"]["status"], FAILED)
        self.assertLess(results["long"]["seconds"], 10)
        self.assertEqual(results["long"]["figures"], {"started": True}, "it keeps what it recorded")
        self.assertIn("stopped at its limit", results["long"]["error"])
        for name in ("later", "last"):
            self.assertEqual(results[name]["status"], NO_TIME)
            self.assertEqual(results[name]["seconds"], 0.0)

    def test_a_step_past_its_own_budget_is_stopped_and_the_next_runs(self):
        results = self.run_steps([Step("slow", "", {"cpu": 0.5}, sleeping(30)),
                                  Step("next", "", {"cpu": 5}, sleeping(0))], total_s=60)
        self.assertEqual(results["slow"]["status"], FAILED)
        self.assertLess(results["slow"]["seconds"], 10)
        self.assertEqual(results["next"]["status"], OK)

    def test_a_failing_step_records_its_error_and_figures_and_the_next_runs(self):
        results = self.run_steps([Step("finding", "", {"cpu": 5}, failing(Failed("2 of 3 configs failed"))),
                                  Step("crash", "", {"cpu": 5}, failing(ZeroDivisionError("division by zero"))),
                                  Step("next", "", {"cpu": 5}, sleeping(0))], total_s=60)
        self.assertEqual((results["finding"]["status"], results["finding"]["error"]), (FAILED, "2 of 3 configs failed"))
        self.assertEqual(results["finding"]["figures"], {"rows": [{"a": 1}]})
        self.assertEqual(results["crash"]["error"], "ZeroDivisionError: division by zero")
        with open(os.path.join(self.work, "crash.log")) as log:
            self.assertIn("Traceback", log.read())
        self.assertEqual(results["next"]["status"], OK)

    def test_a_step_that_needs_a_gpu_is_skipped_without_one(self):
        results = self.run_steps([Step("nccl", "", {"gpu": 40}, sleeping(30), gpu_only=True),
                                  Step("next", "", {"cpu": 5}, sleeping(0))], total_s=60)
        self.assertEqual((results["nccl"]["status"], results["nccl"]["seconds"]), (NO_GPU, 0.0))
        self.assertEqual(results["next"]["status"], OK)


class Markdown(unittest.TestCase):
    def test_a_row_per_step_then_the_figures_as_tables(self):
        steps = [
            {"name": "mfu", "title": "MFU of gpt 124m, bf16", "status": OK, "seconds": 20.5, "budget_s": 40,
             "figures": {"MFU": 0.4512, "peak of": "table"}},
            {"name": "parity", "title": "Parity", "status": FAILED, "seconds": 3.0, "budget_s": 180,
             "error": "failed: vae fp32",
             "figures": {"cases": [{"workload": "gpt", "mlb / PyTorch": 1.0234}, {"workload": "vae", "error": "x|y"}]}},
            {"name": "slots", "title": "Slots", "status": NO_TIME, "seconds": 0.0, "budget_s": 20, "figures": {}},
        ]
        check = {"device": "NVIDIA H200", "mode": "gpu", "mlb": "mlb 0.1.0", "torch": "2.11.0 CUDA 13.0",
                 "seconds": 412.3, "budget_s": 450, "started": "2026-11-28T10:00:00+00:00", "steps": steps}
        text = render.markdown(check)
        self.assertIn("| mfu | ok | 20.5 | 40 |  |", text)
        self.assertIn("| parity | failed | 3 | 180 | failed: vae fp32 |", text)
        self.assertIn("| slots | not run: time | 0 | 20 |  |", text)
        self.assertIn("| MFU | 0.451 |", text)
        self.assertIn("| workload | mlb / PyTorch | error |", text)
        self.assertIn("| vae |  | x\\|y |", text)
        self.assertNotIn("## Slots", text, "no section for a step with nothing recorded")


if __name__ == "__main__":
    unittest.main()
