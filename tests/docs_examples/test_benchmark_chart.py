"""The chart of the benchmarks page (benchmarks/mixture_chart.py) is drawn from the times the
page records: the summary table of the mixture problem read back cell by cell, skipped
contenders left out, and a PNG with one panel per size and a colour legend."""

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

PAGE = """# Benchmarks

## 1. Gaussian-mixture log-likelihood gradient

Median us per call (ratio to the python primal, inline math.exp).

| method | N=500, K=4 | N=100000, K=4 |
|---|---|---|
| python primal (inline math.exp) | 1,223 (1.00x) | 243,075 (1.00x) |
| srcad reverse, numba backend | 20.4 (0.02x) | skipped: numba not installed |
| jax.jit(jax.grad), vectorized jnp | 90.0 (0.07x) | 3,609 (0.01x) |

## 2. another problem

| method | N=1 |
|---|---|
| srcad reverse, python backend | 5.0 (1.00x) |
"""


@pytest.fixture(scope="module")
def mixture_chart():
    spec = importlib.util.spec_from_file_location("mixture_chart",
                                                  ROOT / "benchmarks" / "mixture_chart.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_times_are_read_from_the_mixture_table_only(mixture_chart):
    cases = mixture_chart.recorded(PAGE)
    assert list(cases) == ["N=500, K=4", "N=100000, K=4"]
    assert cases["N=500, K=4"] == [("python primal (inline math.exp)", pytest.approx(1223e-6)),
                                   ("srcad reverse, numba backend", pytest.approx(20.4e-6)),
                                   ("jax.jit(jax.grad), vectorized jnp", pytest.approx(90e-6))]
    assert [name for name, _ in cases["N=100000, K=4"]] == [
        "python primal (inline math.exp)", "jax.jit(jax.grad), vectorized jnp"]


def test_the_committed_page_has_every_size_of_the_run(mixture_chart):
    cases = mixture_chart.recorded((ROOT / "docs" / "benchmarks.md").read_text())
    assert len(cases) == 3 and all(len(rows) >= 10 for rows in cases.values())
    assert "benchmarks.png" in (ROOT / "docs" / "benchmarks.md").read_text()


def test_the_chart_has_a_panel_per_size_and_a_legend(mixture_chart, tmp_path, monkeypatch):
    import matplotlib.figure

    saved = []
    monkeypatch.setattr(matplotlib.figure.Figure, "savefig",
                        lambda fig, path, **kw: saved.append(fig))
    mixture_chart.draw(mixture_chart.recorded(PAGE), tmp_path / "chart.png")
    (fig,) = saved
    panels = [ax for ax in fig.axes if ax.get_title()]
    assert len(panels) == 2
    labels = [text.get_text() for text in panels[0].get_legend().get_texts()]
    assert labels == ["srcad", "other tools, hand-written", "primal, finite differences"]
    bars = [patch.get_width() for patch in panels[0].patches]
    assert bars == pytest.approx([20.4, 90.0, 1223.0])  # fastest first, in microseconds
