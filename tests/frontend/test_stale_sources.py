"""srcad differentiates the code a function runs, never text that replaced it in its file.

Each case writes a real module, imports it, then edits it (with or without a reload) the way a
user at a prompt or in a notebook does. Expected derivatives are derived by hand.
"""

import functools
import importlib
import inspect
import linecache
import math

import numpy as np
import pytest
from helpers.user_modules import import_source, write_source

import srcad
from srcad.build import cache
from srcad.frontend.source_check import check_source


def test_a_function_edited_in_its_file_is_refused_before_its_first_derivative(module_dir):
    m = import_source(module_dir, "edited_model", """
        def f(x):
            return x * x
    """)
    linecache.getlines(m.__file__)  # linecache holds the text the code came from
    write_source(module_dir / "edited_model.py", """
        def f(x):
            return x * x * x
    """)
    assert m.f(3.0) == 9.0  # Python still runs the old code
    with pytest.raises(srcad.StaleSourceError) as info:
        srcad.autodiff(srcad.Reverse, m.f, srcad.Active(3.0))
    message = str(info.value)
    assert "the source of f in edited_model.py changed after f was defined" in message
    assert "reload the module" in message
    assert info.value.filename == m.__file__ and info.value.line == 2
    with pytest.raises(srcad.StaleSourceError):
        srcad.autodiff(srcad.Forward, m.f, srcad.Duplicated(3.0, 1.0))
    with pytest.raises(srcad.StaleSourceError):
        srcad.gradient(m.f, 3.0)


def test_an_edit_that_only_changes_a_constant_is_refused(module_dir):
    m = import_source(module_dir, "edited_constant", """
        def f(x):
            return 2.0 * x
    """)
    write_source(module_dir / "edited_constant.py", """
        def f(x):
            return 5.0 * x
    """)
    with pytest.raises(srcad.StaleSourceError):
        srcad.autodiff(srcad.Reverse, m.f, srcad.Active(1.0))


def test_a_function_kept_from_before_a_reload_is_refused_when_its_text_changed(module_dir):
    m = import_source(module_dir, "reloaded_model", """
        def helper(x):
            return x * x

        def f(x):
            return helper(x) + 1.0
    """)
    old_f = m.f
    assert srcad.autodiff(srcad.Reverse, old_f, srcad.Active(3.0)) == (6.0,)
    write_source(module_dir / "reloaded_model.py", """
        def helper(x):
            return x * x * x

        def f(x):
            return 2.0 * helper(x)
    """)
    importlib.reload(m)
    # old_f runs its own text with the reloaded helper: x**3 + 1; its file now says 2 x**3
    assert old_f(3.0) == 28.0
    with pytest.raises(srcad.StaleSourceError, match="the source of f in reloaded_model.py"):
        srcad.autodiff(srcad.Reverse, old_f, srcad.Active(3.0))
    with pytest.raises(srcad.StaleSourceError):
        srcad.autodiff(srcad.Forward, old_f, srcad.Duplicated(3.0, 1.0))
    # the reloaded function is differentiated as written: 6 x**2 at 3
    assert srcad.autodiff(srcad.Reverse, m.f, srcad.Active(3.0)) == (54.0,)


def test_a_function_kept_from_before_a_reload_runs_the_reloaded_helper(module_dir):
    m = import_source(module_dir, "reloaded_helper", """
        def helper(x):
            return x * x

        def f(x):
            return helper(x) + 1.0
    """)
    old_f = m.f
    assert srcad.autodiff(srcad.Reverse, old_f, srcad.Active(3.0)) == (6.0,)
    write_source(module_dir / "reloaded_helper.py", """
        def helper(x):
            return x * x * x

        def f(x):
            return helper(x) + 1.0
    """)
    importlib.reload(m)
    # f's text is unchanged, so old_f is what the file says; it calls the new helper: 3 x**2
    assert srcad.autodiff(srcad.Reverse, old_f, srcad.Active(3.0)) == (27.0,)
    assert srcad.autodiff(srcad.Forward, old_f, srcad.Duplicated(3.0, 1.0)) == 27.0


def test_a_helper_reached_through_a_reloaded_module_gives_the_new_derivative(module_dir):
    helpers = import_source(module_dir, "attribute_helpers", """
        def square(x):
            return x * x
    """)
    m = import_source(module_dir, "uses_attribute", """
        import attribute_helpers

        def f(x):
            return attribute_helpers.square(x) + x
    """)
    for _ in range(2):
        assert srcad.autodiff(srcad.Reverse, m.f, srcad.Active(3.0)) == (7.0,)
    write_source(module_dir / "attribute_helpers.py", """
        def square(x):
            return x * x * x
    """)
    importlib.reload(helpers)
    assert m.f(3.0) == 30.0  # f now runs the reloaded helper: 3 x**2 + 1
    assert srcad.autodiff(srcad.Reverse, m.f, srcad.Active(3.0)) == (28.0,)
    assert srcad.autodiff(srcad.Forward, m.f, srcad.Duplicated(3.0, 1.0)) == 28.0


