"""A function object given other code in place (`f.__code__ = ...`), as IPython's
`%autoreload` does to the functions of an edited module: every derivative follows the new
code, kept compiled code and kept preparations included, for the function and for a helper
it inlines. Autoreload's default (`deduperreload`) compiles each edited definition alone from
line 1; srcad finds that definition in the file and checks the code is what it compiles to.
Expected derivatives are derived by hand."""

import ast
import math
import textwrap

import pytest
from helpers.user_modules import import_source, write_source

import srcad

MODULE = """
    import math

    def helper(x):
        return x * x

    def f(x):
        return helper(x) * 2.0

    def g(x):
        return math.sin(x)
"""

EDITED = MODULE.replace("x * x", "x * x * x").replace("sin", "cos")


def _reload_in_place(module, path):
    """What `%autoreload 2 --full` does: run the edited file, give the old functions the
    new code."""
    fresh = {"__name__": module.__name__}
    exec(compile(path.read_text(), str(path), "exec"), fresh)
    for name in ("helper", "f", "g"):
        getattr(module, name).__code__ = fresh[name].__code__


def _deduper_reload(module, path):
    """What `%autoreload 2` does by default (IPython's deduperreload): compile each edited
    definition's `ast.unparse` alone, from line 1, and give the old function its code."""
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.FunctionDef):
            fresh = {}
            exec(compile(textwrap.dedent(ast.unparse(node)), str(path), "exec", dont_inherit=True),
                 vars(module), fresh)
            getattr(module, node.name).__code__ = fresh[node.name].__code__


def _derivatives(m, x=2.0):
    return [srcad.gradient(m.f, x), srcad.grad(m.f)(x), srcad.gradient(m.g, x),
            srcad.grad(m.g)(x)]


@pytest.mark.parametrize("reload", [_reload_in_place, _deduper_reload])
def test_functions_given_new_code_in_place_are_differentiated_as_the_new_code(module_dir,
                                                                              reload):
    m = import_source(module_dir, "in_place_model", MODULE)
    x = 2.0
    prepared = srcad.prepare_gradient(m.f, x)
    assert _derivatives(m) == pytest.approx([4 * x, 4 * x, math.cos(x), math.cos(x)])
    write_source(module_dir / "in_place_model.py", EDITED)
    reload(m, module_dir / "in_place_model.py")
    assert m.f(x) == 2 * x ** 3  # Python runs the new code
    assert _derivatives(m) == pytest.approx([6 * x * x, 6 * x * x, -math.sin(x), -math.sin(x)])
    assert srcad.gradient(m.f, x, prep=prepared) == pytest.approx(6 * x * x)


def test_a_file_edited_again_after_an_in_place_reload_is_refused(module_dir):
    m = import_source(module_dir, "in_place_twice", MODULE)
    write_source(module_dir / "in_place_twice.py", EDITED)
    _deduper_reload(m, module_dir / "in_place_twice.py")
    assert srcad.grad(m.g)(2.0) == pytest.approx(-math.sin(2.0))
    write_source(module_dir / "in_place_twice.py", EDITED.replace("cos", "tan"))
    # g's derivative was built from the code Python still runs: still right
    assert srcad.grad(m.g)(1.0) == pytest.approx(-math.sin(1.0))
    with pytest.raises(srcad.StaleSourceError):  # a new derivative reads g's text: refused
        srcad.grad(lambda t: m.g(t) * 2.0)(1.0)
    assert srcad.gradient(m.f, 1.0) == pytest.approx(6.0)  # f's and helper's text did not change
