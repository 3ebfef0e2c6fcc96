"""Every construct srcad refuses in a function is reported in one error, whatever stage refuses
it (the syntax check, argument kinds, the type inference's checks, calls without a rule, calls
for their effect, the array checks), in source order, each with file, line, column and fix; a
function with one refusal gets the very message it always got; a construct already refused is
not reported again through what it feeds.
"""

import os
import subprocess
import sys
import textwrap

import gast
import numpy as np
import pytest

import srcad
from srcad import Active, Duplicated, Forward, Reverse

THIS_FILE = os.path.basename(__file__)


def _line(f, offset):
    return f.__code__.co_firstlineno + offset


def dup(value):
    return Duplicated(value, np.zeros_like(value))


def four_stages(x, z, s):
    try:  # the syntax check
        w = x * 2.0
    except ValueError:
        w = x  # noqa: F841
    np.copyto(z, x)  # a call for its effect receives values that carry derivatives
    y = np.sum(np.unique(x))  # a call without a derivative rule on an active value
    return y + s * 2.0 + np.sum(x)  # s: a 0-d array


FOUR_STAGES = [  # (class, construct, line offset, column, words of the fix)
    (srcad.ArgumentError, "argument", 0, 1, "pass float(s)"),
    (srcad.UnsupportedSyntaxError, "try/except", 1, 5, "move the error handling outside"),
    (srcad.UnsupportedCallError, "call", 5, 5, "write the update as an assignment"),
    (srcad.UnsupportedCallError, "call", 6, 16, "page Supported functions, docs/functions.md"),
]


@pytest.mark.parametrize("mode", [Reverse, Forward])
def test_refusals_of_every_stage_in_one_error_in_source_order(mode):
    with pytest.raises(srcad.SrcadError) as info:
        srcad.autodiff(mode, four_stages, dup(np.ones(3)), dup(np.ones(3)), dup(np.array(2.0)))
    err = info.value
    found = [(type(p), p.construct, p.line, p.column) for p in err.problems]
    assert found == [(kind, construct, _line(four_stages, offset), column)
                     for kind, construct, offset, column, _ in FOUR_STAGES]
    text = str(err)
    assert text.startswith(f"srcad refuses 4 constructs in four_stages ({THIS_FILE}):\n")
    lines = text.splitlines()[1:]
    assert len(lines) == 4
    for line, (_, construct, offset, column, fix) in zip(lines, FOUR_STAGES):
        assert line.startswith(f"  {__file__}:{_line(four_stages, offset)}:{column}: "
                               f"{construct}: "), line
        assert fix in line, line
    assert "np.copyto(z, x)" in lines[2] and "unique" in lines[3]
    # the error stands for all of them: located at the first, of their common class
    assert (err.filename, err.line) == (__file__, _line(four_stages, 0))
    assert type(err) is srcad.SrcadError


def one_effect_call(x, z):
    np.copyto(z, x)
    return np.sum(x)


def test_one_refusal_keeps_its_own_message():
    with pytest.raises(srcad.UnsupportedCallError) as info:
        srcad.autodiff(Reverse, one_effect_call, dup(np.ones(3)), dup(np.ones(3)))
    err = info.value
    assert err.problems == [err]
    assert str(err) == (
        f"{__file__}:{_line(one_effect_call, 1)}:5: call: `np.copyto(z, x)` is called for its "
        "effect and receives `z`, which carries a derivative: srcad cannot see what the call "
        "writes (write the update as an assignment (`z[:] = x`, `z[i] += v`), or make the "
        "call on constants only)")


def two_of_each(x, z, u):
    np.copyto(z, x)
    a = np.unique(x)
    u.fill(x[0])
    b = np.unique(x * 2.0)
    return np.sum(a) + np.sum(b)


def test_one_check_reports_every_statement_it_refuses():
    with pytest.raises(srcad.UnsupportedCallError) as info:
        srcad.autodiff(Reverse, two_of_each, dup(np.ones(3)), dup(np.ones(3)),
                       dup(np.ones(3)))
    found = [(p.line, p.column) for p in info.value.problems]
    assert found == [(_line(two_of_each, 1), 5), (_line(two_of_each, 2), 9),
                     (_line(two_of_each, 3), 5), (_line(two_of_each, 4), 9)]
    assert str(info.value).startswith("srcad refuses 4 constructs in two_of_each")


def refused_values_used_later(x):
    import math
    y = math.sin(x)  # `math` is the refused import's: not reported again
    d = {"a": x}
    z = d["a"] * x  # reads the refused dict: not an opaque value of its own
    if z > 0.0:
        y = y * z
    return y


def test_what_a_refused_construct_feeds_is_not_reported_again():
    with pytest.raises(srcad.UnsupportedSyntaxError) as info:
        srcad.autodiff(Reverse, refused_values_used_later, Active(1.0))
    found = [(p.construct, p.line) for p in info.value.problems]
    assert found == [("import", _line(refused_values_used_later, 1)),
                     ("dict", _line(refused_values_used_later, 3))]


def try_and_with_around_the_work(x, z):
    try:
        y = np.unique(x) * 2.0
    except ValueError:
        y = x
    with open(os.devnull):
        np.copyto(z, y)
    return np.sum(y)


