"""How refusals read: every refused construct of a function in one error, each with this file,
its line and column, what is refused and what to do instead; no internal names; a traceback
that ends at the user's call (srcad's own frames only with SRCAD_DEBUG=1).
"""

import functools
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import srcad
from srcad import Active, Duplicated, Reverse

THIS_FILE = os.path.basename(__file__)


def _line(f, offset):
    return f.__code__.co_firstlineno + offset


def several_problems(x):
    try:
        y = x * x
    except ValueError:
        y = x
    ys = [y, x]
    with open(os.devnull):
        y = y * 2.0
    return y + ys[int(x)]  # a variable index: the list cannot become variables


def test_every_refusal_of_a_function_in_one_error():
    with pytest.raises(srcad.UnsupportedSyntaxError) as info:
        srcad.autodiff(Reverse, several_problems, Active(1.0))
    err = info.value
    found = [(p.construct, p.line, p.column) for p in err.problems]
    assert found == [("try/except", _line(several_problems, 1), 5),
                     ("list", _line(several_problems, 5), 10),
                     ("with", _line(several_problems, 6), 5)]
    text = str(err)
    assert text.startswith(f"srcad refuses 3 constructs in several_problems ({THIS_FILE}):\n")
    for construct, line, column in found:
        assert f"{THIS_FILE}:{line}:{column}: {construct}: " in text
    assert text.count("(") >= 3  # each with its fix


# one function per refusal kind: (function, args, construct, line offset, column, words of fix)
def lambda_in_a_bool_op(x):
    return x > 0.0 and (lambda a: a * a)(x)


def nested_def_with_varargs_in_loop(x):
    s = 0.0
    for _ in range(2):
        def inner(*a):
            return a[0] * a[0]
        s += inner(x)
    return s


def local_function_renamed(x):
    def inner(a):
        return a * a
    again = inner
    return apply_twice(again, x)


def apply_twice(g, x):
    return g(g(x))


def list_kept(x):
    return [x * i for i in range(3)][1]


def reduction_in_while_condition(x):
    k = 0
    while k < sum(i for i in range(3)):
        k += 1
    return x * k


def list_appended(x):
    xs = [x, 2.0]
    if x > 0.0:
        xs.remove(2.0)  # removes by value: a comparison of floats
    return xs[0]


def list_appended_while_looped_over(x):
    xs = [x]
    for v in xs:  # a loop over the list it appends to
        if v < 4.0:
            xs.append(v * 2.0)
    return sum(xs)


def keyword_to_numpy(x):
    return sorted(x, reverse=True)[0]  # (axis=, keepdims= and dtype= are accepted)


def _helper(a, b=1.0):
    return a * b


def unknown_keyword(x):
    return _helper(x, c=2.0)


def missing_argument(x):
    return _helper(b=x)


def keyword_only_top(x, *, c):
    return x * c


KINDS = [
    (lambda_in_a_bool_op, (Active(1.0),), "lambda", 1, 25, "assign it to a name"),
    (nested_def_with_varargs_in_loop, (Active(1.0),), "nested function definition", 3, 9,
     "named parameters"),
    (local_function_renamed, (Active(1.0),), "local function", 3, 13, "call it directly"),
    (list_kept, (Active(1.0),), "list comprehension", 1, 12, "sum(...), max(...)"),
    (reduction_in_while_condition, (Active(1.0),), "generator expression", 2, 18,
     "statement of its own"),
    (list_appended, (Active(1.0),), "list", 1, 10, "otherwise use a NumPy array"),
    (list_appended_while_looped_over, (Active(1.0),), "list", 1, 10,
     "looped over without appending"),
    (keyword_to_numpy, (Duplicated(np.ones(3), np.zeros(3)),), "keyword arguments", 1, 12,
     "page Supported functions"),
    (unknown_keyword, (Active(1.0),), "call", 1, 12, "unexpected argument `c`"),
    (missing_argument, (Active(1.0),), "call", 1, 12, "missing the argument `a`"),
    (keyword_only_top, (Active(1.0), 2.0), "keyword-only arguments", 0, 1, "positional"),
]


@pytest.mark.parametrize("f, args, construct, offset, column, fix", KINDS,
                         ids=[k[0].__name__ for k in KINDS])
def test_refusal_names_file_line_column_and_fix(f, args, construct, offset, column, fix):
    with pytest.raises(srcad.SrcadError) as info:
        srcad.autodiff(Reverse, f, *args)
    err = info.value
    assert (err.construct, err.line) == (construct, _line(f, offset)), str(err)
    assert err.column == column, str(err)
    text = str(err)
    assert text.startswith(f"{__file__}:{err.line}:{column}: {construct}: "), text
    assert fix in text, text


def test_wrapper_of_a_user_decorator_is_refused_with_a_hint_to_the_undecorated_function():
    def logged(fn):
        @functools.wraps(fn)
        def wrapper(*args):
            return fn(*args)
        return wrapper

    @logged
    def square(x):
        return x * x

    with pytest.raises(srcad.SrcadError) as info:
        srcad.autodiff(Reverse, square, Active(3.0))
    assert "square.__wrapped__" in str(info.value)
    assert "variadic" in str(info.value)


def test_messages_name_expressions_not_tree_nodes():
    def sums_an_expression(x, y):
        return (x + y).conj()[0] * x[0]  # .conj has no rule (.sum would have one)
    with pytest.raises(srcad.UnsupportedCallError) as info:
        srcad.autodiff(Reverse, sums_an_expression, Duplicated(np.ones(2), np.zeros(2)),
                       Duplicated(np.ones(2), np.zeros(2)))
    assert "(x + y).conj" in str(info.value)
    assert "BinOp" not in str(info.value)


SCRIPT = textwrap.dedent("""
    import srcad

    def f(x):
        try:
            return x
        except ValueError:
            return x

    srcad.autodiff(srcad.Reverse, f, srcad.Active(1.0))
""")


@pytest.mark.parametrize("debug", ["", "1"])
def test_traceback_ends_at_the_users_call(tmp_path, debug):
    script = tmp_path / "user_script.py"
    script.write_text(SCRIPT)
    env = {**os.environ, "SRCAD_DEBUG": debug,
           "PYTHONPATH": os.path.dirname(os.path.dirname(srcad.__file__))}
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env)
    frames = [line for line in run.stderr.splitlines() if line.strip().startswith("File ")]
    assert "user_script.py:5:5: try/except" in run.stderr
    srcad_frames = [f for f in frames if "srcad" in f and "user_script" not in f]
    if debug:
        assert len(srcad_frames) > 3  # srcad's own frames, for debugging srcad
    else:
        assert len(srcad_frames) == 1 and "differentiate.py" in srcad_frames[0]  # autodiff
        assert "During handling" not in run.stderr


def test_a_cached_function_is_refused_with_a_hint_to_the_undecorated_function():
    """functools.lru_cache's wrapper is no plain function: srcad does not guess that it
    computes what it wraps, but says how to differentiate the wrapped function."""
    @functools.lru_cache(maxsize=None)
    def cached(x):
        return x * x

    with pytest.raises(srcad.SrcadError, match=r"cached\.__wrapped__"):
        srcad.autodiff(Reverse, cached, Active(3.0))
    assert srcad.autodiff(Reverse, cached.__wrapped__, Active(3.0)) == (6.0,)
