"""The API reference (docs/api.md, rendered by mkdocstrings) names every public name of
srcad, srcad.testing and srcad.dask, and each has a docstring that the reference can show:
the decorators `srcad.reverse`/`srcad.forward` are real functions with their own signature
and docstring (not a closure of a factory), the modes have attribute docstrings whose
examples run, and the public functions' docstrings have Google-style `Args:`/`Returns:`
sections (the parameters table of the reference).
"""

import ast
import doctest
import inspect
import re
import types
from pathlib import Path

import pytest

import srcad
import srcad.testing

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = ROOT / "docs" / "api.md"


def module_public_names(module):
    """`__all__`, or else the functions and classes the module defines without a `_`."""
    if hasattr(module, "__all__"):
        return list(module.__all__)
    return [name for name, value in vars(module).items()
            if not name.startswith("_") and getattr(value, "__module__", None) == module.__name__
            and isinstance(value, (types.FunctionType, type))]


def public_objects():
    """dotted name -> object, for every public name of srcad, srcad.testing and srcad.dask."""
    dask_module = pytest.importorskip("srcad.dask")
    found = {}
    for module in (srcad, srcad.testing, dask_module):
        for name in module_public_names(module):
            found[f"{module.__name__}.{name}"] = getattr(module, name)
    return found


def referenced():
    return set(re.findall(r"^::: ([\w.]+)\s*$", REFERENCE.read_text(), re.MULTILINE))


def test_every_public_name_is_in_the_reference():
    names = public_objects()
    assert len(names) > 55
    missing = sorted(set(names) - referenced())
    assert missing == [], f"add `::: name` to docs/api.md for {missing}"


def test_a_name_left_out_of_the_reference_is_found(tmp_path, monkeypatch):
    page = tmp_path / "api.md"
    page.write_text(REFERENCE.read_text().replace("::: srcad.Reverse\n", ""))
    monkeypatch.setattr(__import__(__name__), "REFERENCE", page)
    assert "srcad.Reverse" in set(public_objects()) - referenced()


def test_every_public_name_has_a_docstring():
    for name, value in public_objects().items():
        if isinstance(value, srcad.annotations.Mode):
            continue  # an attribute docstring, read below
        assert len(inspect.getdoc(value) or "") > 40, name


def test_the_decorators_are_functions_with_their_own_docstring():
    for decorator, mode in ((srcad.reverse, "reverse"), (srcad.forward, "forward")):
        assert decorator.__name__ == mode and decorator.__module__ == "srcad.api.decorators"
        assert list(inspect.signature(decorator).parameters) == ["f", "options"]
        assert f"differentiated in {mode} mode" in decorator.__doc__
        assert "Args:" in decorator.__doc__ and ">>>" in decorator.__doc__


def mode_docstrings():
    """name -> the docstring under each `Mode(...)` assignment of srcad/annotations.py."""
    body = ast.parse((ROOT / "srcad" / "annotations.py").read_text()).body
    return {first.targets[0].id: second.value.value for first, second in zip(body, body[1:])
            if isinstance(first, ast.Assign) and isinstance(second, ast.Expr)
            and isinstance(second.value, ast.Constant) and isinstance(first.value, ast.Call)
            and getattr(first.value.func, "id", None) == "Mode"}


def test_each_mode_has_a_docstring_whose_example_runs():
    docs = mode_docstrings()
    assert set(docs) == {"Reverse", "ReverseWithPrimal", "Forward", "ForwardWithPrimal"}
    for name, text in docs.items():
        test = doctest.DocTestParser().get_doctest(text, {}, name, "annotations.py", 0)
        assert test.examples, name
        result = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS).run(test, out=print)
        assert result.failed == 0, name


def test_public_functions_document_their_parameters_and_returns():
    lacking = set()  # the parameters table and the returns of the reference
    for name, value in public_objects().items():
        if not isinstance(value, types.FunctionType) or not inspect.signature(value).parameters:
            continue
        doc = inspect.getdoc(value)
        if "Args:" not in doc or "Returns:" not in doc:
            lacking.add(name)
    assert sorted(lacking) == [], "document Args: and Returns: (Google style)"


def test_every_public_name_has_an_example():
    lacking = {name for name, value in public_objects().items()
               if not isinstance(value, srcad.annotations.Mode)
               and ">>>" not in (inspect.getdoc(value) or "")}
    assert sorted(lacking) == [], "add a >>> example to the docstring"


def test_the_examples_of_modules_outside_the_packaging_doctests_run():
    import srcad.annotations
    import srcad.errors
    import srcad.frontend.pytrees
    import srcad.operators.preparation

    for module in (srcad.annotations, srcad.errors, srcad.frontend.pytrees,
                   srcad.operators.preparation):
        assert doctest.testmod(module).failed == 0, module.__name__


def test_the_examples_of_srcad_dask_run_on_the_local_scheduler():
    # the functions the examples define belong to no importable module: sent as their text
    dask_module = pytest.importorskip("srcad.dask")
    assert doctest.testmod(dask_module).failed == 0
