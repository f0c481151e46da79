"""The original suite's report tool (its last version's steps, pandas for
the tables), for timing `mlb report` against it on the same files.

It follows what `tests/it/report_compat.rs` transcribes: the two globs
(`DIR/*/JOBS[_.]*.json`, then `DIR/JOBS[_.]*.json`), `json.loads` of each
file (an unclosed appended array closed), entries grouped by name less the
multi-GPU benches, the failure and NaN checks (with the list-removal skip),
the per-bench table against a target table, the score and the per-GPU
tables of mean, min and max relative to the best GPU.

    python3 original_report.py DIR TARGETS.csv [JOBS]

Prints the per-bench table and the score (the bench times the whole
process, interpreter start and imports included, as it times `mlb report`).
"""

import glob
import json
import math
import os
import sys

import pandas as pd

EXCLUDED = ("convnet_distributed", "convnet_distributed_fp16", "dcgan_all")


def read_results(path):
    with open(path) as f:
        text = f.read().strip()
    if text.startswith("[") and text.endswith(","):
        return json.loads(text[:-1] + "]")
    return [json.loads(text)]


def extract_reports(folder, jobs):
    reports = {}
    files = glob.glob(os.path.join(folder, "*", jobs + "[_.]*.json"))
    files += glob.glob(os.path.join(folder, jobs + "[_.]*.json"))
    for path in files:
        for entry in read_results(path):
            name = entry["name"]
            if name in EXCLUDED:
                continue
            reports.setdefault(name, []).append(entry)
    return reports


def report_failures(reports):
    failures = 0
    for name, entries in reports.items():
        for entry in list(entries):
            if not entry.get("completed", True):
                entries.remove(entry)
                failures += 1
    return failures


def report_nans(reports):
    failures = 0
    for entries in reports.values():
        for entry in entries:
            if any(math.isnan(x) for x in entry.get("batch_loss", [])):
                entries.remove(entry)
                failures += 1
    return failures


def report_global(reports, targets):
    rows = []
    for name in sorted((n for n in reports if n is not None)):
        values = pd.Series([e.get("train_item", {}).get("avg", float("nan")) for e in reports[name]], dtype=float)
        rows.append({"bench": name, "n": len(values), "mean": values.mean(), "sd": values.std()})
    df = pd.DataFrame(rows).set_index("bench")
    df = df.join(targets, how="left")
    df["perf"] = df["mean"] / df["target"]
    df["sd%"] = df["sd"] / df["mean"]
    df["perf_pass"] = df["perf"] >= df["perf_target"]
    df["sd%_pass"] = df["sd%"] <= df["sd_target"]
    return df


def report_pergpu(reports, measure):
    results = {}
    for name, entries in reports.items():
        for e in entries:
            devices = [int(d) for d in str(e["vcd"]).split(",")]
            if len(devices) == 1:
                results.setdefault(str(name), {}).setdefault(devices[0], []).append(
                    e.get("train_item", {}).get("avg", float("nan"))
                )
    table = {}
    for name, by_device in results.items():
        values = pd.Series({d: getattr(pd.Series(v, dtype=float), measure)() for d, v in by_device.items()})
        table[name] = values / values.max()
    return pd.DataFrame(table).T


def main():
    folder, targets_file = sys.argv[1], sys.argv[2]
    jobs = sys.argv[3] if len(sys.argv) > 3 else "baselines"
    targets = pd.read_csv(targets_file).set_index("bench")
    reports = extract_reports(folder, jobs)
    nreports = sum(len(v) for v in reports.values())
    nfailures = report_failures(reports) + report_nans(reports)
    df = report_global(reports, targets)
    bf = nfailures / nreports <= 0.01
    pm = df["perf_pass"].sum() / len(df)
    st = df["sd%_pass"].sum() / len(df)
    perf = df.loc[df.index != "scaling", "perf"].dropna()
    pg = perf.prod() ** (1 / perf.count()) if perf.count() else 1.0
    grade = int(bf) * (2 * pm + st + 5 * pg)
    for measure in ("mean", "min", "max"):
        report_pergpu(reports, measure)
    print(df.to_string())
    print(f"results {nreports} failures {nfailures} BF {int(bf)} PM {pm:.4f} ST {st:.4f} PG {pg:.4f} score {grade:.4f}")


if __name__ == "__main__":
    main()
