"""A bounded, seeded run of random programs over a parameter container (fuzz/grammar_containers.py:
dict and list parameters read by keys, loops over its lists, enumerate/zip, unpacking, helpers
with keyword arguments, closures, literal and grown lists, comprehensions, tuple helpers and
tuple returns), each with an annotation mix (the container Duplicated or bare, x Duplicated or
bare, a Active or bare, at least one varied): forward, vector and reverse derivatives must agree
with central finite differences.
"""

import importlib.util
import os
import sys

import numpy as np
import pytest

from srcad.testing import check_grads

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FUZZ = os.path.join(ROOT, "fuzz")
if FUZZ not in sys.path:
    sys.path.insert(0, FUZZ)

from activity_mix import choose_annotations  # noqa: E402
from grammar_containers import generate  # noqa: E402
from program import make_inputs, module_text  # noqa: E402

SEEDS = range(16)
NUMBA_SEEDS = range(1)


def _program(seed, tmp_path):
    program = generate(seed)
    values = make_inputs(program, np.random.default_rng(seed))
    text = module_text(program, values, annotations=choose_annotations(program, seed))
    path = tmp_path / f"container_program_{seed}.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(f"container_program_{seed}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.f, module.args()


@pytest.mark.parametrize("seed", SEEDS)
def test_random_container_program_agrees_with_finite_differences(seed, tmp_path):
    f, args = _program(seed, tmp_path)
    check_grads(f, *args, rtol=1e-5)


@pytest.mark.parametrize("seed", NUMBA_SEEDS)
def test_random_container_program_under_numba(seed, tmp_path):
    pytest.importorskip("numba")
    f, args = _program(seed, tmp_path)
    check_grads(f, *args, rtol=1e-5, backend="numba", modes=("fwd", "rev"))


def test_generator_is_deterministic_and_mixes_annotations():
    assert generate(7).source == generate(7).source
    assert generate(7).source != generate(8).source
    mixes = {tuple(choose_annotations(generate(s), s)) for s in SEEDS}
    assert any(mix[0] == "const" for mix in mixes) and any(mix[0] == "container"
                                                            for mix in mixes)
