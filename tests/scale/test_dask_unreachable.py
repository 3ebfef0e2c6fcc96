"""srcad.dask with a function its module does not hold under its name (defined by a doctest of
the module or exec'd in a copy of its namespace, or its name rebound to another function since):
a worker importing module.name would find no function, or another one, so it is sent as its
source text, as a function of `__main__` is. Expected values are derived by hand."""

import linecache
import sys
import types

import numpy as np
import pytest

from srcad.scale import shipped_source
from srcad.scale.dask_tasks import FunctionReference, chunk_value_and_gradient

TEXT = '''def squares(w, rows):
    s = 0.0
    for i in range(rows.shape[0]):
        s += (rows[i, 0] * w[0] - rows[i, 1]) ** 2
    return s
'''
ROWS = np.array([[1.0, 2.0], [2.0, 3.0], [3.0, 7.0]])


def defined_in(module_name, text=TEXT, filename="<doctest squares[0]>"):
    """`squares` made from `text` in a copy of a module's namespace, as doctest runs a
    module's examples (the source registered in linecache, as doctest does)."""
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    namespace = dict(vars(sys.modules[module_name]))
    exec(compile(text, filename, "exec"), namespace)
    return namespace["squares"]


def test_a_doctest_function_is_sent_as_its_text_and_rebuilt_on_the_worker(monkeypatch):
    f = defined_in(__name__)
    reference = FunctionReference.of(f)
    assert isinstance(reference, shipped_source.ShippedFunction)
    monkeypatch.setattr(shipped_source, "_RESOLVED", {})  # a fresh worker process
    value, gradient = chunk_value_and_gradient(ROWS, reference, np.array([2.0]), (), "python")
    # residuals 0, 1, -1: value 2; d/dw = 2 sum(r x) = 2 (1 * 2 - 1 * 3)
    assert value == pytest.approx(2.0) and gradient == pytest.approx([-2.0])


def test_a_function_whose_name_was_rebound_is_sent_as_its_text(monkeypatch):
    module = types.ModuleType("srcad_test_rebound_module")
    monkeypatch.setitem(sys.modules, module.__name__, module)
    old = defined_in(module.__name__, filename="<old squares>")
    old.__module__ = module.__name__
    module.squares = defined_in(module.__name__, TEXT.replace("** 2", "** 4"), "<new squares>")
    reference = FunctionReference.of(old)
    assert isinstance(reference, shipped_source.ShippedFunction)
    monkeypatch.setattr(shipped_source, "_RESOLVED", {})
    value, gradient = chunk_value_and_gradient(ROWS, reference, np.array([2.0]), (), "python")
    assert value == pytest.approx(2.0) and gradient == pytest.approx([-2.0])  # the old squares


def test_a_function_its_module_holds_is_sent_by_name():
    assert FunctionReference.of(defined_in_this_module) == FunctionReference(
        __name__, "defined_in_this_module")


def defined_in_this_module(w, rows):
    return np.sum((rows[:, 0] * w[0] - rows[:, 1]) ** 2)
