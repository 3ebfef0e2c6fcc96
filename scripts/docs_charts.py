"""Charts of the committed benchmark results, drawn when the site is built.

The benchmark pages (docs/benchmarks.md, written by `make bench`, and docs/gradbench.md, written
by `python benchmarks/gradbench/run.py`) hold the measured times as markdown tables; these
charts read those tables back, so they always show the numbers the page shows:

- benchmarks: the time of each contender's gradient as a ratio to jax.jit(jax.grad) on the same
  problem (the Gaussian-mixture sizes and the array programs), one group of bars per problem;
- GradBench: srcad numba, srcad python and autograd against jax.jit per eval, the target of
  srcad numba (<= 1x JAX) drawn as a line and its misses marked.

    python scripts/docs_charts.py      # writes benchmarks_vs_jax.png, gradbench_vs_jax.png here
"""

from __future__ import annotations

import io
import re
from pathlib import Path

from matplotlib.figure import Figure
from matplotlib.patches import Patch

ROOT = Path(__file__).resolve().parent.parent
UNITS = {"ns": 1e-9, "µs": 1e-6, "us": 1e-6, "ms": 1e-3, "s": 1.0}
# benchmarks.md rows shown, by the start of their name, and the label each gets
BENCHMARK_CONTENDERS = [
    ("srcad reverse, numba backend", "srcad, numba backend", "tab:red"),
    ("srcad reverse, python backend", "srcad, python backend", "salmon"),
    ("autograd", "autograd", "tab:green"),
    ("NumPy hand-written", "NumPy gradient written by hand", "tab:gray"),
]
GRADBENCH_CONTENDERS = [("srcad numba", "tab:red"), ("srcad python", "salmon"),
                        ("autograd", "tab:green")]


def tables(markdown: str):
    """Each markdown table with the heading above it: (heading, header cells, rows of cells)."""
    found, heading, lines = [], "", markdown.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("#"):
            heading = line.lstrip("#").strip()
        if line.startswith("|") and i + 1 < len(lines) and lines[i + 1].startswith("|--"):
            header = _cells(line)
            rows = []
            i += 2
            while i < len(lines) and lines[i].startswith("|"):
                rows.append(_cells(lines[i]))
                i += 1
            found.append((heading, header, rows))
            continue
        i += 1
    return found


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def seconds(cell: str) -> float | None:
    """'21.57 ms' -> 0.02157, '1,223' (microseconds, benchmarks.md) -> 0.001223; '-' -> None."""
    match = re.match(r"^([\d,.]+)\s*(ns|µs|us|ms|s)?\b", cell.replace("**", ""))
    if not match:
        return None
    return float(match.group(1).replace(",", "")) * UNITS[match.group(2) or "us"]


def benchmark_ratios(markdown: str) -> dict[str, dict[str, float]]:
    """problem -> contender label -> median time / jax.jit(jax.grad)'s, from benchmarks.md."""
    ratios = {}
    for heading, header, rows in tables(markdown):
        if "median us" not in header:
            continue
        jax = next((r for r in rows if r[0].startswith("jax.jit")), None)
        if jax is None:
            continue
        problem = heading if heading.startswith("N=") else heading.split(",")[0]
        if heading.startswith("N="):
            problem = f"mixture {heading}"
        reference = seconds(jax[header.index("median us")])
        found = {}
        for prefix, label, _ in BENCHMARK_CONTENDERS:
            row = next((r for r in rows if r[0].startswith(prefix)), None)
            if row is not None:
                found[label] = seconds(row[header.index("median us")]) / reference
        ratios[problem] = found
    return ratios


def gradbench_ratios(markdown: str) -> dict[str, dict[str, float | None]]:
    """eval -> contender -> time / jax.jit's (None: not measured), from gradbench.md's summary."""
    for _, header, rows in tables(markdown):
        if header[:1] == ["eval"] and "jax.jit" in header:
            result = {}
            for row in rows:
                jax = seconds(row[header.index("jax.jit")])
                times = {name: seconds(row[header.index(name)])
                         for name, _ in GRADBENCH_CONTENDERS}
                result[row[0]] = {name: (None if t is None or not jax else t / jax)
                                  for name, t in times.items()}
            return result
    return {}


