"""`with np.errstate(...)`, `warnings.catch_warnings()` and `contextlib.nullcontext()`
around differentiable code: the body and its derivative run inside them; other `with`
statements refused by line."""

import contextlib
import sys
import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from helpers.user_modules import import_source

import srcad
from srcad.errors import SrcadError

jax.config.update("jax_enable_x64", True)

X = np.array([0.5, 2.0, 3.0])
C = np.array([0.0, 1.0, 4.0])


def floored_logs(x):
    with np.errstate(divide="ignore"):
        c = np.maximum(np.log(C), -5.0)  # log(0) warns without errstate
        y = np.sum(x * c) + np.sum(np.log(x))
    return y


def _expected():
    c = np.maximum(np.log(np.where(C > 0, C, 1.0)), -5.0)
    c[C == 0] = -5.0
    return np.asarray(jax.grad(lambda x: jnp.sum(x * c) + jnp.sum(jnp.log(x)))(X))


@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_errstate_body_runs_inside_it(mode):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a divide warning from log(0) would raise here
        g = srcad.gradient(floored_logs, X, mode=mode)
    np.testing.assert_allclose(g, _expected(), rtol=1e-12)


def test_errstate_in_vector_mode():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        lanes = srcad.pushforward(floored_logs, X, tangent=(np.eye(3)[0], np.eye(3)[2]))
    np.testing.assert_allclose(lanes, _expected()[[0, 2]], rtol=1e-12)


def helper(x):
    with np.errstate(over="ignore"):
        return np.sum(np.exp(x) * 2.0)


def nested_contexts(x):
    with warnings.catch_warnings(), contextlib.nullcontext():
        s = helper(x)
    return s


def test_nested_and_helper_contexts():
    np.testing.assert_allclose(srcad.grad(nested_contexts)(X), 2 * np.exp(X), rtol=1e-12)


@pytest.mark.slow
def test_errstate_on_numba():
    np.testing.assert_allclose(srcad.grad(floored_logs, backend="numba")(X), _expected(),
                               rtol=1e-12)


def raises_on_divide(x):
    with np.errstate(divide="raise"):
        y = np.sum(np.log(x))
    return y


def opens_a_file(x):
    with open(__file__) as handle:
        y = np.sum(x) * len(handle.name)
    return y


@pytest.mark.parametrize("f", [raises_on_divide, opens_a_file])
def test_other_with_statements_refused_by_line(f):
    with pytest.raises(SrcadError, match="with: not supported") as info:
        srcad.grad(f)(X)
    assert info.value.line == f.__code__.co_firstlineno + 1


class Scaled:
    def __init__(self, scale):
        self.scale = scale

    def loss(self, x):
        with warnings.catch_warnings(), np.errstate(divide="ignore"):
            c = np.maximum(np.log(C), -5.0)  # log(0) warns without errstate
            y = self.scale * (np.sum(x * c) + np.sum(np.log(x)))
        return y


@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_a_bound_methods_context_managers_are_made_in_its_module(mode):
    # srcad calls a bound method from a function of its own, whose module has no `warnings`
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        g = srcad.gradient(Scaled(2.0).loss, X, mode=mode)
    np.testing.assert_allclose(g, 2.0 * _expected(), rtol=1e-12)


def test_a_helpers_context_managers_are_made_in_its_module(tmp_path, monkeypatch):
    module_dir = tmp_path
    monkeypatch.syspath_prepend(str(module_dir))
    for name in ("context_helper_module", "context_caller_module"):  # forgotten after
        monkeypatch.delitem(sys.modules, name, raising=False)
    import_source(module_dir, "context_helper_module", """
        import contextlib
        import warnings

        import numpy as np


        def logs(x):
            with warnings.catch_warnings(), contextlib.nullcontext():
                s = np.sum(np.log(x))
            return s
        """)
    caller = import_source(module_dir, "context_caller_module", """
        import numpy as np

        from context_helper_module import logs

        warnings = "a name of the caller's own"


        def scaled_logs(x):
            return 3.0 * logs(x) + np.sum(x)
        """)
    for mode in ("reverse", "forward"):  # by hand: 3 / x + 1
        np.testing.assert_allclose(srcad.gradient(caller.scaled_logs, X, mode=mode),
                                   3.0 / X + 1.0, rtol=1e-13)
