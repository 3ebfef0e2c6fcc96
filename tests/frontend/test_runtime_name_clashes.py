"""The user's names that generated code uses for its own are renamed, never confused.

Generated code calls srcad's runtime (`unbroadcast`, `view_element`, `reshaped`, ...), `np`,
`math` and builtins (`reversed`, `float`) by their bare names. A function that binds such a
name (a local, a parameter, a nested def, a helper's local) or reads a global of that name
bound to something else gets it renamed (`unbroadcast_1`), the global's value bound under the
new name (srcad/runtime/runtime_names.py). Each case is checked against finite differences and
forward against reverse (srcad.testing.check_grads).
"""

import math

import numpy as np
import pytest
import scipy.special

import srcad
from srcad import Constant, Duplicated
from srcad.runtime.runtime_names import RESERVED, is_reserved, rename_clashes
from srcad.testing import check_grads

MODES = ("fwd", "rev", "vec")
RNG = np.random.default_rng(3)

# globals named like srcad's runtime, bound to the user's own functions
reshaped = scipy.special.gammaln  # library calls: run as they are on constants
unbroadcast = np.log1p


def view_size(v):  # a user function: inlined
    return v * v + 1.0


def dup(x):
    return Duplicated(x, np.zeros_like(x))


def locals_named_like_the_runtime(x, y):
    view_element = 2.0
    unbroadcast = x[0] * view_element
    return np.sum((x + y) * unbroadcast)


def global_named_reshaped(x, c):
    return np.sum(x * reshaped(c)) + np.sum(x[1:] * x[:-1])


def parameter_named_view_element(x, view_element, k):
    # elements of slices: generated code calls `view_element(k, 1, 3, 1, len(x))`
    return x[1:3][k] * view_element + x[k:][-1] * x[k:k + 2][k] * view_element


def global_functions_named_like_the_runtime(x, c):
    return np.sum(view_size(x) * unbroadcast(c)) + np.sum(x * view_size(c))


def _scaled(v, c, view_size=1.0):
    unbroadcast = v * view_size * reshaped(c)
    return np.sum(unbroadcast * unbroadcast) + unbroadcast[0]


def helper_with_clashing_names(x, y, c):
    return _scaled(x, c, view_size=y) + _scaled(x + y, c)


def nested_def_named_like_the_runtime(x, y):
    unbroadcast = y * 2.0

    def reshaped(v, view_element=1.0):
        return v * view_element * unbroadcast

    return np.sum(reshaped(x, view_element=y) * x) + np.sum(reshaped(x))


def local_np(x):
    np = 3.0  # a local: the function cannot read NumPy as `np`, generated code does
    y = x * x * np
    return y @ x + y[0]


def local_math(x, a):
    math = 2.0  # the scalar derivative of np.sin is generated as math.cos
    return np.sin(a) * math * x[0] + np.cos(x[1] * a)


def builtins_rebound_in_a_loop(x):
    reversed = 2.0
    float = 0.5
    s = 1.0
    for i in range(3):
        s = s + math.sin(x[i]) * reversed * s * float
    return s


CASES = [
    (locals_named_like_the_runtime, lambda: (dup(RNG.standard_normal(4)), np.ones(1))),
    (global_named_reshaped, lambda: (dup(RNG.standard_normal(4)), np.arange(1.0, 5.0))),
    (parameter_named_view_element, lambda: (dup(RNG.standard_normal(4)), srcad.Active(0.7),
                                            1)),
    (global_functions_named_like_the_runtime, lambda: (dup(RNG.standard_normal(3)),
                                                        np.arange(1.0, 4.0))),
    (helper_with_clashing_names, lambda: (dup(RNG.standard_normal(3)), srcad.Active(1.3),
                                          np.arange(2.0, 5.0))),
    (nested_def_named_like_the_runtime, lambda: (dup(RNG.standard_normal(3)),
                                                 srcad.Active(0.4))),
    (local_np, lambda: (dup(RNG.standard_normal(3)),)),
    (local_math, lambda: (dup(RNG.standard_normal(2)), srcad.Active(0.3))),
    (builtins_rebound_in_a_loop, lambda: (dup(RNG.standard_normal(3)),)),
]


@pytest.mark.parametrize("f, args", CASES, ids=lambda v: getattr(v, "__name__", ""))
def test_derivatives_of_functions_with_names_generated_code_uses(f, args):
    check_grads(f, *args(), modes=MODES)


def test_the_local_is_renamed_in_the_generated_source():
    text = srcad.source(locals_named_like_the_runtime, srcad.Reverse,
                        dup(np.ones(4)), np.ones(1))
    assert "unbroadcast_1 = x[0] * view_element_1" in text


def test_gradient_of_the_reported_case():
    grad = srcad.gradient(locals_named_like_the_runtime, np.arange(1.0, 5.0),
                          Constant(np.ones(1)))
    # d/dx_i of sum((x + 1) * 2 x_0): 2 x_0 = 2, and sum(x + 1) * 2 = 28 more for x_0
    np.testing.assert_allclose(grad, [30.0, 2.0, 2.0, 2.0])


def test_gradient_of_a_renamed_global_library_call():
    c = np.arange(1.0, 5.0)
    grad = srcad.gradient(lambda_free_global, np.ones(4), Constant(c))
    np.testing.assert_allclose(grad, scipy.special.gammaln(c))


def lambda_free_global(x, c):
    return np.sum(x * reshaped(c))