def _bars(ax, groups: dict[str, dict], contenders) -> None:
    """Grouped horizontal bars of ratios on a log axis, with JAX's 1x drawn as a line."""
    height = 0.8 / len(contenders)
    for k, (label, color) in enumerate(contenders):
        for g, values in enumerate(groups.values()):
            value = values.get(label)
            if value is not None:
                y = g + (k - (len(contenders) - 1) / 2) * height
                ax.barh(y, value, height=height, color=color)
                ax.text(value, y, f" {value:.2f}x" if value < 10 else f" {value:.0f}x",
                        va="center", fontsize=8)
    ax.axvline(1.0, color="black", linewidth=1)
    ax.set_xscale("log")
    low, high = ax.get_xlim()
    ax.set_xlim(low, high * 2.5)  # room for the last label
    ax.set_yticks(range(len(groups)), list(groups))
    ax.invert_yaxis()
    ax.tick_params(axis="y", labelsize=9)


def benchmarks_chart(markdown: str) -> bytes:
    """The benchmarks' ratios to JAX, as a PNG."""
    ratios = benchmark_ratios(markdown)
    contenders = [(label, color) for _, label, color in BENCHMARK_CONTENDERS]
    fig = Figure(figsize=(9.5, 1.0 + 0.9 * len(ratios)), layout="constrained")
    ax = fig.subplots()
    _bars(ax, ratios, contenders)
    ax.set(title="Gradient time as a ratio to jax.jit(jax.grad) (log scale; left of the line "
                 "is faster than JAX)", xlabel="time / JAX's time")
    ax.title.set_fontsize(10)
    handles = [Patch(color=color, label=label) for label, color in contenders]
    ax.legend(handles=handles + [Patch(color="black", label="JAX = 1x")], fontsize=8,
              loc="upper left", bbox_to_anchor=(1.01, 1.0))
    return _png(fig)


def gradbench_chart(markdown: str, target: float = 1.0) -> bytes:
    """GradBench's ratios to JAX per eval, srcad numba's misses of its target marked."""
    ratios = gradbench_ratios(markdown)
    fig = Figure(figsize=(9.5, 1.0 + 0.55 * len(ratios)), layout="constrained")
    ax = fig.subplots()
    _bars(ax, ratios, GRADBENCH_CONTENDERS)
    labels = []
    for name, values in ratios.items():
        numba = values.get("srcad numba")
        missed = numba is not None and numba > target
        labels.append(f"{name}  (miss)" if missed else name)
    ax.set_yticks(range(len(ratios)), labels)
    for tick, name in zip(ax.get_yticklabels(), ratios):
        numba = ratios[name].get("srcad numba")
        if numba is not None and numba > target:
            tick.set_color("tab:red")
            tick.set_fontweight("bold")
    ax.set(title=f"GradBench evals: derivative time / jax.jit's (log scale); target: srcad "
                 f"numba <= {target:g}x, misses in red", xlabel="time / JAX's time")
    ax.title.set_fontsize(10)
    handles = [Patch(color=color, label=name) for name, color in GRADBENCH_CONTENDERS]
    ax.legend(handles=handles + [Patch(color="black", label="JAX = 1x")], fontsize=8,
              loc="upper left", bbox_to_anchor=(1.01, 1.0))
    return _png(fig)


def _png(fig) -> bytes:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=110)
    return buffer.getvalue()


def charts() -> dict[str, bytes]:
    """File name -> PNG of every chart, from the committed pages."""
    docs = ROOT / "docs"
    return {"benchmarks_vs_jax.png": benchmarks_chart((docs / "benchmarks.md").read_text()),
            "gradbench_vs_jax.png": gradbench_chart((docs / "gradbench.md").read_text())}


if __name__ == "__main__":
    for name, png in charts().items():
        Path(name).write_bytes(png)
        print(f"wrote {name}")
