"""hvp and hessian of a parameter container x (a dict, a nested dict, a list of dicts) on the
numba backend, run as reverse over forward over the container's leaves: against the python
backend's forward over reverse, and against central differences of srcad.gradient. Float and
array leaves, an int leaf, Constant and Cache arguments; the refusals. Two numba programs
(each compiled once; hvp and hessian share the compiled code).
"""


import numpy as np
import pytest

import srcad
from srcad import Cache, Constant
from srcad.frontend import pytrees

pytest.importorskip("numba")


def cubic_energy(p, scale):
    return np.sum(p["a"] ** 3) * p["b"] + scale * np.sum(np.sin(p["a"])) * p["b"] ** 2


def layered(layers, data):
    s = 0.0
    for layer in layers:
        s = s + np.sum(np.tanh(layer["W"] @ data) * layer["b"]) * layer["gain"]["g"]
    return s + layers[0]["gain"]["g"] ** 2 * layers[1]["gain"]["g"]


def gathered_cubes(p, idx):
    y = p["a"][idx]  # the numba reverse of a gather needs np.add.at
    return np.sum(y * y * y) * p["b"]


def scratch_energy(p, buf):
    for i in range(buf.shape[0]):
        buf[i] = p["a"][i] * p["b"]
    return np.sum(buf ** 2) + p["b"] ** 3


def nearest_squares(p, q):
    d = q[:, None] - p["x"][None, :]  # numba: whole-array code on the direction's tangents
    return np.sum(np.min(d * d, axis=1)) + p["w"] ** 3


def squares(p):
    return p["a"] ** 2 * p["b"]  # an array: hvp and hessian need a float


RNG = np.random.default_rng(7)
DICT = {"a": np.array([0.4, -0.9, 1.3]), "b": 0.8}
DICT_V = {"a": np.array([1.0, 0.5, -2.0]), "b": 0.7}
LAYERS = [{"W": RNG.normal(size=(2, 3)), "b": RNG.normal(size=2), "gain": {"g": 0.6}, "n": 2},
          {"W": RNG.normal(size=(2, 3)), "b": RNG.normal(size=2), "gain": {"g": -1.1}, "n": 5}]
LAYERS_V = [{"W": RNG.normal(size=(2, 3)), "b": RNG.normal(size=2), "gain": {"g": 0.3}, "n": 2},
            {"W": RNG.normal(size=(2, 3)), "b": RNG.normal(size=2), "gain": {"g": 2.0}, "n": 5}]
DATA = RNG.normal(size=3)
PROGRAMS = {"dict": (cubic_energy, DICT, DICT_V, (Constant(1.5),)),
            "list_of_nested_dicts": (layered, LAYERS, LAYERS_V, (Constant(DATA),))}


def float_paths(x):
    """The paths of x's float leaves, in leaf order."""
    tree = pytrees.treedef(x)
    return [path for path, leaf in zip(pytrees.paths(tree), pytrees.leaves(x))
            if isinstance(leaf, (float, np.ndarray))]


def to_vector(c, x):
    """The float leaves (at x's float paths) of the container c, flattened and joined."""
    return np.concatenate([np.ravel(pytrees.get(c, path)) for path in float_paths(x)])


def from_vector(vector, x):
    """A container like x holding `vector` in its float leaves (others copied from x)."""
    out, k = _copied(x), 0
    for path in float_paths(x):
        size = np.size(pytrees.get(x, path))
        part = vector[k:k + size]
        leaf = pytrees.get(x, path)
        pytrees.set_leaf(out, path, part.reshape(np.shape(leaf)) if isinstance(leaf, np.ndarray)
                         else float(part[0]))
        k += size
    return out


def _copied(x):
    if isinstance(x, dict):
        return {k: _copied(v) for k, v in x.items()}
    if isinstance(x, list):
        return [_copied(v) for v in x]
    return x.copy() if isinstance(x, np.ndarray) else x


def dense(H, x):
    """The container Hessian H (H[leaf i][leaf j] of shape shape_i + shape_j) as a matrix."""
    paths = float_paths(x)
    sizes = [np.size(pytrees.get(x, path)) for path in paths]
    return np.block([[np.reshape(pytrees.get(pytrees.get(H, pi), pj), (si, sj))
                      for pj, sj in zip(paths, sizes)] for pi, si in zip(paths, sizes)])


