"""`gpu-check.md`: the check's JSON as Markdown tables a person pastes into
a closing note. First the run (device, versions, time) and one row per
step (status, seconds, budget, error), then a section per step that
recorded figures: its single values as one table, and each of its tables
(a list of rows) as a table of its own."""
import json

# Characters of a step's error shown in the summary table (the step's
# section gives all of it).
ERROR_CHARS = 160


def markdown(check):
    """The Markdown of `check` (the document gpu-check.json holds)."""
    lines = [f"# mlb GPU check: {check['device']}", ""]
    lines += [f"{check['mode']} mode, {check['mlb']}, PyTorch {check['torch']}; {check['seconds']:.0f} s of a "
              f"{check['budget_s']:.0f} s budget; started {check['started']}", ""]
    lines += table(["step", "status", "seconds", "budget s", "error"],
                   [[s["name"], s["status"], s["seconds"], s["budget_s"], short(s.get("error", ""))]
                    for s in check["steps"]])
    for step in check["steps"]:
        if not step["figures"] and not step.get("error"):
            continue
        lines += ["", f"## {step['title']} ({step['name']}: {step['status']})", ""]
        if step.get("error"):
            lines += ["```", step["error"], "```", ""]
        values = {k: v for k, v in step["figures"].items() if not is_table(v)}
        if values:
            lines += table(["figure", "value"], [[k, v] for k, v in values.items()]) + [""]
        for name, rows in step["figures"].items():
            if is_table(rows):
                columns = list(dict.fromkeys(k for row in rows for k in row))
                lines += [f"{name}:", ""] + table(columns, [[row.get(c, "") for c in columns] for row in rows]) + [""]
    return "\n".join(lines).rstrip() + "\n"


def is_table(value):
    return isinstance(value, list) and value and all(isinstance(row, dict) for row in value)


def table(columns, rows):
    """A Markdown table; columns of numbers right-aligned."""
    def number(value):
        return isinstance(value, (int, float)) and not isinstance(value, bool)

    numeric = [any(number(r[i]) for r in rows) and all(number(r[i]) for r in rows if r[i] not in ("", None))
               for i in range(len(columns))]
    out = ["| " + " | ".join(columns) + " |", "|" + "|".join("---:" if n else "---" for n in numeric) + "|"]
    out += ["| " + " | ".join(cell(v) for v in row) + " |" for row in rows]
    return out


def cell(value):
    """A value as a table cell: numbers to a sensible precision, lists
    joined, objects as JSON, nothing as `-`, on one line."""
    if value is None:
        text = "-"
    elif isinstance(value, bool):
        text = json.dumps(value)
    elif isinstance(value, int):
        text = f"{value:,}"
    elif isinstance(value, float):
        text = f"{value:,.1f}" if abs(value) >= 100 else f"{value:.3g}"
    elif isinstance(value, list):
        text = ", ".join(str(v) for v in value) or "none"
    elif isinstance(value, dict):
        text = json.dumps(value)
    else:
        text = str(value)
    return text.replace("|", "\\|").replace("\n", " ")


def short(text):
    first = text.splitlines()[0] if text else ""
    return first if len(first) <= ERROR_CHARS else first[: ERROR_CHARS - 1] + "…"