def test_code_inside_a_refused_try_or_with_is_still_checked():
    """What is left when the fix is made (the body of the with) is checked; a try whose
    guarded code carries a derivative is refused at its line (it runs as it is on
    constants: tests/objects/test_constant_blocks.py)."""
    with pytest.raises(srcad.SrcadError) as info:
        srcad.autodiff(Reverse, try_and_with_around_the_work, dup(np.ones(3)), dup(np.ones(3)))
    found = [(p.construct, p.line, p.column) for p in info.value.problems]
    f = try_and_with_around_the_work
    assert found == [("try/except", _line(f, 1), 5), ("with", _line(f, 5), 5),
                     ("call", _line(f, 6), 9)]
    assert "carries a derivative" in str(info.value.problems[0])
    assert "np.copyto(z, y)" in str(info.value.problems[2])


def syntax_then_view(x, flag):
    a = x.copy()
    b = np.zeros(3)
    s = {"k": 1.0}  # noqa: F841 (the syntax check goes on ...)
    if flag > 0:
        v = a
    else:
        v = b
    v[0] = x[1] * 2.0  # ... to the view srcad cannot resolve, set aside ...
    return np.sum(a * b) + np.sum(np.unique(x))  # ... and to the checks after it


def test_the_checks_go_on_after_a_view_srcad_cannot_resolve():
    with pytest.raises(srcad.SrcadError) as info:
        srcad.autodiff(Reverse, syntax_then_view, dup(np.ones(3)), 1.0)
    found = [(p.construct, p.line) for p in info.value.problems]
    assert found == [("dict", _line(syntax_then_view, 3)),
                     ("write through a view", _line(syntax_then_view, 8)),
                     ("call", _line(syntax_then_view, 9))]


SCRIPT = textwrap.dedent("""
    import numpy as np
    import srcad

    def f(x, z):
        del z
        np.copyto(x, x * 2.0)
        return np.sum(x)

    srcad.autodiff(srcad.Reverse, f, srcad.Duplicated(np.ones(2), np.zeros(2)), 1.0)
""")


def test_traceback_of_several_refusals_ends_at_the_users_call(tmp_path):
    script = tmp_path / "user_script.py"
    script.write_text(SCRIPT)
    env = {**os.environ, "SRCAD_DEBUG": "",
           "PYTHONPATH": os.path.dirname(os.path.dirname(srcad.__file__))}
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env)
    assert "srcad refuses 2 constructs in f (user_script.py):" in run.stderr
    assert "user_script.py:6:5: del: " in run.stderr
    assert "user_script.py:7:5: call: `np.copyto(x, x * 2.0)`" in run.stderr
    frames = [line for line in run.stderr.splitlines() if line.strip().startswith("File ")]
    srcad_frames = [f for f in frames if "srcad" in f and "user_script" not in f]
    assert len(srcad_frames) == 1 and "differentiate.py" in srcad_frames[0]
    assert "During handling" not in run.stderr


# -- refusals in code srcad made ------------------------------------------------------------
def _pair_or_one(v):
    if v > 0.0:
        return v, 2.0 * v
    return v  # a float where the caller unpacks two values


def syntax_then_made_code(x, y):
    try:
        w = x * 2.0
    except ValueError:
        w = x  # noqa: F841
    a, b = _pair_or_one(x)  # the inlined helper's returns are rewritten: refused there
    u = np.sum(np.unique(y))  # a call without a rule: checked after it
    return a * b + u


def test_a_refusal_in_an_inlined_helpers_rewritten_code_is_collected():
    with pytest.raises(srcad.SrcadError) as info:
        srcad.autodiff(Reverse, syntax_then_made_code, Active(1.0), dup(np.ones(3)))
    err = info.value
    found = [(p.construct, p.filename, p.line) for p in err.problems]
    here = os.path.abspath(__file__)
    assert found == [("return", here, _line(_pair_or_one, 3)),
                     ("try/except", here, _line(syntax_then_made_code, 1)),
                     ("call", here, _line(syntax_then_made_code, 6))], str(err)
    text = str(err)
    assert "_pair_or_one returns 2 values on one path and not on this one" in text
    assert f"called from syntax_then_made_code at line {_line(syntax_then_made_code, 5)}" \
        in text
    assert "return the same number of values on every path" in text


def test_a_stage_refusing_code_it_made_sets_aside_the_statement_it_was_made_from():
    # a stage that rewrites each statement into new code (as inlining does) and refuses the
    # new code made from `refused()` calls: each refusal recorded, the checks go on
    from srcad.frontend import syntax as S
    from srcad.frontend.parse import parse_function
    from srcad.frontend.refusals import Refusals
    from srcad.frontend.refused_code import without_refused

    parsed = parse_function(made_code_source)
    refusals = Refusals(parsed.name, parsed.filename)

    def stage(body):
        made = [S.clone(stmt) for stmt in body]  # new nodes, at their statements' lines
        for stmt in made:
            if any(isinstance(n, gast.Call) and getattr(n.func, "id", "") == "refused"
                   for n in gast.walk(stmt)):
                raise parsed.error(stmt, "made", "refused in made code")
        return made

    kept = without_refused(S.clone(parsed.tree.body), stage, refusals, parsed)
    assert [(p.construct, p.line) for p in refusals.problems] == [
        ("made", _line(made_code_source, 1)), ("made", _line(made_code_source, 3))]
    assert [S.unparse_expr(s.value) for s in kept] == ["x + 1.0"]  # b reads a: set aside too


def refused(v):
    return v


def made_code_source(x):
    a = refused(x)
    b = a * 2.0  # noqa: F841
    c = refused(x) + 1.0  # noqa: F841
    return x + 1.0
