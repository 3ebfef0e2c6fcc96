"""The chart of docs/benchmarks.md: the median time of each contender's Gaussian-mixture gradient,
one panel per problem size, coloured srcad / other tools / primal, with a legend.

`make bench` draws it from the run it has just timed (report.chart). It can also be redrawn from
the results the page records, without timing anything again (after a change to the drawing):

    python benchmarks/mixture_chart.py      # reads docs/benchmarks.md, writes docs/benchmarks.png
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SECTION = "1. Gaussian-mixture log-likelihood gradient"  # problem_mixture.S1
COLOURS = [("tab:red", "srcad"), ("tab:blue", "other tools, hand-written"),
           ("tab:gray", "primal, finite differences")]
_TIME = re.compile(r"^([\d,]+(?:\.\d+)?)\b")


def colour(name: str) -> str:
    if name.startswith("srcad"):
        return "tab:red"
    return "tab:gray" if "primal" in name else "tab:blue"


def recorded(markdown: str) -> dict[str, list[tuple[str, float]]]:
    """case -> [(contender, median seconds)] from the page's summary table of the mixture problem
    (`| method | N=500, K=4 | ... |`, cells `1,223 (1.00x)` in microseconds); a contender that was
    skipped or disagreed (no number) is left out."""
    lines = markdown.splitlines()
    start = lines.index(f"## {SECTION}")
    header = next(i for i in range(start, len(lines)) if lines[i].startswith("| method |"))
    cases = [cell.strip() for cell in lines[header].strip("|").split("|")[1:]]
    found: dict[str, list[tuple[str, float]]] = {case: [] for case in cases}
    for line in lines[header + 2:]:
        if not line.startswith("|"):
            break
        name, *cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        for case, cell in zip(cases, cells):
            match = _TIME.match(cell)
            if match:
                found[case].append((name, float(match.group(1).replace(",", "")) * 1e-6))
    return found


def draw(cases: dict[str, list[tuple[str, float]]], path) -> None:
    """One horizontal bar panel per case, fastest first, each bar labelled with its time."""
    from matplotlib.figure import Figure
    from matplotlib.patches import Patch

    fig = Figure(figsize=(10, 3.3 * len(cases)))
    axes = fig.subplots(len(cases), 1, squeeze=False)[:, 0]
    for ax, (case, rows) in zip(axes, cases.items()):
        rows = sorted(rows, key=lambda row: row[1])
        ax.barh([name for name, _ in rows], [t * 1e6 for _, t in rows],
                color=[colour(name) for name, _ in rows])
        ax.set_xscale("log")
        ax.invert_yaxis()
        ax.set_title(f"Gaussian-mixture log-likelihood gradient, {case} (median us, log scale)",
                     fontsize=10)
        ax.tick_params(axis="y", labelsize=8)
        ax.set_xlim(right=max(t for _, t in rows) * 1e6 * 4)  # room for the last label
        for i, (_, t) in enumerate(rows):
            value = t * 1e6
            ax.text(value, i, f" {value:,.0f}" if value >= 100 else f" {value:.1f}",
                    va="center", fontsize=7)
    axes[0].legend(handles=[Patch(color=c, label=label) for c, label in COLOURS], fontsize=8,
                   loc="upper right")  # fastest first: the short bars are at the top
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main() -> None:
    page = ROOT / "docs" / "benchmarks.md"
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "docs" / "benchmarks.png"
    draw(recorded(page.read_text()), out)
    print(f"wrote {out} from the results {page.relative_to(ROOT)} records")


if __name__ == "__main__":
    main()
