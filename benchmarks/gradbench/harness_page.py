"""The harness's JSON log (harness_suite.py) as a section of docs/gradbench.md.

    python benchmarks/gradbench/harness_page.py [harness.json ...] [docs/gradbench.md]

Guarantees: the section sits between two markers and only it is replaced (run.py's tables
around it stay); every number on it is read from the log: validity as the eval programs judged
it, each message's fastest timed run, time to first derivative, load averages.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

START = "<!-- generated: gradbench harness (benchmarks/gradbench/harness_page.py) -->"
END = "<!-- end: gradbench harness -->"
# the run at GradBench's own default sizes (`harness_suite.py --sizes default`) has a section
# of its own, so that the bounded run of `make gradbench` does not replace it
DEFAULT_START = "<!-- generated: gradbench harness, default sizes (harness_page.py) -->"
DEFAULT_END = "<!-- end: gradbench harness, default sizes -->"
# a dated note written by hand about harness runs that did not regenerate a section (the
# sections are replaced whole): run.py keeps it, as it keeps the sections
NOTE_START = "<!-- hand note: gradbench harness (kept by run.py) -->"
NOTE_END = "<!-- end: hand note, gradbench harness -->"


def markers(sizes: str) -> tuple[str, str]:
    """The (start, end) markers of the page section of a run at `sizes`."""
    return (DEFAULT_START, DEFAULT_END) if sizes == "default" else (START, END)
DERIVATIVE_TOOLS = ("srcad-numba", "srcad-python", "jax")


def fmt_ns(ns) -> str:
    if ns is None:
        return "-"
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if ns >= scale:
            return f"{ns / scale:.3g} {unit}"
    return f"{ns:.0f} ns"


def evaluations(run) -> list[dict]:
    return [m for m in run["messages"] if m["kind"] == "evaluate"]


def first_derivative(run) -> dict | None:
    """The first evaluate message of a derivative (every function but the eval's primal)."""
    return next((m for m in evaluations(run) if m.get("function") != run.get("primal")), None)


def fastest(message) -> int | None:
    timing = (message.get("timings") or {}).get("evaluate")
    return timing["min_ns"] if timing and message.get("success") else None


def verdict(run) -> str:
    judged = evaluations(run)
    valid = sum(1 for m in judged if m.get("valid") is True)
    return f"{valid}/{len(judged)}"


def summary(log) -> list[str]:
    lines = ["| eval | tool | outcome | valid | time to first derivative (prepare) | "
             "wall time | load before / after |", "|---|---|---|---|---|---|---|"]
    for run in log["runs"]:
        first = first_derivative(run)
        ttfd = "-"
        if first is not None and "response_ns" in first:
            prepare = (first.get("timings") or {}).get("prepare")
            ttfd = fmt_ns(first["response_ns"]) + (f" ({fmt_ns(prepare['min_ns'])})"
                                                   if prepare else "")
        outcome = run["outcome"] if run["outcome"] == "success" else f"**{run['outcome']}**"
        load = f"{run['load_before'][0]:.1f} / {run['load_after'][0]:.1f}"
        lines.append(f"| {run['eval']} | {run['tool']} | {outcome} | {verdict(run)} | {ttfd} "
                     f"| {fmt_ns(run['wall_ns'])} | {load} |")
    return lines


def per_message(log, name: str) -> list[str]:
    runs = {run["tool"]: run for run in log["runs"] if run["eval"] == name}
    tools = [tool for tool in DERIVATIVE_TOOLS if tool in runs]
    rows: dict[tuple, dict] = {}
    for tool in tools:
        for message in evaluations(runs[tool]):
            key = (message.get("function"), message.get("description", ""))
            rows.setdefault(key, {})[tool] = message
    ratio = "srcad-numba" in tools and "jax" in tools
    header = "| function | input | " + " | ".join(tools) + (" | numba / jax |" if ratio else " |")
    lines = [header, "|" + "---|" * (2 + len(tools) + ratio)]
    for (function, description), cells in rows.items():
        shown = []
        for tool in tools:
            message = cells.get(tool)
            if message is None:
                shown.append("-")
            elif not message.get("success"):
                shown.append("**failed**")
            else:
                mark = "" if message.get("valid") is True else " **invalid**"
                shown.append(fmt_ns(fastest(message)) + mark)
        row = f"| {function} | {description} | " + " | ".join(shown) + " |"
        if ratio:
            numba, jax = (fastest(cells[t]) if t in cells else None
                          for t in ("srcad-numba", "jax"))
            row += f" {numba / jax:.3g}x |" if numba and jax else " - |"
        lines.append(row)
    return lines


def problems(log) -> list[str]:
    lines = []
    for run in log["runs"]:
        if run["problem"]:
            lines.append(f"- {run['eval']} on {run['tool']}: {run['problem']}")
        for message in run["messages"]:
            error = message.get("error") or message.get("analysis_error")
            if error:
                last = error.strip().splitlines()[-1][:200]
                lines.append(f"- {run['eval']} on {run['tool']}, {message['kind']} "
                             f"{message.get('function', '')} {message.get('description', '')}: "
                             f"`{last}`")
    return lines


def render(log) -> str:
    machine = log["machine"]
    names = list(dict.fromkeys(run["eval"] for run in log["runs"]))
    args = {run["eval"]: " ".join(run["args"]) or "(its defaults)" for run in log["runs"]}
    start, end = markers(log["sizes"])
    title = " at its default sizes" if log["sizes"] == "default" else ""
    lines = [
        start, "", f"## Judged by GradBench's own harness{title}", "",
        "GradBench's own eval programs (vendored unchanged in `third_party/gradbench`, see its "
        "README) drive `python -m srcad.gradbench` over the protocol and judge every output "
        "themselves, most against GradBench's C++ reference tool (`tools/manual`, built with "
        "g++); `benchmarks/gradbench/harness_run.py` connects them as GradBench's CLI does "
        "(each message to the tool, each response back, the eval's analyses too) and records "
        "every message. GradBench's JAX tool runs in the same run on the evals it has. "
        "Generated by `make gradbench` (`benchmarks/gradbench/harness_suite.py`, then "
        "`harness_page.py`); do not edit by hand.",
        "",
        _runs_of(log) + f", {machine['cpus']} CPUs, "
        f"Python {machine['python']}; sizes: {log['sizes']}; a tool has "
        f"{log['timeout_s']:.0f} s to answer one message. Each time below is the fastest "
        "timed run of that message as the tool reported it (GradBench's `evaluate` timings); "
        "the time to first derivative is the wall time from the first derivative message to "
        "its answer (srcad's parse, transform, compilation and first run, or JAX's tracing "
        "and jit), with srcad's own `prepare` timing in brackets; srcad's numba backend keeps "
        "its compiled code on disk between processes, so after an earlier run these are "
        "warm-cache times (clear the cache for cold ones). The load averages (1 "
        "minute) show how busy the machine was: times are comparable within a row. "
        "GradBench's JAX tool times a jitted call without waiting for its result (JAX "
        "dispatches asynchronously and the tool reads the output after its timer stops): it "
        "runs here unchanged but launched by `jax_tool_waiting.py`, which wraps each timed "
        "call in `jax.block_until_ready`. Its first run includes the jit compilation, so on "
        "the evals it has the eval programs are asked for at least three runs, and the "
        "fastest is shown." + (f" {log['jax_threads']} (`jax_one_thread.py`)."
                                if "jax_threads" in log else ""),
        "",
        *reassociated(log), *summary(log), "",
    ]
    for name in names:
        note = log.get("notes", {}).get(name)
        lines += [f"### {name}", "", f"Arguments of the eval program: `{args[name]}`"
                  + (f" ({note})." if note else "."), "", *per_message(log, name), ""]
    found = problems(log)
    if found:
        lines += ["### Failures and rejections", "", *found, ""]
    for skip in log.get("skipped", []):
        lines += [f"- {skip['eval']}: not run: {skip['reason']}"]
    lines += ["", end]
    return "\n".join(lines) + "\n"


def reassociated(log) -> list:
    """The sentence naming the conversations where srcad's tool reassociated its sums
    (`--reassociate`), and what that means; none where no conversation did."""
    names = [f"{run['eval']} on {run['tool']}" for run in log["runs"]
             if "--reassociate" in run.get("tool_command", ())]
    if not names:
        return []
    return ["srcad's numba tool ran with `--reassociate` (" + ", ".join(names) + "): its "
            "compiled code may reassociate sums (`SRCAD_NUMBA_REASSOCIATE=1`, "
            "docs/speed_with_numba.md), splitting a running sum into partial sums as XLA "
            "does for the JAX tool, so its results may differ from the in-order ones in the "
            "last bits; srcad's default adds in the order the code writes.", ""]


def _runs_of(log) -> str:
    """When and at which commit the conversations on the page ran: one run, or each of the
    runs a merged log was assembled from (`merge`) with its conversations."""
    sources = log.get("sources") or []
    if len(sources) <= 1:
        machine = log["machine"]
        return f"Run of {machine['date']} at commit {machine['commit']}"
    return f"Assembled from {len(sources)} runs (" + "; ".join(
        f"{source['date']} at commit {source['commit']}: "
        + ", ".join(source["conversations"]) for source in sources) + ")"


def write_section(path, section: str, start: str = START, end: str = END) -> None:
    """Replace the harness section of the page at `path` (append it if absent); `start`,
    `end`: the markers of another generated section."""
    page = Path(path)
    text = page.read_text() if page.exists() else ""
    if section.startswith(DEFAULT_START):
        start, end = DEFAULT_START, DEFAULT_END
    if start in text and end in text:
        before, rest = text.split(start, 1)
        after = rest.split(end, 1)[1].lstrip("\n")
        text = before + section + ("\n" + after if after else "")
    else:
        text = text.rstrip("\n") + "\n\n" + section
    page.write_text(text)


def kept_section(path, start: str | None = None, end: str | None = None) -> str:
    """The section of the page at `path` between `start` and `end`, or by default the
    harness sections (a hand note, bounded and default sizes), or "" (run.py keeps them
    when it rewrites)."""
    page = Path(path)
    text = page.read_text() if page.exists() else ""
    pairs = ((NOTE_START, NOTE_END), (START, END), (DEFAULT_START, DEFAULT_END)) \
        if start is None else ((start, end),)
    kept = []
    for first, last in pairs:
        if first in text and last in text:
            kept.append(first + text.split(first, 1)[1].split(last, 1)[0] + last + "\n")
    return "\n".join(kept)


def merge(logs: list[dict]) -> dict:
    """One log of several runs at the same sizes (run side by side, for example one process
    for ht and ba beside the rest): the first log's machine and settings, every conversation
    in order, a later log's conversation replacing an earlier one of the same eval and tool,
    and as `sources` each log's machine (date, commit) with the conversations kept from it."""
    if len({log["sizes"] for log in logs}) != 1:
        raise ValueError("the logs were run at different sizes")
    merged = dict(logs[0], skipped=[], notes={})
    kept: list = []  # (conversation, index of its log)
    for k, log in enumerate(logs):
        replaced = {(run["eval"], run["tool"]) for run in log["runs"]}
        kept = [(run, i) for run, i in kept if (run["eval"], run["tool"]) not in replaced] \
            + [(run, k) for run in log["runs"]]
        merged["skipped"] += log.get("skipped", [])
        merged["notes"].update(log.get("notes", {}))
    merged["runs"] = [run for run, _ in kept]
    merged["sources"] = [dict(log["machine"], conversations=[
        f"{run['eval']} on {run['tool']}" for run, i in kept if i == k])
        for k, log in enumerate(logs) if any(i == k for _, i in kept)]
    return merged


if __name__ == "__main__":
    # harness_page.py [LOG ...] [PAGE.md]: several logs are merged (`merge`)
    paths = [a for a in sys.argv[1:] if not a.endswith(".md")] or ["build/gradbench/harness.json"]
    pages = [a for a in sys.argv[1:] if a.endswith(".md")] or ["docs/gradbench.md"]
    log = merge([json.loads(Path(path).read_text()) for path in paths])
    write_section(pages[0], render(log))