def test_a_renamed_global_rebound_is_read_anew():
    global reshaped
    c = np.arange(1.0, 5.0)
    first = srcad.gradient(lambda_free_global, np.ones(4), Constant(c))
    saved = reshaped
    reshaped = np.sqrt
    try:
        second = srcad.gradient(lambda_free_global, np.ones(4), Constant(c))
    finally:
        reshaped = saved
    np.testing.assert_allclose(first, scipy.special.gammaln(c))
    np.testing.assert_allclose(second, np.sqrt(c))


def test_keyword_arguments_meant_for_f_keep_their_names():
    grad = srcad.gradient(parameter_named_view_element, np.arange(1.0, 5.0), view_element=2.0,
                          k=1)
    # 2 x[2] + 2 x[3] x[2]
    np.testing.assert_allclose(grad, [0.0, 0.0, 2.0 + 2.0 * 4.0, 2.0 * 3.0])


@pytest.mark.parametrize("f, c", [(locals_named_like_the_runtime, np.ones(1)),
                                  (global_named_reshaped, np.arange(1.0, 5.0))],
                         ids=lambda v: getattr(v, "__name__", ""))
def test_hessian_agrees_with_differences_of_the_gradient(f, c):
    """Second derivatives differentiate generated code, which calls srcad's runtime by name."""
    x, eps = np.array([0.3, -0.2, 0.5, 0.1]), 1e-6
    hessian = srcad.hessian(f, x, Constant(c))
    columns = [(srcad.gradient(f, x + eps * e, Constant(c))
                - srcad.gradient(f, x - eps * e, Constant(c))) / (2 * eps) for e in np.eye(4)]
    np.testing.assert_allclose(hessian, np.array(columns), atol=1e-7)


@pytest.mark.slow  # numba compilations or a bounded fuzz run: make test-all
@pytest.mark.parametrize("f, args", [CASES[0], CASES[1]], ids=lambda v: getattr(v, "__name__",
                                                                                  ""))
def test_numba_backend(f, args):
    check_grads(f, *args(), modes=("fwd", "rev"), backend="numba")


def test_names_numpy_and_builtins_mean_are_kept():
    import gast

    tree = gast.parse("def f(x):\n    return np.sum(x) + len(x) + math.pi").body[0]
    assert rename_clashes(tree, {"np": np, "math": math}, {}.__getitem__) == {}
    tree = gast.parse("def f(x):\n    return np.sum(x)").body[0]
    namespace = {"np": math}
    assert rename_clashes(tree, namespace, namespace.__getitem__) == {"np": "np_1"}
    assert namespace["np_1"] is math


def test_every_runtime_name_is_reserved():
    from srcad.build.compiler import compile_numba  # noqa: F401 - the lists it imports
    from srcad.build.generated_namespace import ARRAY_RUNTIME
    from srcad.operators.nested import NESTED_RUNTIME

    assert set(ARRAY_RUNTIME) | set(NESTED_RUNTIME) | {"np", "math", "reversed"} <= RESERVED
    assert is_reserved("reduce_sum_1_keep") and is_reserved("srcad_kernel")


def test_every_runtime_name_list_is_reserved():
    """Each `*_NAMES` list of the runtime's names is in RESERVED (np.partition's and
    np.convolve's numba spellings were not: a user's `moved_partition` would have been
    called by srcad's code)."""
    from srcad.runtime import runtime_names

    lists = {name: set(value) for name, value in vars(runtime_names).items()
             if name.endswith("_NAMES") and isinstance(value, (frozenset, tuple))}
    assert len(lists) > 15
    assert {name: sorted(names - RESERVED) for name, names in lists.items()
            if names - RESERVED} == {}


@pytest.mark.slow
def test_fuzzed_array_programs_with_runtime_names_agree():
    """fuzz/run.py [--arrays] --shapes runtime-names: variables named `unbroadcast`,
    `view_element`, `reversed`, ... (the programs of seeds 3, 11 (arrays) and 42 crashed the
    reverse mode before the renaming)."""
    import os
    import sys

    fuzz = os.path.join(os.path.abspath(os.path.join(__file__, "..", "..", "..")), "fuzz")
    if fuzz not in sys.path:
        sys.path.insert(0, fuzz)
    import run as fuzz_run

    shapes = frozenset({"runtime-names"})
    results = [fuzz_run.check_seed(seed, timeout=60.0, shapes=shapes, arrays=True)
               for seed in (3, 11, 12)] + [fuzz_run.check_seed(42, 60.0, shapes=shapes)]
    bad = [(r["seed"], r["category"], r["signature"]) for r in results
           if r["category"] != "agreed"]
    assert not bad, f"fuzz/run.py [--arrays] --shapes runtime-names --seed N --count 1: {bad}"


def test_numba_globals_bound_to_numpy_functions():
    """`from numpy import abs, exp`: `abs` is renamed (generated code calls the builtin), and
    both are bound to the NumPy functions in the numba module."""
    scope = {}
    exec("from numpy import abs, exp", scope)
    source_module = {"abs": scope["abs"], "exp": scope["exp"]}
    function = _with_globals(_abs_exp, source_module)
    check_grads(function, srcad.Active(-1.5), modes=("fwd", "rev"), backend="numba")


def _abs_exp(x):
    return abs(x) * exp(x) * x  # noqa: F821 - bound by _with_globals


def _with_globals(function, extra):
    """`function` reading `extra` as its globals (the source is the same, so srcad reads it)."""
    import types

    return types.FunctionType(function.__code__, {**function.__globals__, **extra},
                              function.__name__)
