"""Progress bars of long derivative work (srcad/build/progress.py): jacobian rows and columns,
Hessian columns, sparse jacobian colors and jacrev rows count their steps, and a bar appears
once the work has run DELAY_SECONDS. The delay is set to 0 and the bar replaced: nothing here
depends on timing."""

import io
import sys

import numpy as np
import pytest

import srcad
from srcad.build import progress


class Bars:
    """make_bar replaced: records every bar (total, what, steps done)."""

    def __init__(self):
        self.made = []

    def __call__(self, total, what, done):
        bars = self

        class Bar:
            def __init__(self):
                self.total, self.what, self.done, self.closed = total, what, done, False
                bars.made.append(self)

            def update(self, count):
                self.done += count

            def close(self):
                self.closed = True
        return Bar()


@pytest.fixture
def bars(monkeypatch):
    monkeypatch.setattr(progress, "DELAY_SECONDS", 0.0)
    monkeypatch.setenv("SRCAD_PROGRESS", "1")
    made = Bars()
    monkeypatch.setattr(progress, "make_bar", made)
    return made


def outputs(x):
    y = np.zeros(len(x) + 1)
    for i in range(len(x)):
        y[i] += x[i] * x[i]
        y[i + 1] += 2.0 * x[i]
    return y


def energy(x):
    s = 0.0
    for i in range(len(x) - 1):
        s += x[i] * x[i + 1] * x[i + 1]
    return s


def _only(bars):
    assert len(bars.made) == 1, [b.what for b in bars.made]
    bar = bars.made[0]
    assert bar.done == bar.total and bar.closed
    return bar


@pytest.mark.parametrize("mode, what, total", [
    ("reverse", "jacobian rows", 6), ("forward", "jacobian columns", 5)])
def test_a_jacobian_counts_its_rows_or_columns(bars, mode, what, total):
    x = np.linspace(0.5, 1.5, 5)
    J = srcad.jacobian(outputs, x, mode=mode, chunk=2 if mode == "forward" else None)
    assert J.shape == (6, 5)
    bar = _only(bars)
    assert what in bar.what and bar.total == total


def test_a_hessian_counts_its_columns(bars):
    H = srcad.hessian(energy, np.linspace(0.5, 1.5, 7), chunk=3)
    assert H.shape == (7, 7)
    bar = _only(bars)
    assert "hessian" in bar.what and bar.total == 7


def test_a_sparse_jacobian_counts_its_colors(bars):
    J = srcad.jacobian(outputs, np.linspace(0.5, 1.5, 8), sparse=True)
    assert J.shape == (9, 8)
    bar = _only(bars)
    assert "colors" in bar.what and bar.total == 2  # columns i and i + 2 share no row


def test_jacrev_counts_its_rows(bars):
    J = srcad.jacrev(outputs)(np.linspace(0.5, 1.5, 4))
    assert J.shape == (5, 4)
    bars.made = [b for b in bars.made if "jacrev" in b.what]
    assert _only(bars).total == 5


def test_quick_work_shows_no_bar(bars, monkeypatch):
    monkeypatch.setattr(progress, "DELAY_SECONDS", 3600.0)
    srcad.jacobian(outputs, np.ones(4))
    assert bars.made == []


def test_a_bar_appears_once_the_delay_has_passed_and_starts_at_the_steps_done(bars,
                                                                               monkeypatch):
    now = [0.0]
    monkeypatch.setattr(progress, "clock", lambda: now[0])
    monkeypatch.setattr(progress, "DELAY_SECONDS", 2.0)
    with progress.Progress(10, "rows") as counting:
        for step in range(10):
            now[0] = step * 0.5  # step 4 is 2 s in
            counting.step()
            assert len(bars.made) == (1 if step >= 4 else 0)
    assert bars.made[0].done == 10 and bars.made[0].total == 10


class Terminal(io.StringIO):
    def isatty(self):
        return True


@pytest.mark.parametrize("environment, terminal, shown", [
    ({}, True, True),
    ({}, False, False),  # piped or redirected: no bar
    ({"CI": "true"}, True, False),
    ({"SRCAD_PROGRESS": "0"}, True, False),
    ({"SRCAD_PROGRESS": "1"}, False, True),
])
def test_when_a_bar_is_shown(monkeypatch, environment, terminal, shown):
    for name in ("CI", "SRCAD_PROGRESS"):
        monkeypatch.delenv(name, raising=False)
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr(sys, "stderr", Terminal() if terminal else io.StringIO())
    assert progress.enabled() is shown


def test_enable_overrides_the_environment(monkeypatch):
    monkeypatch.setenv("SRCAD_PROGRESS", "1")
    try:
        progress.enable(False)
        assert not progress.enabled()
        progress.enable(True)
        monkeypatch.setenv("SRCAD_PROGRESS", "0")
        assert progress.enabled()
    finally:
        progress.enable(None)
    assert not progress.enabled()


def test_without_tqdm_there_is_no_bar_and_no_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "tqdm", None)
    assert progress.make_bar(5, "rows", 0) is None
    monkeypatch.setattr(progress, "DELAY_SECONDS", 0.0)
    monkeypatch.setenv("SRCAD_PROGRESS", "1")
    assert srcad.jacobian(outputs, np.ones(3)).shape == (4, 3)


def test_the_tqdm_bar_on_stderr(monkeypatch, capsys):
    pytest.importorskip("tqdm")
    monkeypatch.setattr(progress, "DELAY_SECONDS", 0.0)
    monkeypatch.setenv("SRCAD_PROGRESS", "1")
    srcad.jacobian(outputs, np.ones(3), mode="reverse")
    assert "srcad: jacobian rows" in capsys.readouterr().err