def test_an_inlined_helper_edited_in_its_own_file_is_refused(module_dir):
    import_source(module_dir, "edited_helpers", """
        def helper(x):
            return x * x
    """)
    m = import_source(module_dir, "uses_helper", """
        from edited_helpers import helper

        def f(x):
            return helper(x) + x
    """)
    write_source(module_dir / "edited_helpers.py", """
        def helper(x):
            return x * x * x
    """)
    with pytest.raises(srcad.StaleSourceError) as info:
        srcad.autodiff(srcad.Reverse, m.f, srcad.Active(3.0))
    assert "the source of helper in edited_helpers.py changed" in str(info.value)
    assert info.value.filename.endswith("edited_helpers.py")


def test_an_edit_that_moves_the_function_is_refused(module_dir):
    m = import_source(module_dir, "moved_model", """
        def f(x):
            return x * x
    """)
    write_source(module_dir / "moved_model.py", """
        SCALE = 2.0


        def f(x):
            return x * x
    """)
    with pytest.raises(srcad.StaleSourceError):
        srcad.autodiff(srcad.Reverse, m.f, srcad.Active(3.0))


def test_a_stale_linecache_entry_is_refused():
    name = "<srcad test: registered source>"
    first = "def f(x):\n    return x * x\n"
    namespace = {}
    linecache.cache[name] = (len(first), None, first.splitlines(True), name)
    try:
        exec(compile(first, name, "exec"), namespace)
        assert srcad.autodiff(srcad.Reverse, namespace["f"], srcad.Active(3.0)) == (6.0,)
        second = "def f(x):\n    return x * x * x\n"
        linecache.cache[name] = (len(second), None, second.splitlines(True), name)
        cache.clear()
        with pytest.raises(srcad.StaleSourceError):
            srcad.autodiff(srcad.Reverse, namespace["f"], srcad.Active(3.0))
    finally:
        del linecache.cache[name]
        cache.clear()


def test_reloading_after_the_refusal_differentiates_the_new_code(module_dir):
    m = import_source(module_dir, "fixed_by_reload", """
        def f(x):
            return x * x
    """)
    write_source(module_dir / "fixed_by_reload.py", """
        def f(x):
            return x * x * x
    """)
    with pytest.raises(srcad.StaleSourceError):
        srcad.autodiff(srcad.Reverse, m.f, srcad.Active(3.0))
    importlib.reload(m)
    assert srcad.autodiff(srcad.Reverse, m.f, srcad.Active(3.0)) == (27.0,)


# -- no false alarms: what compiles differently from a bare `def` at module level ------------
def _decorate(scale):
    def decorator(func):
        @functools.wraps(func)
        def wrapper(*args):
            return scale * func(*args)
        return wrapper
    return decorator


def test_no_false_alarm_on_decorators_defaults_closures_and_futures(module_dir):
    m = import_source(module_dir, "unchanged_shapes", '''
        from __future__ import annotations

        import math
        import numpy
        import srcad

        np = numpy  # bound by assignment, not import: CPython compiles np.sin(x) differently


        def make(k):
            def scaled(x: float) -> float:
                """Multi-line docstring
                   indented like the code around it."""
                return k * math.sin(x)
            return scaled


        @srcad.reverse
        def decorated(x, y=2.0):
            return np.sin(x) * y


        class Holder:
            @staticmethod
            def method(x):
                __private = 3.0  # mangled to _Holder__private
                return __private * x
    ''')
    scaled = m.make(2.0)
    assert srcad.autodiff(srcad.Reverse, scaled, srcad.Active(0.5))[0] == pytest.approx(
        2.0 * math.cos(0.5), rel=1e-15)
    assert m.decorated(srcad.Active(0.5)) == pytest.approx((2.0 * math.cos(0.5),), rel=1e-15)
    for func in (scaled, m.decorated.__srcad_wrapped__, m.Holder.method):
        check_source(func, *inspect.getsourcelines(func))


def with_an_assert(x):  # pytest rewrites this module's asserts
    assert x > 0.0
    return x * x


def test_no_false_alarm_on_a_function_whose_assert_pytest_rewrote():
    assert srcad.autodiff(srcad.Reverse, with_an_assert, srcad.Active(3.0)) == (6.0,)


def test_no_false_alarm_on_nested_and_decorated_functions_in_this_file():
    @_decorate(2.0)
    def twice(x):
        return x * x

    k = np.array([2.0])

    def closure(x):
        return k[0] * x * x

    for func in (twice, closure):
        target = inspect.unwrap(func)
        check_source(target, *inspect.getsourcelines(target))
    assert srcad.autodiff(srcad.Reverse, closure, srcad.Active(3.0)) == (12.0,)
