"""The steps of the GPU check and the time they may take.

A step is a function that measures something and records its figures. Each
runs in a child process of its own (a fork, in a process group of its own,
its output into its log), so that a step that overruns its time, hangs on a
GPU or dies takes nothing else with it: at its limit the whole group is
interrupted, then killed, and the step keeps the figures it had recorded.

The time: the whole run has a budget, and each step a budget of its own.
A step starts only while at least `min_start_s` of the run's budget is
left, and may take its own budget or what is left of the run's, whichever
is less; past that it is stopped and fails. A step that does not start for
want of time is recorded `not run: time`, and the steps after it are still
tried (a shorter one may fit). A step that needs a GPU on a host without
one is recorded `skipped: no GPU`, without using any time.
"""
import json
import os
import signal
import time
import traceback

OK = "ok"
FAILED = "failed"
NO_GPU = "skipped: no GPU"
NO_TIME = "not run: time"

# Seconds a step's process group has to end after SIGINT (mlb stops its
# instances on it) before it is killed.
GRACE_S = 10


class Failed(Exception):
    """A step's finding that fails it (the message says what failed); the
    check goes on with the next step."""


class Step:
    """One step: `name`, what it checks (`title`), its budget in seconds
    per mode ({"gpu": s, "cpu": s}; a step that needs a GPU has none for
    the CPU), whether it needs a GPU, and `run(context, figures)`."""

    def __init__(self, name, title, budget_s, run, gpu_only=False):
        self.name, self.title, self.budget_s, self.run, self.gpu_only = name, title, budget_s, run, gpu_only


class Figures:
    """A step's figures, saved to `path` at every change (a step stopped
    at its limit keeps what it had measured). `set` records one value,
    `row` appends a row (a dict) to a table."""

    def __init__(self, path):
        self.path, self.values = path, {}

    def set(self, key, value):
        self.values[key] = value
        self._save()

    def row(self, table, row):
        self.values.setdefault(table, []).append(row)
        self._save()

    def _save(self):
        with open(self.path + ".tmp", "w") as f:
            json.dump(self.values, f)
        os.replace(self.path + ".tmp", self.path)


def run_steps(steps, context, mode, total_s, work, on_result=lambda results: None, min_start_s=5.0):
    """Runs `steps` in order in `mode` ("gpu" or "cpu"; `context.gpu` says
    whether there is one) within `total_s` seconds; each step's files
    (figures, error, log) go under `work`. Returns one entry per step
    (name, title, status, seconds, budget_s, figures, and error when it
    failed); `on_result` gets the entries so far after each step."""
    start = time.monotonic()
    results = []
    for step in steps:
        budget = step.budget_s.get(mode, 0)
        left = total_s - (time.monotonic() - start)
        entry = {"name": step.name, "title": step.title, "status": None, "seconds": 0.0, "budget_s": budget,
                 "figures": {}}
        if step.gpu_only and not context.gpu:
            entry["status"] = NO_GPU
        elif left < min_start_s:
            entry["status"] = NO_TIME
        else:
            entry.update(_run_one(step, context, min(budget, left), os.path.join(work, step.name)))
        results.append(entry)
        on_result(results)
    return results


def _run_one(step, context, limit_s, base):
    """Runs `step` in a child process for at most `limit_s` seconds: its
    status, seconds, figures and error."""
    paths = {kind: f"{base}.{kind}" for kind in ("figures", "error", "log")}
    for path in paths.values():
        if os.path.exists(path):
            os.remove(path)
    start = time.monotonic()
    pid = os.fork()
    if pid == 0:
        _child(step, context, paths)
    try:
        os.setpgid(pid, pid)
    except OSError:  # the child set it first, or has already ended
        pass
    try:
        status = _wait(pid, start + limit_s)
    except KeyboardInterrupt:  # the step's group is not the terminal's: end it too
        _signal_group(pid, signal.SIGKILL)
        raise
    _signal_group(pid, signal.SIGKILL)  # what the step started and left behind
    seconds = round(time.monotonic() - start, 1)
    figures = _read_json(paths["figures"], {})
    if status is None:
        return {"status": FAILED, "seconds": seconds, "figures": figures,
                "error": f"stopped at its limit of {limit_s:.0f} s (its budget or the run's time left)"}
    if status == 0:
        return {"status": OK, "seconds": seconds, "figures": figures}
    error = _read_text(paths["error"]) or f"its process ended with status {status}"
    return {"status": FAILED, "seconds": seconds, "figures": figures, "error": error}


def _child(step, context, paths):
    """The step's process: never returns."""
    code = 1
    try:
        # A check started in the background (nohup, `&`, some CI runners)
        # inherits SIGINT ignored, and so would the step and every program
        # it starts: the interrupt at its limit must reach them.
        signal.signal(signal.SIGINT, signal.default_int_handler)
        os.setpgid(0, 0)
        log = os.open(paths["log"], os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        os.dup2(log, 1)
        os.dup2(log, 2)
        step.run(context, Figures(paths["figures"]))
        code = 0
    except Failed as e:
        _write(paths["error"], str(e))
    except (Exception, SystemExit) as e:  # SystemExit: the parity harness exits naming a failed command
        traceback.print_exc()
        _write(paths["error"], f"{type(e).__name__}: {e}".strip())
    finally:
        os._exit(code)


def _wait(pid, deadline):
    """The child's exit status, or None when it passed `deadline` (its
    process group then interrupted, and killed after GRACE_S)."""
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status)
        time.sleep(0.05)
    _signal_group(pid, signal.SIGINT)
    end = time.monotonic() + GRACE_S
    while time.monotonic() < end:
        if os.waitpid(pid, os.WNOHANG)[0]:
            break
        time.sleep(0.05)
    else:
        _signal_group(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    return None


def _signal_group(pgid, sig):
    try:
        os.killpg(pgid, sig)
    except ProcessLookupError:
        pass


def _write(path, text):
    with open(path, "w") as f:
        f.write(text)


def _read_text(path):
    try:
        with open(path) as f:
            return f.read().strip()
    except FileNotFoundError:
        return ""


def _read_json(path, default):
    try:
        with open(path) as f:
            return json.load(f)
    except FileNotFoundError:
        return default
