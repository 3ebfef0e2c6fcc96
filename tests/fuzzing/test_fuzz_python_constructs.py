"""A bounded, seeded run of random programs written with Python's conveniences
(fuzz/grammar_python.py: comprehension reductions, zip, enumerate, reversed, loop else, tuples,
fixed lists, keyword arguments, nested def, lambda, functools.partial): each must have forward,
vector and reverse derivatives that agree with central finite differences.
"""

import importlib.util

import numpy as np
import pytest
from grammar_python import generate

from srcad import Active, Duplicated
from srcad.testing import check_grads

SEEDS = range(60)
NUMBA_SEEDS = range(3)


def _program(seed, tmp_path):
    program = generate(seed)
    path = tmp_path / f"python_constructs_{seed}.py"
    path.write_text(program.source)
    spec = importlib.util.spec_from_file_location(f"python_constructs_{seed}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    rng = np.random.default_rng(seed)
    args = []
    for arg in program.args:
        if arg.kind == "dup":
            value = np.round(rng.uniform(-1.0, 1.0, arg.shape), 3) + 0.0
            args.append(Duplicated(value, np.zeros_like(value)))
        else:
            args.append(Active(float(np.round(rng.uniform(-1.0, 1.0), 3))))
    return module.f, args


@pytest.mark.slow  # numba compilations or a bounded fuzz run: make test-all
@pytest.mark.parametrize("seed", SEEDS)
def test_random_program_agrees_with_finite_differences(seed, tmp_path):
    f, args = _program(seed, tmp_path)
    check_grads(f, *args, rtol=1e-5)


@pytest.mark.slow  # numba compilations or a bounded fuzz run: make test-all
@pytest.mark.parametrize("seed", NUMBA_SEEDS)
def test_random_program_under_numba(seed, tmp_path):
    pytest.importorskip("numba")
    f, args = _program(seed, tmp_path)
    check_grads(f, *args, rtol=1e-5, backend="numba")


def test_generator_is_deterministic():
    assert generate(7).source == generate(7).source
    assert generate(7).source != generate(8).source
