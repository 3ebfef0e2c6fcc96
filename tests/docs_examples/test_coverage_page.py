"""The supported-functions page (docs/functions.md) is generated from the rule table
(scripts/coverage_page.py): the committed page is current, lists the new families with their
backends and keywords, and a call srcad has no rule for is refused naming the page."""

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.special

import srcad

ROOT = Path(__file__).resolve().parents[2]


def _generator():
    spec = importlib.util.spec_from_file_location("coverage_page",
                                                  ROOT / "scripts" / "coverage_page.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_committed_page_is_current():
    # in a process of its own: rules users add in other tests (srcad.custom_jvp of a library
    # function) are in this process's table, not on the page
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "coverage_page.py"),
                           "--check"], cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, "run python scripts/coverage_page.py"


def test_the_page_lists_functions_backends_keywords_and_conventions():
    text = _generator().page()
    for row in ("| `scipy.stats.gamma.logpdf` | reverse, forward, vector | python; numba: "
                "compiled | `a`, `loc`, `scale` |",
                "| `np.average` |", "`weights`", "| `np.linalg.lstsq` |", "| `math.dist` |",
                "| `np.abs` | reverse, forward, vector | python; numba: compiled |  | "
                "abs'(0) = 1 |",
                "no derivative in `a` (refused)"):
        assert row in text, row


def no_rule(x):
    return np.sum(scipy.special.struve(1.0, x))


def test_a_function_without_a_rule_is_refused_naming_the_page():
    with pytest.raises(srcad.UnsupportedCallError, match="Supported functions, "
                       "docs/functions.md"):
        srcad.grad(no_rule)(np.array([0.5, 1.0]))
