"""The refusals met while inlining the user's helpers and while inferring types are collected
like the others: each is reported once, in source order, with file, line, column and fix; the
statement holding it is set aside with what reads its values, and the checks go on with the
rest, so what only follows from a refused construct is not reported. A refusal in a helper
names the helper's file and line and says where the helper is called from.
"""

import math
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import srcad
from srcad import Active, Duplicated, Forward, Reverse

THIS_FILE = os.path.basename(__file__)


def _line(f, offset):
    return f.__code__.co_firstlineno + offset


def dup(value):
    return Duplicated(value, np.zeros_like(value))


def keeps_a_dict(v):
    d = {"a": v}
    return d["a"] * 2.0


def four_independent_problems(x, y):
    a = x[...]  # the type inference: an ellipsis index
    b = a * 2.0  # reads `a`: set aside, not an opaque value of its own
    s = np.unique(a)  # reads `a`: not a call without a rule on a value with a derivative
    u = keeps_a_dict(y[0])  # the helper's dict
    w = np.unique(u * y)  # reads `u`: not reported
    c = math.exp(y)  # the type inference: a function of numbers given an array
    t = np.unique(c)  # reads `c`: not reported
    v = np.unique(x)  # a check after the type inference: still made
    return np.sum(b) + np.sum(s) + np.sum(w) + np.sum(t) + np.sum(v)


PROBLEMS = [  # (class, construct, file's function, line offset, column, words of the fix)
    (srcad.UnsupportedSyntaxError, "dict", keeps_a_dict, 1, 9, "use separate variables"),
    (srcad.UnsupportedSyntaxError, "array index", four_independent_problems, 1, 9,
     "write the slices out"),
    (srcad.UnsupportedSyntaxError, "call", four_independent_problems, 6, 9,
     "one element at a time in a loop"),
    (srcad.UnsupportedCallError, "call", four_independent_problems, 8, 9,
     "page Supported functions, docs/functions.md"),
]


@pytest.mark.parametrize("mode", [Reverse, Forward])
def test_inlining_and_type_refusals_are_collected_each_once_in_source_order(mode):
    with pytest.raises(srcad.SrcadError) as info:
        srcad.autodiff(mode, four_independent_problems, dup(np.ones(3)), dup(np.ones(3)))
    err = info.value
    found = [(type(p), p.construct, p.line, p.column) for p in err.problems]
    assert found == [(kind, construct, _line(f, offset), column)
                     for kind, construct, f, offset, column, _ in PROBLEMS]
    text = str(err)
    assert text.startswith(f"srcad refuses 4 constructs in four_independent_problems "
                           f"({THIS_FILE}):\n")
    lines = text.splitlines()[1:]
    assert len(lines) == 4  # nothing that reads a refused value
    for line, (_, construct, f, offset, column, fix) in zip(lines, PROBLEMS):
        assert line.startswith(f"  {__file__}:{_line(f, offset)}:{column}: {construct}: "), line
        assert fix in line, line
    call_line = _line(four_independent_problems, 4)
    assert lines[0].endswith("; in keeps_a_dict, called from four_independent_problems at "
                             f"line {call_line} (use separate variables or a NumPy array)")
    assert "`x[...]` indexes with an ellipsis" in lines[1]
    assert "`math.exp(y)` passes it an array" in lines[2]
    assert "`unique`" in lines[3] and lines[3].count("unique") == 1
    assert type(err) is srcad.SrcadError


def exp_of_an_array(x):
    return np.sum(math.exp(x))


def test_one_type_refusal_keeps_its_own_message():
    with pytest.raises(srcad.UnsupportedSyntaxError) as info:
        srcad.autodiff(Reverse, exp_of_an_array, dup(np.ones(3)))
    err = info.value
    assert err.problems == [err]
    assert str(err) == (
        f"{__file__}:{_line(exp_of_an_array, 1)}:19: call: `exp` takes numbers, and "
        "`math.exp(x)` passes it an array (apply it to one element at a time in a loop (x[i]))")


def inner_dict(v):
    d = {"a": v}
    return d["a"]


def outer_helper(v):
    return inner_dict(v) * 2.0


def helper_called_twice(x):
    a = outer_helper(x)
    b = outer_helper(x * 2.0)
    return a + b + x[...]


def test_a_helper_refused_at_two_calls_is_reported_once_with_its_call_chain():
    with pytest.raises(srcad.UnsupportedSyntaxError) as info:
        srcad.autodiff(Reverse, helper_called_twice, Active(1.0))
    err = info.value
    # the returned sum keeps its clean term `x[...]` (a float indexed): reported too
    assert [(p.construct, p.line, p.column) for p in err.problems] == [
        ("dict", _line(inner_dict, 1), 9), ("opaque value", _line(helper_called_twice, 3), 20)]
    assert str(err.problems[0]) == (
        f"{__file__}:{_line(inner_dict, 1)}:9: dict: not supported by srcad; in inner_dict, "
        f"called from outer_helper at line {_line(outer_helper, 1)}, from helper_called_twice "
        f"at line {_line(helper_called_twice, 1)} (use separate variables or a NumPy array)")


def _scaled(v, k):
    return v * k


def refused_calls_in_a_loop(x, n):
    s = 0.0
    for i in range(n):
        s = s + _scaled(x, k=2.0, j=i)  # refused at the call: an unexpected keyword
        t = x[..., 0]
        s = s + t
    r = math.exp(x)
    return s + np.sum(r)


