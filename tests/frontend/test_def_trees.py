"""A function's `def` tree is parsed once per code object while its file's text is unchanged
(srcad/frontend/def_trees.py): each parse hands out a tree of its own, and an edit to the file
after the first parse is still refused as stale text (as without the kept tree)."""

import inspect
import types

import pytest
from helpers.user_modules import import_source, write_source

import srcad
from srcad.build import cache
from srcad.frontend import parse
from srcad.frontend import syntax as S
from srcad.frontend.parse import parse_function


def test_each_parse_hands_out_its_own_tree(module_dir):
    m = import_source(module_dir, "kept_tree_model", """
        def f(x):
            return x * x + 1.0
    """)
    first, second = parse_function(m.f), parse_function(m.f)
    assert first.tree is not second.tree and S.same(first.tree, second.tree)
    first.tree.body[0].value.right.value = 7.0  # a pass rewriting its copy
    assert parse_function(m.f).tree.body[0].value.right.value == 1.0
    assert second.first_line == first.first_line == 2


def test_an_edit_after_the_first_parse_is_refused(module_dir):
    m = import_source(module_dir, "kept_tree_edited", """
        def f(x):
            return x * x
    """)
    assert srcad.autodiff(srcad.Reverse, m.f, srcad.Active(3.0)) == (6.0,)
    write_source(module_dir / "kept_tree_edited.py", """
        def f(x):
            return x * x * x * x
    """)
    cache.clear()
    with pytest.raises(srcad.StaleSourceError):
        srcad.autodiff(srcad.Reverse, m.f, srcad.Active(3.0))


def test_the_text_is_found_without_searching_every_loaded_module(module_dir, monkeypatch):
    # inspect finds a code object's module by a realpath of every loaded module's file (some
    # 30 ms the first time in a process); a function's module is its __module__
    m = import_source(module_dir, "found_by_module", """
        def helper(x):
            return x * 2.0

        def f(x):
            return helper(x) + x
    """)
    asked = []
    real = inspect.getmodule
    monkeypatch.setattr(inspect, "getmodule", lambda obj, filename=None: (
        asked.append(obj), real(obj, filename))[1])
    assert srcad.autodiff(srcad.Reverse, m.f, srcad.Active(3.0)) == (3.0,)
    assert asked and not [obj for obj in asked if isinstance(obj, types.CodeType)]


def test_a_helper_is_read_once_per_build(module_dir, monkeypatch):
    # the inliner, the list lowering and the recursion check each parsed the helper again
    m = import_source(module_dir, "read_once_model", """
        def helper(x, k):
            return [x * k, x + k]

        def f(x):
            a = helper(x, 2.0)
            b = helper(x, 3.0)
            return a[0] * b[1] + helper(x, 1.0)[0]
    """)
    read = []
    real = parse.def_tree
    monkeypatch.setattr(parse, "def_tree", lambda func, filename: (
        read.append(func.__name__), real(func, filename))[1])
    # f = 2x (x + 3) + x: 4x + 7
    assert srcad.autodiff(srcad.Reverse, m.f, srcad.Active(1.5)) == (13.0,)
    assert sorted(read) == ["f", "helper"]
