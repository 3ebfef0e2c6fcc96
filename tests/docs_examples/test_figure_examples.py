"""The examples that draw a figure, the gallery page that shows them and the charts of the
benchmark pages, drawn from the result tables committed on those pages (scripts/docs_charts.py)
and checked here against the ratios the tables print themselves."""

import importlib.util
import re
import sys
from pathlib import Path

import pytest

pytest.importorskip("matplotlib")
pytest.importorskip("scipy")

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))

import docs_charts  # noqa: E402
import docs_figures  # noqa: E402

PNG = b"\x89PNG\r\n\x1a\n"


def load_example(name):
    spec = importlib.util.spec_from_file_location(f"example_{name}", ROOT / "examples" /
                                                  f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("name, tolerance, phrase", [
    pytest.param("lotka_volterra_fit", 1e-6, "fitted (a, b, c, d)", marks=pytest.mark.slow),
    ("optimizer_path", 1e-14, "evaluations of f"),
    ("jacobian_sparsity", 1e-6, "colors (forward passes)"),
])
def test_figure_example_checks_its_derivatives_and_draws(name, tolerance, phrase, tmp_path,
                                                         capsys):
    error = load_example(name).main(tmp_path / "figure.png")
    assert error < tolerance and phrase in capsys.readouterr().out
    assert (tmp_path / "figure.png").read_bytes().startswith(PNG)


def test_exact_gradients_bring_bfgs_closer_with_fewer_evaluations(capsys):
    load_example("optimizer_path").main()
    exact, differences = [line for line in capsys.readouterr().out.splitlines()
                          if "evaluations of f" in line]
    numbers = [[float(t) for t in re.findall(r"\d+(?:\.\d+)?(?:e[-+]\d+)?", line)]
               for line in (exact, differences)]
    # (iterations, evaluations, distance) after the "2" of "'2-point'"
    (_, evaluations, distance), (_, _, evaluations_fd, distance_fd) = numbers
    assert evaluations < evaluations_fd and distance < distance_fd


def test_the_gallery_shows_each_figure_with_what_its_example_printed():
    images = {name: f"generated/{name}.png" for name in docs_figures.FIGURE_EXAMPLES}
    outputs = {name: f"printed by {name}\n" for name in docs_figures.FIGURE_EXAMPLES}
    text = docs_figures.gallery_markdown(images, outputs)
    sections = text.split("\n## ")
    assert len(sections) == len(docs_figures.FIGURE_EXAMPLES) >= 3
    for name, section in zip(docs_figures.FIGURE_EXAMPLES, sections):
        assert f"](generated/{name}.png)" in section and f"printed by {name}" in section
        assert f"](examples.md#{name})" in section and "Run with" not in section
    gallery = (ROOT / "docs" / "gallery.md").read_text()
    assert "<!-- generated: figures -->" in gallery


def test_benchmark_chart_ratios_are_the_ratios_the_page_prints():
    page = (ROOT / "docs" / "benchmarks.md").read_text()
    ratios = docs_charts.benchmark_ratios(page)
    assert {"mixture N=500, K=4", "logistic regression", "RNN"} <= set(ratios)
    for heading, header, rows in docs_charts.tables(page):
        column = next((c for c in header if c.startswith("x jax.jit")), None)
        if column is None:
            continue
        printed = next(r for r in rows if r[0].startswith("srcad reverse, numba backend"))
        shown = float(printed[header.index(column)].rstrip("x").replace(",", ""))
        drawn = ratios[f"mixture {heading}"]["srcad, numba backend"]
        assert drawn == pytest.approx(shown, abs=0.006)
    assert docs_charts.benchmarks_chart(page).startswith(PNG)
    assert "<!-- generated: chart benchmarks -->" in page


def test_gradbench_chart_ratios_and_misses_are_the_page_s():
    page = (ROOT / "docs" / "gradbench.md").read_text()
    ratios = docs_charts.gradbench_ratios(page)
    _, header, rows = next(t for t in docs_charts.tables(page) if t[1][0] == "eval")
    assert len(ratios) == len(rows) >= 10
    for row in rows:
        shown = row[header.index("numba / jax")]
        value = float(shown.split("x")[0])
        # the chart divides the times as shown (3 significant digits: up to 0.5% off each);
        # the table's ratio, of the times measured, is shown to 2 decimals
        assert abs(ratios[row[0]]["srcad numba"] - value) <= 0.011 * value + 0.005
        assert ("✗" in shown) == (ratios[row[0]]["srcad numba"] > 1.0)  # the misses marked
    assert docs_charts.gradbench_chart(page).startswith(PNG)
    assert "<!-- generated: chart gradbench -->" in page


def test_seconds_reads_the_units_of_both_pages():
    assert docs_charts.seconds("21.57 ms") == pytest.approx(0.02157)
    assert docs_charts.seconds("871.3 µs") == pytest.approx(871.3e-6)
    assert docs_charts.seconds("1,223") == pytest.approx(1223e-6)  # benchmarks.md: us
    assert docs_charts.seconds("2.42 s") == pytest.approx(2.42)
    assert docs_charts.seconds("-") is None
