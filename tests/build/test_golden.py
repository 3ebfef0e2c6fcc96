"""Golden files of generated adjoint source for representative functions.

A change in code generation shows up here as a readable diff. After checking that the new
output is right (and no more bloated than before), regenerate the files with

    SRCAD_UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/build/test_golden.py

A run that rewrites the files skips every case (a rewritten file proves nothing); run again
without the variable to check them.
"""

import importlib.util
import os
from pathlib import Path

import numpy as np
import pytest

import srcad
from srcad.build import codegen

HERE = Path(__file__).resolve().parents[1]
GOLDEN = HERE / "golden"
UPDATE = os.environ.get("SRCAD_UPDATE_GOLDEN") == "1"

# astor and ast.unparse wrap long lines differently; the files are written with astor.
pytestmark = pytest.mark.skipif(codegen.astor is None, reason="golden files are astor output")


def load(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


mixture = load(HERE.parent / "examples" / "mixture.py", "golden_mixture_example")
functions = load(GOLDEN / "functions.py", "golden_functions")


def _mixture():
    params, data = mixture.make_problem(N=5, K=2)
    return srcad.source(mixture.mixture_loglikelihood, srcad.Reverse,
                        srcad.Duplicated(params, np.zeros_like(params)), data)


def _branch():
    return srcad.source(functions.branch, srcad.Reverse, srcad.Active(1.0), srcad.Active(2.0))


def _inplace():
    n = 5
    return srcad.source(functions.inplace, srcad.Reverse,
                        srcad.Duplicated(np.zeros(n), np.zeros(n)),
                        srcad.Duplicated(np.linspace(0.1, 0.5, n), np.zeros(n)),
                        srcad.Duplicated(np.zeros(n), np.zeros(n)))


def _newton_sqrt():
    return srcad.source(functions.newton_sqrt, srcad.Reverse, srcad.Active(2.0))


def _logistic_loss():
    X, y = np.ones((4, 3)), np.ones(4)
    return srcad.source(functions.logistic_loss, srcad.Reverse,
                        srcad.Duplicated(np.zeros(3), np.zeros(3)), X, y)


def _rnn_loss():
    H, D, T = 3, 2, 4
    return srcad.source(functions.rnn_loss, srcad.Reverse,
                        srcad.Duplicated(np.eye(H), np.zeros((H, H))),
                        srcad.Duplicated(np.ones((H, D)), np.zeros((H, D))), np.ones((T, D)),
                        srcad.Duplicated(np.zeros(H), np.zeros(H)), np.ones(H))


def _rows_and_elements():
    return srcad.source(functions.rows_and_elements, srcad.Reverse,
                        srcad.Duplicated(np.ones((3, 2)), np.zeros((3, 2))), srcad.Active(1.0))


def _checkpointed_loop():
    return srcad.source(functions.damped_oscillator, srcad.Reverse,
                        srcad.Duplicated(np.ones(3), np.zeros(3)), np.ones(3), 100, 0.01,
                        memory="2KB")


CASES = {
    "mixture_loglikelihood": _mixture,
    "branch": _branch,
    "inplace_scratch": _inplace,
    "while_break": _newton_sqrt,
    "array_logistic_loss": _logistic_loss,
    "array_rnn": _rnn_loss,
    "array_rows_and_elements": _rows_and_elements,
    "checkpointed_loop": _checkpointed_loop,
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_generated_adjoint_source_matches_golden_file(name):
    check_golden(name, GOLDEN, UPDATE)


def check_golden(name, folder, update):
    text = CASES[name]()
    path = folder / f"{name}.txt"
    if update:
        path.write_text(text)
        pytest.skip(f"rewrote {path}: check the diff, then run without SRCAD_UPDATE_GOLDEN")
    assert path.exists(), f"{path} missing: run with SRCAD_UPDATE_GOLDEN=1"
    assert text == path.read_text(), f"generated source for {name} changed; see {path}"


def test_rewriting_a_golden_file_never_passes(tmp_path):
    """With the update variable set, the file is rewritten and the case skips, even when the
    old file differed; without it, a changed file fails."""
    (tmp_path / "branch.txt").write_text("stale\n")
    with pytest.raises(pytest.skip.Exception):
        check_golden("branch", tmp_path, update=True)
    assert (tmp_path / "branch.txt").read_text() == CASES["branch"]()
    (tmp_path / "branch.txt").write_text("stale\n")
    with pytest.raises(AssertionError, match="changed"):
        check_golden("branch", tmp_path, update=False)


# -- the generated source does not depend on the hash seed ----------------------------------------
# (numba's disk cache is keyed by the source: a source that changed with PYTHONHASHSEED would
# be compiled again by every other process)

_RUNNING_MAX = """
import numpy as np, srcad

def running_max(x):
    y = np.zeros(len(x))  # refilled per k: max's operands m and y[i] both go on the tape
    total = 0.0
    for k in range(2):
        for i in range(len(x)):
            y[i] = x[i] * (k + 1.0)
        m = y[0]
        for i in range(1, len(y)):
            m = max(m, y[i])
        total = total + m
    return total

x = np.linspace(0.0, 1.0, 4)
print(srcad.source(running_max, srcad.Reverse, srcad.Duplicated(x, np.zeros(4))))
"""


def test_generated_source_is_the_same_under_every_hash_seed(tmp_path):
    import subprocess
    import sys

    script = tmp_path / "running_max.py"  # srcad reads the function's source from its file
    script.write_text(_RUNNING_MAX)
    sources = []
    for seed in ("1", "2"):  # max's two operands came out in either order
        path = os.pathsep.join([str(HERE.parent), os.environ.get("PYTHONPATH", "")])
        env = dict(os.environ, PYTHONHASHSEED=seed, PYTHONPATH=path)
        done = subprocess.run([sys.executable, str(script)], env=env, capture_output=True,
                              text=True, check=True)
        sources.append(done.stdout)
    assert "tape" in sources[0] and sources[0] == sources[1]