def central_hessian(f, x, extra, h=1e-5):
    """Columns of central differences of srcad.gradient (python backend) of f at x."""
    n = len(to_vector(x, x))
    columns = []
    for e in np.eye(n):
        plus = srcad.gradient(f, from_vector(to_vector(x, x) + h * e, x), *extra)
        minus = srcad.gradient(f, from_vector(to_vector(x, x) - h * e, x), *extra)
        columns.append((to_vector(plus, x) - to_vector(minus, x)) / (2 * h))
    return np.array(columns).T


@pytest.fixture(scope="module")
def numba_results():
    """name -> (numba hvp, numba hessian), through prepare_hvp and prepare_hessian."""
    out = {}
    for name, (f, x, v, extra) in PROGRAMS.items():
        hvp_prep = srcad.prepare_hvp(f, x, *extra, tangent=v, backend="numba")
        hessian_prep = srcad.prepare_hessian(f, x, *extra, backend="numba")
        out[name] = (srcad.hvp(f, x, *extra, tangent=v, prep=hvp_prep),
                     srcad.hessian(f, x, *extra, prep=hessian_prep))
    return out


@pytest.mark.slow  # numba compilations or a bounded fuzz run: make test-all
@pytest.mark.parametrize("name", PROGRAMS)
def test_numba_container_hessian_matches_central_differences_of_the_gradient(name,
                                                                           numba_results):
    f, x, _, extra = PROGRAMS[name]
    H = dense(numba_results[name][1], x)
    np.testing.assert_allclose(H, central_hessian(f, x, extra), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(H, H.T, rtol=1e-12, atol=1e-12)


@pytest.mark.slow  # among the slowest of make test (numba or long runs): make test-all
@pytest.mark.parametrize("name", PROGRAMS)
def test_numba_container_hvp_matches_central_differences_along_v(name, numba_results):
    f, x, v, extra = PROGRAMS[name]
    h = 1e-5
    plus = srcad.gradient(f, from_vector(to_vector(x, x) + h * to_vector(v, x), x), *extra)
    minus = srcad.gradient(f, from_vector(to_vector(x, x) - h * to_vector(v, x), x), *extra)
    want = (to_vector(plus, x) - to_vector(minus, x)) / (2 * h)
    np.testing.assert_allclose(to_vector(numba_results[name][0], x), want, rtol=1e-6,
                               atol=1e-7)


@pytest.mark.parametrize("name", PROGRAMS)
def test_numba_container_second_order_has_the_python_backends_structure_and_values(
        name, numba_results):
    f, x, v, extra = PROGRAMS[name]
    numba_hv, numba_h = numba_results[name]
    python_hv = srcad.hvp(f, x, *extra, tangent=v, backend="python")
    python_h = srcad.hessian(f, x, *extra, backend="python")
    for got, want in ((numba_hv, python_hv), (numba_h, python_h)):
        assert pytrees.treedef(got) == pytrees.treedef(want)
        for g, w in zip(pytrees.leaves(got), pytrees.leaves(want)):
            assert type(g) is type(w)
            np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12)
    assert isinstance(numba_hv["b"] if name == "dict" else numba_hv[1]["gain"]["g"], float)
    if name == "list_of_nested_dicts":  # the int leaves are copied from x
        assert numba_hv[1]["n"] == 5 and numba_h[0]["n"] == 2 and numba_h[0]["W"][1]["n"] == 5


def test_python_backend_runs_container_reverse_over_forward_when_asked_with_a_cache():
    # H of sum((a b)^2) + b^3 by hand: H_aa = 2 b^2 I, H_ab = 4 a b, H_bb = 2 sum(a^2) + 6 b
    a, b = DICT["a"], DICT["b"]
    want = np.block([[2 * b * b * np.eye(3), (4 * a * b)[:, None]],
                     [(4 * a * b)[None, :], np.array([[2 * np.sum(a * a) + 6 * b]])]])
    got = srcad.hessian(scratch_energy, DICT, Cache(np.zeros(3)), mode="reverse-over-forward")
    np.testing.assert_allclose(dense(got, DICT), want, rtol=1e-13)


