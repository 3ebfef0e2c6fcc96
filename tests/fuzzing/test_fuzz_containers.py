"""A bounded, seeded run of random programs over a parameter container (fuzz/grammar_containers.py:
dict and list parameters read by keys, loops over its lists, enumerate/zip, unpacking, helpers
with keyword arguments, closures, literal and grown lists, comprehensions, tuple helpers and
tuple returns), each with an annotation mix (the container Duplicated or bare, x Duplicated or
bare, a Active or bare, at least one varied): forward, vector and reverse derivatives must agree
with central finite differences; and hvp with the container as x, in both second-order modes.
"""

import importlib.util

import numpy as np
import pytest
from activity_mix import choose_annotations
from grammar_containers import generate
from program import make_inputs, module_text

import srcad
from srcad.annotations import Annotation
from srcad.frontend import pytrees
from srcad.operators.containers.container_operators import returns_tuple
from srcad.testing import check_grads

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


@pytest.mark.slow  # numba compilations or a bounded fuzz run: make test-all
@pytest.mark.parametrize("seed", SEEDS)
def test_random_container_program_agrees_with_finite_differences(seed, tmp_path):
    f, args = _program(seed, tmp_path)
    check_grads(f, *args, rtol=1e-5)


@pytest.mark.parametrize("seed", NUMBA_SEEDS)
def test_random_container_program_under_numba(seed, tmp_path):
    pytest.importorskip("numba")
    f, args = _program(seed, tmp_path)
    check_grads(f, *args, rtol=1e-5, backend="numba", modes=("fwd", "rev"))


@pytest.mark.slow  # numba compilations or a bounded fuzz run: make test-all
@pytest.mark.parametrize("seed", range(8))
def test_random_container_program_hvp_in_both_second_order_modes(seed, tmp_path):
    """hvp with the container as x (the other arguments Constant): forward over reverse,
    reverse over forward (on python; on numba for seed 0) and central differences of
    srcad.gradient along v agree; a tuple-returning f is refused."""
    program = generate(seed)
    values = make_inputs(program, np.random.default_rng(seed))
    path = tmp_path / f"container_hvp_{seed}.py"
    path.write_text(module_text(program, values))
    spec = importlib.util.spec_from_file_location(f"container_hvp_{seed}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    args = [a.value if isinstance(a, Annotation) else a for a in module.args()]
    position = next(i for i, a in enumerate(args) if pytrees.is_container(a))
    x, rng = args[position], np.random.default_rng(seed + 1)
    floats = [isinstance(g, float) or (isinstance(g, np.ndarray) and g.dtype.kind == "f")
              for g in pytrees.leaves(x)]
    v = pytrees.unflatten(pytrees.treedef(x), [
        (rng.normal(size=np.shape(g)) if np.ndim(g) else float(rng.normal())) if is_float
        else g for g, is_float in zip(pytrees.leaves(x), floats)])

    def at(point):
        return [point if i == position else srcad.Constant(a) for i, a in enumerate(args)]

    def moved(h):
        return pytrees.unflatten(pytrees.treedef(x), [
            g + h * t if is_float else g
            for g, t, is_float in zip(pytrees.leaves(x), pytrees.leaves(v), floats)])

    def flat(c):
        return np.concatenate([np.ravel(leaf) for leaf, is_float
                               in zip(pytrees.leaves(c), floats) if is_float])

    modes = [{}, {"mode": "reverse-over-forward"}] + ([{"backend": "numba"}] * (seed == 0))
    if returns_tuple(module.f):
        for options in modes:
            with pytest.raises(srcad.ArgumentError, match="need f to return a float"):
                srcad.hvp(module.f, *at(x), tangent=v, **options)
        return
    h = 1e-5
    want = (flat(srcad.gradient(module.f, *at(moved(h))))
            - flat(srcad.gradient(module.f, *at(moved(-h))))) / (2 * h)
    first = None
    for options in modes:
        got = flat(srcad.hvp(module.f, *at(x), tangent=v, **options))
        np.testing.assert_allclose(got, want, rtol=1e-5,
                                   atol=1e-6 * max(1.0, np.abs(want).max()))
        first = got if first is None else first
        np.testing.assert_allclose(got, first, rtol=1e-10, atol=1e-12)


def test_generator_is_deterministic_and_mixes_annotations():
    assert generate(7).source == generate(7).source
    assert generate(7).source != generate(8).source
    mixes = {tuple(choose_annotations(generate(s), s)) for s in SEEDS}
    assert any(mix[0] == "const" for mix in mixes) and any(mix[0] == "container"
                                                            for mix in mixes)