def test_refusals_in_a_loop_body_and_after_it():
    with pytest.raises(srcad.UnsupportedSyntaxError) as info:
        srcad.autodiff(Reverse, refused_calls_in_a_loop, dup(np.ones((3, 2))), 2)
    f = refused_calls_in_a_loop
    assert [(p.construct, p.line, p.column) for p in info.value.problems] == [
        ("call", _line(f, 3), 17), ("array index", _line(f, 4), 13), ("call", _line(f, 6), 9)]
    assert "unexpected argument `j`" in str(info.value.problems[0])


def _double(v):
    return v * 2.0


def loops_refused_whole(x, a):
    k = 0
    while _double(a) > k:  # refused at the call: the loop goes, and what reads `k`
        k += 1
    s = 0.0
    for v in x * 2.0:  # refused by the loop rewriting: set aside whole
        s = s + np.unique(v)
    t = math.exp(x)
    return s + k + np.sum(t)


def test_loops_refused_whole_are_set_aside_and_the_checks_go_on():
    with pytest.raises(srcad.UnsupportedSyntaxError) as info:
        srcad.autodiff(Reverse, loops_refused_whole, dup(np.ones(3)), Active(1.0))
    f = loops_refused_whole
    assert [(p.construct, p.line, p.column) for p in info.value.problems] == [
        ("call in while condition", _line(f, 2), 11), ("for", _line(f, 5), 5),
        ("call", _line(f, 7), 9)]


def tuple_on_every_path(x, y):
    if x[0] > 0.0:
        return x[0], y[0]
    r = keeps_a_dict(y[1])
    q = math.exp(x)
    return r, q


def test_a_return_set_aside_is_not_reported_as_a_missing_one():
    """Without the last return (it reads refused values) the function would fall off its
    end on one path: not a refusal of the code as written."""
    with pytest.raises(srcad.UnsupportedSyntaxError) as info:
        srcad.autodiff(Reverse, tuple_on_every_path, dup(np.ones(3)), dup(np.ones(3)))
    assert [(p.construct, p.line) for p in info.value.problems] == [
        ("dict", _line(keeps_a_dict, 1)), ("call", _line(tuple_on_every_path, 4))]


def _square(v):
    return v * v


def nested_calls_refused(x, a):
    d = srcad.grad(_square, has_aux=True)(a)
    h = srcad.hessian(_square)  # noqa: F841
    t = math.exp(x)
    return d + a * np.sum(t)


def test_refused_nested_srcad_calls_are_collected_with_the_rest():
    with pytest.raises(srcad.SrcadError) as info:
        srcad.autodiff(Reverse, nested_calls_refused, dup(np.ones(3)), Active(1.0))
    f = nested_calls_refused
    assert [(p.construct, p.line, p.column) for p in info.value.problems] == [
        ("srcad.grad", _line(f, 1), 9), ("srcad.hessian", _line(f, 2), 9),
        ("call", _line(f, 3), 9)]


HELPERS = textwrap.dedent("""
    def with_try(v):
        try:
            return v * 2.0
        except ValueError:
            return v
""")

SCRIPT = textwrap.dedent("""
    import math
    import numpy as np
    import srcad
    from helpers_module import with_try

    def f(x, y):
        a = with_try(y[0])
        b = x[...]
        return a + np.sum(b) + math.exp(y)

    srcad.autodiff(srcad.Reverse, f, srcad.Duplicated(np.ones(2), np.zeros(2)),
                   srcad.Duplicated(np.ones(2), np.zeros(2)))
""")


def test_a_helper_in_another_file_is_reported_there_after_the_functions_own(tmp_path):
    """...and the traceback still ends at the user's call."""
    (tmp_path / "helpers_module.py").write_text(HELPERS)
    (tmp_path / "user_script.py").write_text(SCRIPT)
    env = {**os.environ, "SRCAD_DEBUG": "", "PYTHONPATH": os.pathsep.join(
        [str(tmp_path), os.path.dirname(os.path.dirname(srcad.__file__))])}
    run = subprocess.run([sys.executable, str(tmp_path / "user_script.py")],
                         capture_output=True, text=True, env=env)
    listing = [line.strip() for line in run.stderr.splitlines() if line.startswith("  /")]
    assert "srcad refuses 3 constructs in f (user_script.py):" in run.stderr, run.stderr
    assert listing[0].endswith("user_script.py:9:9: array index: `x[...]` indexes with an "
                               "ellipsis (write the slices out: x[:, 0] for x[..., 0])")
    # math.exp(y): a term of the returned sum that does not read the helper's result
    assert "user_script.py:10:28: call: `exp` takes numbers" in listing[1]
    assert listing[2].endswith("helpers_module.py:3:5: try/except: not supported by srcad; in "
                               "with_try, called from f at user_script.py:8 (move the error "
                               "handling outside the differentiated function)")
    assert len(listing) == 3
    frames = [line for line in run.stderr.splitlines() if line.strip().startswith("File ")]
    srcad_frames = [f for f in frames if "srcad" in f and "user_script" not in f]
    assert len(srcad_frames) == 1 and "differentiate.py" in srcad_frames[0]
    assert "During handling" not in run.stderr