def test_container_second_order_refuses_an_array_valued_f():
    x, v = {"a": np.ones(2), "b": 2.0}, {"a": np.ones(2), "b": 1.0}
    for options in ({}, {"backend": "numba"}):
        with pytest.raises(srcad.ArgumentError, match="return a float, got ndarray"):
            srcad.hvp(squares, x, tangent=v, **options)


def test_numba_container_hessian_refuses_chunks_and_forward_over_reverse():
    f, x, v, extra = PROGRAMS["dict"]
    with pytest.raises(srcad.ArgumentError, match="one Hessian column per pass"):
        srcad.hessian(f, x, *extra, chunk=2, backend="numba")
    with pytest.raises(srcad.ArgumentError, match="runs second order as reverse over forward"):
        srcad.hvp(f, x, *extra, tangent=v, backend="numba", mode="forward-over-reverse")


def test_numba_container_hvp_through_index_arrays_agrees_with_the_python_backend():
    # numba's forward code reads through index arrays too (once refused by line here)
    idx = Constant(np.array([0, 2, 2]))
    want = srcad.hvp(gathered_cubes, DICT, idx, tangent=DICT_V)
    got = srcad.hvp(gathered_cubes, DICT, idx, tangent=DICT_V, backend="numba")
    np.testing.assert_allclose(to_vector(got, DICT), to_vector(want, DICT), rtol=1e-12)
    got = srcad.hvp(gathered_cubes, DICT, idx, tangent=DICT_V, mode="reverse-over-forward")
    np.testing.assert_allclose(to_vector(got, DICT), to_vector(want, DICT), rtol=1e-13)


@pytest.mark.parametrize("options", [{}, {"mode": "reverse-over-forward"}, {"backend": "numba"}])
def test_container_gradient_and_hvp_gives_the_gradient_and_hvp_in_one_pass(options,
                                                                           numba_results):
    f, x, v, extra = PROGRAMS["dict"]
    prep = srcad.prepare_gradient_and_hvp(f, x, *extra, tangent=v, **options)
    outs = ({"a": np.zeros(3), "b": 0.0}, {"a": np.zeros(3), "b": 0.0})
    g, hv = srcad.gradient_and_hvp(f, x, *extra, tangent=v, prep=prep, out=outs)
    assert g is outs[0] and hv is outs[1] and isinstance(g["b"], float)
    want = srcad.gradient(f, x, *extra)
    np.testing.assert_allclose(to_vector(g, x), to_vector(want, x), rtol=1e-12)
    np.testing.assert_allclose(to_vector(hv, x), to_vector(numba_results["dict"][0], x),
                               rtol=1e-12)


@pytest.mark.slow  # numba compilations or a bounded fuzz run: make test-all
def test_numba_container_gradient_and_hvp_where_the_direction_cannot_be_active():
    """numba refuses whole-array operations on the direction's tangents (the broadcast): the
    gradient then takes a reverse pass of f of its own, H v the usual one."""
    x = {"x": np.array([0.3, -0.7, 1.1, 0.4]), "w": 1.5}
    v = {"x": np.array([1.0, -2.0, 0.5, 0.25]), "w": 0.5}
    q = np.array([1.5, 0.5, 2.0, 0.8, 0.1])
    g, hv = srcad.gradient_and_hvp(nearest_squares, x, Constant(q), tangent=v,
                                   backend="numba")
    nearest = np.argmin((q[:, None] - x["x"][None, :]) ** 2, axis=1)  # by hand
    want = np.zeros(4)
    np.add.at(want, nearest, 2.0 * (x["x"][nearest] - q))
    np.testing.assert_allclose(g["x"], want, rtol=1e-12)
    assert g["w"] == pytest.approx(3 * 1.5 ** 2, rel=1e-13)
    np.testing.assert_allclose(hv["x"], 2.0 * np.bincount(nearest, minlength=4) * v["x"],
                               rtol=1e-12)
    assert hv["w"] == pytest.approx(6 * 1.5 * 0.5, rel=1e-13)
