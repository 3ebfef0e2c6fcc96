"""Hostile inputs (issue 6): srcad either refuses with a clear `srcad.SrcadError` (naming the
file, the line where there is one, what is refused and what to do instead) or returns a correct
result. It never lets a non-SrcadError exception escape from its own code and never returns a
wrong result. Const inputs are never modified by generated code, and inputs are modified only
when the primal function itself modifies them.

Complements tests/frontend/test_refusals.py (which covers try, with, generators, nested def, global,
np.linalg.det in reverse, time.time, local recursion, *args, lambdas, bound methods by name,
Active(3), Active(array), wrong shadow shapes and integer Duplicated arrays in reverse mode).
"""

import asyncio  # noqa: F401  (referenced by the async function below)
import cmath
import dataclasses
import fractions
import functools
import math
import os
import random
import re
import traceback
import warnings

import numpy as np
import pytest

import srcad
from srcad import (
    Active,
    BatchDuplicated,
    Cache,
    Constant,
    Duplicated,
    Forward,
    ForwardWithPrimal,
    Output,
    Reverse,
    ReverseWithPrimal,
)
from srcad.testing import check_grads

THIS_FILE = os.path.basename(__file__)
SRCAD_DIR = os.path.dirname(srcad.__file__)

try:
    import numba  # noqa: F401
    HAVE_NUMBA = True
except ImportError:  # pragma: no cover
    HAVE_NUMBA = False

needs_numba = pytest.mark.skipif(not HAVE_NUMBA, reason="numba is not importable")


# --- helpers ----------------------------------------------------------------------------------

def _fail_foreign(err):
    tb = "".join(traceback.format_exception(type(err), err, err.__traceback__))
    pytest.fail(f"non-SrcadError escaped from srcad: {type(err).__name__}: {err}\n{tb}")


def refused(call, *words, filename=THIS_FILE, line=None, hint=True, kind=srcad.SrcadError,
            with_line=True):
    """`call()` must raise a SrcadError (of `kind`) whose text names `filename` (with a line
    number when `with_line`), contains every word of `words` (case-insensitive) and, when
    `hint`, says what to do instead (the hint in parentheses). Returns the error."""
    try:
        call()
    except srcad.SrcadError as err:
        text = str(err)
        assert isinstance(err, kind), f"expected {kind.__name__}, got {type(err).__name__}: {text}"
        for word in words:
            assert word.lower() in text.lower(), f"{word!r} not in {text!r}"
        if filename is not None:
            pattern = re.escape(filename) + (r":\d+" if with_line else "")
            assert re.search(pattern, text), f"file:line ({filename}) not in {text!r}"
        if line is not None:
            assert err.line == line, f"line {err.line} != {line}: {text}"
        if hint:
            assert err.hint, f"no hint (what to do instead) in {text!r}"
            assert text.endswith(")"), text
        return err
    except Exception as err:  # noqa: BLE001
        _fail_foreign(err)
    pytest.fail("expected a SrcadError, got a result")


def outcome(call):
    """Run `call()`: returns ("ok", result) or ("refused", err). Any other exception fails."""
    try:
        return "ok", call()
    except srcad.SrcadError as err:
        assert str(err), "empty error message"
        return "refused", err
    except Exception as err:  # noqa: BLE001
        _fail_foreign(err)


def answered(call, check=lambda result: None):
    """A case that must be answered: `call()` returns (no refusal) a result satisfying `check`
    (which asserts, or returns False for a wrong result). Returns the result."""
    status, result = outcome(call)
    assert status == "ok", f"a case that must be answered was refused: {result}"
    verdict = check(result)
    assert verdict is not False, f"wrong result: {result!r}"
    return result


@dataclasses.dataclass(frozen=True)
class Refusal:
    """The intended behaviour is a refusal documented in docs/when_srcad_refuses.md ("What srcad
    refuses"); its message contains `words`."""

    words: tuple = ()
    filename: str | None = THIS_FILE

    def check(self, call):
        return refused(call, *self.words, filename=self.filename, hint=False)


def answered_or_documented_refusal(call, expected, check):
    """`expected` is a Refusal (then `call()` must be refused, with its words) or the answer
    (then `check(result, expected)` must hold)."""
    if isinstance(expected, Refusal):
        return expected.check(call)
    return answered(call, lambda result: check(result, expected))


def first_line(f):
    return f.__code__.co_firstlineno


# --- plain functions used below ---------------------------------------------------------------

def square(x):
    return x * x


def square_sum(x):
    s = 0.0
    for i in range(len(x)):
        s += x[i] * x[i]
    return s


def weighted_square_sum(x, a):
    s = 0.0
    for i in range(len(x)):
        s += a[i] * x[i] * x[i]
    return s


def squares_into(y, x):
    for i in range(len(x)):
        y[i] = x[i] * x[i]


def squares_out(x):
    y = np.zeros(len(x))
    for i in range(len(x)):
        y[i] = x[i] * x[i]
    return y


def mat_sum_weighted(x):
    s = 0.0
    for i in range(x.shape[0]):
        for j in range(x.shape[1]):
            s += (i + 1.0) * (j + 2.0) * x[i, j] * x[i, j]
    return s


def log_of(x):
    return math.log(x)


def sqrt_of(x):
    return math.sqrt(x)


def product(x, y):
    return x * y


# --- functions with no source -----------------------------------------------------------------

def _exec_lambda():
    ns = {}
    exec("f = lambda x: x * x", ns)  # noqa: S102
    return ns["f"]


def _exec_def():
    ns = {}
    exec("def typed_at_prompt(x):\n    return x * x\n", ns)  # noqa: S102
    return ns["typed_at_prompt"]


class Model:
    def __init__(self, x):
        self.x = x

    def energy(self, x):
        return x * x

    @classmethod
    def class_energy(cls, x):
        return x * x

    @staticmethod
    def static_energy(x):
        return x * x


class CallableObject:
    def __call__(self, x):
        return x * x


@dataclasses.dataclass
class CallableDataclass:
    """A dataclass with __eq__ is unhashable (its __hash__ is None)."""

    scale: float = 2.0

    def __call__(self, x):
        return self.scale * x * x


def _scaled_square(x, scale):
    return scale * x * x


NO_SOURCE = [
    ("lambda-exec", _exec_lambda, "<string>"),
    ("def-exec", _exec_def, "<string>"),
    ("math.sin", lambda: math.sin, None),
    ("len", lambda: len, None),
    ("np.add", lambda: np.add, None),
    ("np.sin", lambda: np.sin, None),
    ("partial", lambda: functools.partial(math.pow, 2.0), None),  # of a C function
    ("classmethod", lambda: Model.class_energy, None),
    ("class", lambda: Model, None),
    ("callable-object", lambda: CallableObject(), None),
    ("callable-dataclass", lambda: CallableDataclass(), None),
]


@pytest.mark.parametrize("name, make, filename", NO_SOURCE, ids=[n for n, _, _ in NO_SOURCE])
@pytest.mark.parametrize("mode", [Reverse, Forward], ids=["rev", "fwd"])
def test_function_without_source_is_refused_with_a_hint(name, make, filename, mode):
    """Builtins, C functions, partials, methods, classes and callable instances have no
    differentiable Python source (or not the source of a plain function): a SrcadError that
    says what was given and suggests a plain `def`. Exec'd code has the file name `<string>`."""
    f = make()
    arg = Active(2.0) if mode is Reverse else Duplicated(2.0, 1.0)
    refused(lambda: srcad.autodiff(mode, f, arg), filename=filename, with_line=False)


def test_bound_method_is_differentiated_with_respect_to_its_arguments():
    """A bound method's source is the function; its self is a constant (tests/objects)."""
    assert srcad.autodiff(Reverse, Model(1.0).energy, Active(2.0)) == (4.0,)


def test_function_typed_at_prompt_refusal_names_its_line():
    """exec'd code has a file (`<string>`) and a line (co_firstlineno = 1): both are named."""
    f = _exec_def()
    refused(lambda: srcad.autodiff(Reverse, f, Active(2.0)), "source", filename="<string>",
            line=1)


def test_staticmethod_is_a_plain_function_and_works():
    """A staticmethod looked up on the class is a plain function with source: it works."""
    assert srcad.autodiff(Reverse, Model.static_energy, Active(3.0)) == (6.0,)


def test_function_without_source_is_refused_by_operators():
    refused(lambda: srcad.gradient(math.sin, 1.0), filename=None)
    refused(lambda: srcad.gradient(_exec_def(), 1.0), filename="<string>", with_line=False)
    refused(lambda: srcad.gradient(functools.partial(math.pow, 2.0), 1.0), filename=None)


def test_partial_of_a_plain_function_works_with_the_operators():
    """scale * x * x with scale bound to 2: the gradient at 1.5 is 4 * 1.5."""
    assert srcad.gradient(functools.partial(_scaled_square, scale=2.0), 1.5) == 6.0


@pytest.mark.parametrize("op", ["gradient", "derivative", "hvp", "second_derivative"])
def test_unhashable_callable_is_refused_by_operators(op):
    """A dataclass instance with __call__ is unhashable: refused, not a TypeError from the
    cache."""
    f = CallableDataclass()
    calls = {"gradient": lambda: srcad.gradient(f, 1.0),
             "derivative": lambda: srcad.derivative(f, 1.0),
             "hvp": lambda: srcad.hvp(f, 1.0, tangent=1.0),
             "second_derivative": lambda: srcad.second_derivative(f, 1.0)}
    refused(calls[op], filename=None)


def test_source_of_function_without_source_is_refused():
    refused(lambda: srcad.source(len, Reverse, Active(1.0)), filename=None)


def test_decorated_exec_function_is_refused():
    """A decorated function typed at a prompt: the decorator is fine, the refusal is for the
    missing source, not a traceback."""
    f = srcad.reverse(_exec_def())
    assert f(3.0) == 9.0
    refused(lambda: f(Active(3.0)), "source", filename="<string>", with_line=False)


# --- unsupported constructs not covered by test_refusals.py ------------------------------------

async def async_square(x):
    return x * x


async def async_gen(x):
    yield x * x


def mutual_a(x, n):
    if n <= 0:
        return x
    return mutual_b(x * x, n - 1)


def mutual_b(x, n):
    return mutual_a(x + 1.0, n)


def defines_class(x):
    class Local:
        pass
    return x * x


def calls_method_of_global_object(x):
    return MODEL.energy(x)


MODEL = Model(2.0)


def reads_attribute_of_unknown_object(x):
    return MODEL.x * x


def uses_try_finally(x):
    try:
        y = x * x
    finally:
        y = x
    return y


def make_nonlocal():
    total = 0.0

    def uses_nonlocal(x):
        nonlocal total
        total = x
        return x * x
    return uses_nonlocal


def yields_from(x):
    yield from (x, x)


def kwargs_only(**kwargs):
    return kwargs["x"] * 2.0


def keyword_only(x, *, scale):
    return scale * x * x


def keyword_only_default(x, *, scale=2.0):
    return scale * x * x


def positional_only(x, /):
    return x * x


def has_default(x, scale=2.0):
    return scale * x * x


def calls_random(x):
    return x * random.random()


def calls_print(x):
    print(x)
    return x * x


def calls_cmath(x):
    return cmath.sqrt(x).real


def calls_math_nextafter(x):
    return math.nextafter(x, 2.0)


def calls_np_add(x):
    return np.add(x, x)


def calls_np_sum(x):
    return np.sum(x)


def transposes(x):
    y = x.T
    return y[0, 0]


def real_part(x):
    return x.real * 2.0


def imag_part(x):
    return x.imag


def scales_whole_array(x):
    y = x * 2.0
    return y[0]


def slices(x):
    y = x[1:3]
    return y[0] * y[1]


def list_literal(x):
    v = [x, x * x]
    for _ in range(2):  # another name bound in a loop (`w = v` in v's block is supported)
        w = v
    return w[0] + w[1]


def dict_literal(x):
    d = {"a": x}
    return d["a"] * x


def f_string(x):
    s = f"{x}"
    return x * len(s)


def string_variable(x):
    name = "square"
    if name == "square":
        return x * x
    return x


def string_argument(x, name):
    if name == "square":
        return x * x
    return x


def array_method_sum(x):
    return x.sum()


def walrus(x):
    if (y := x * x) > 0.0:
        return y
    return x


def lambda_inside(x):
    return x > 0.0 and (lambda a: a * a)(x)  # an operand of `and` (not lowered to a branch)


def comprehension(x):
    return [x * i for i in range(3)][1]  # a list kept as a value (sum/max/min are lowered)


def assigns_attribute(x):
    MODEL.x = x
    return x * x


def uses_del(x):
    y = x * x
    del y
    return x


def uses_raise(x):
    if x < 0.0:
        raise ValueError("negative")
    return x * x


def uses_assert(x):
    assert x > 0.0
    return x * x


def uses_match(x, k):
    match k:
        case 1:
            return x * x
    return x


def calls_with_keyword(x):
    return math.pow(x, y=2.0)


def loops_over_list(x):
    s = 0.0
    for v in (1.0, 2.0):
        s += v * x
    return s


def while_true_break(x):
    while True:
        x = x * 0.5
        if x < 1.0:
            break
    return x


def uses_builtin_sum(x):
    return sum(x)


def uses_isinstance(x):
    if isinstance(x, float):
        return x * x
    return x


def tuple_unpack(x):
    a, b = x, x * x
    return a * b


def chained_compare(x):
    if 0.0 < x < 10.0:
        return x * x
    return x


TUPLE = (2.0, 3.0)
FRACTION = fractions.Fraction(2)


def reads_global_tuple(x):
    return TUPLE[0] * x


PAIRS = ((2.0, 3.0),)


def reads_global_nested_tuple(x):
    return PAIRS[0][0] * x


def reads_global_fraction(x):
    return FRACTION * x


def real_of_element(x):
    return x[0].real * x[0]


def is_none(x, flag):
    if flag is None:
        return x * x
    return x


# (name, function, arguments, words the refusal must contain, line offset of the construct)
REFUSED = [
    ("async", async_square, (Active(1.0),), ("async",), 0),
    ("async-generator", async_gen, (Active(1.0),), ("async",), 0),
    ("nested-class", defines_class, (Active(1.0),), ("class",), 1),
    ("try-finally", uses_try_finally, (Active(1.0),), ("try",), 1),
    ("nonlocal", make_nonlocal(), (Active(1.0),), ("nonlocal",), 1),
    ("yield-from", yields_from, (Active(1.0),), ("generator",), 0),
    ("kwargs", kwargs_only, (Active(1.0),), ("kwargs",), 0),
    ("keyword-only", keyword_only, (Active(1.0), 2.0), ("keyword",), 0),
    ("positional-only", positional_only, (Active(1.0),), ("positional",), 0),
    ("cmath", calls_cmath, (Active(1.0),), ("sqrt",), 1),
    ("math.nextafter", calls_math_nextafter, (Active(1.0),), ("nextafter",), 1),
    ("list", list_literal, (Active(1.0),), ("list",), 1),
    ("dict", dict_literal, (Active(1.0),), ("dict",), 1),
    ("f-string", f_string, (Active(1.0),), ("f-string",), 1),
    ("walrus", walrus, (Active(1.0),), (), 1),
    ("lambda-inside", lambda_inside, (Active(1.0),), ("lambda",), 1),
    ("comprehension", comprehension, (Active(1.0),), ("comprehension",), 1),
    ("attribute-assignment", assigns_attribute, (Active(1.0),), ("attribute",), 1),
    ("del", uses_del, (Active(1.0),), ("del",), 2),
    ("raise", uses_raise, (Active(1.0),), ("raise",), 2),
    ("match", uses_match, (Active(1.0), 1), ("match",), 1),
    ("keyword-call", calls_with_keyword, (Active(1.0),), ("keyword",), 1),
    ("builtin-sum", uses_builtin_sum, (Duplicated(np.ones(3), np.zeros(3)),), ("sum",), 1),
]


@pytest.mark.parametrize("f, shape", [(calls_np_sum, (3,)), (transposes, (2, 2)),
                                      (array_method_sum, (3,)), (scales_whole_array, (3,)),
                                      (slices, (4,))], ids=lambda v: getattr(v, "__name__", ""))
def test_whole_array_constructs_differentiate(f, shape):
    """np.sum, x.T, x.sum(), whole-array arithmetic and slices were refused; they are array
    primitives now, checked in every mode against finite differences."""
    from srcad.testing import check_grads
    x = np.random.default_rng(3).standard_normal(shape)
    check_grads(f, Duplicated(x, np.zeros(shape)))


@pytest.mark.parametrize("name, f, args, words, offset", REFUSED, ids=[r[0] for r in REFUSED])
def test_construct_is_refused_with_file_line_and_hint(name, f, args, words, offset):
    """Each construct gets a SrcadError naming this file, the construct's line, what is refused
    and what to do instead. Constructs that have no sensible fix (async, match, ...) still
    must not crash inside srcad."""
    line = None if offset is None else first_line(f) + offset
    refused(lambda: srcad.autodiff(Reverse, f, *args), *words, line=line, hint=False)


@pytest.mark.parametrize("name, f, args, words, offset", REFUSED, ids=[r[0] for r in REFUSED])
def test_construct_refusal_says_what_to_do_instead(name, f, args, words, offset):
    """Every refusal says what to do instead: the hint must be present (async functions and
    generators included)."""
    refused(lambda: srcad.autodiff(Reverse, f, *args))


NO_RULE = ("no derivative rule",)
UNHANDLED_KIND = ("holds a value of a kind srcad does not handle",)
OPAQUE = ("opaque value",)
NON_FINITE = ("non-finite derivative",)
CONSTANT_WRITTEN = ("passed as Constant", "must be read-only")

FORWARD_CASES = [
    # (name, function, args, the expected tangent or the documented refusal)
    # whole-array code is answered (hand-derived tangents): d(2 x[0]) = 2 dx[0];
    # d(x[1] x[2]) = x[2] dx[1] + x[1] dx[2] = 3 + 2; d(x.T[0, 0]) = dx[0, 0]; d(sum x) = 1 + 2 + 3
    ("whole-array", scales_whole_array, (Duplicated(np.ones(3), np.ones(3)),), 2.0),
    ("slice", slices, (Duplicated(np.array([0.0, 2.0, 3.0, 4.0]), np.ones(4)),), 5.0),
    ("x.T", transposes, (Duplicated(np.ones((2, 2)), np.array([[1.0, 2.0], [3.0, 4.0]])),), 1.0),
    ("np.sum", calls_np_sum, (Duplicated(np.ones(3), np.array([1.0, 2.0, 3.0])),), 6.0),
    ("builtin-sum", uses_builtin_sum, (Duplicated(np.ones(3), np.ones(3)),),
     Refusal(NO_RULE + ("sum",))),
    ("np.add", calls_np_add, (Duplicated(2.0, 1.0),), 2.0),  # d(x + x) = 2 dx
    ("string-variable", string_variable, (Duplicated(3.0, 1.0),), Refusal(UNHANDLED_KIND)),
]


def test_a_call_on_no_input_runs_as_it_is():
    """random.random() takes nothing that carries a derivative: it runs once, as the primal
    runs it, and d(x * r)/dx is the r drawn."""
    random.seed(5)
    drawn = random.random()
    random.seed(5)
    (d,), value = srcad.autodiff(srcad.ReverseWithPrimal, calls_random, Active(2.0))
    assert d == drawn and value == 2.0 * drawn
    random.seed(5)
    assert srcad.autodiff(Forward, calls_random, Duplicated(2.0, 1.0)) == drawn


@pytest.mark.parametrize("name, f, args, expected", FORWARD_CASES,
                         ids=[r[0] for r in FORWARD_CASES])
def test_forward_mode_answers_or_refuses_as_documented(name, f, args, expected):
    answered_or_documented_refusal(
        lambda: srcad.autodiff(Forward, f, *args), expected,
        lambda t, want: float(np.asarray(t).reshape(-1)[0]) == pytest.approx(want))


GAP = pytest.mark.xfail(strict=True, raises=AssertionError, reason=(
    "must be answered: isinstance(x, float) is a test of a constant, but srcad refuses it as "
    "an opaque value (`float` is a type, not a number)"))

REVERSE_CASES = [
    # (name, function, args, the expected derivatives or the documented refusal)
    ("has-default-given", has_default, (Active(3.0), 2.0), (12.0, None)),
    ("keyword-only-default", keyword_only_default, (Active(3.0),),
     Refusal(("keyword-only arguments",))),
    ("string-variable", string_variable, (Active(3.0),), Refusal(UNHANDLED_KIND)),
    ("loop-over-tuple", loops_over_list, (Active(3.0),), (3.0,)),  # d(1x + 2x)/dx = 3
    ("while-true-break", while_true_break, (Active(3.0),), (0.25,)),
    ("tuple-unpack", tuple_unpack, (Active(2.0),), (12.0,)),
    ("chained-compare", chained_compare, (Active(3.0),), (6.0,)),
    ("is-none", is_none, (Active(3.0), None), (6.0, None)),
    ("assert", uses_assert, (Active(3.0),), (6.0,)),
    ("np.add-scalars", calls_np_add, (Active(3.0),), (2.0,)),  # d(x + x)/dx = 2
    # a method of a module-level object: inlined, its attributes constants
    ("method-of-global-object", calls_method_of_global_object, (Active(3.0),), (6.0,)),
    # mutual recursion: mutual_a(x, 2) = (x * x + 1) ** 2 + 1, whose slope at 1 is 8
    ("mutual-recursion", mutual_a, (Active(1.0), 2), (8.0, None)),
    ("print", calls_print, (Active(3.0),), (6.0,)),
    pytest.param("isinstance", uses_isinstance, (Active(3.0),), (6.0,), marks=GAP,
                 id="isinstance"),
    # attributes of numbers and objects, tuple elements and Fractions are opaque values
    # (documented: srcad cannot know whether a derivative flows through them)
    ("x.imag", imag_part, (Active(3.0),), Refusal(OPAQUE + ("x.imag",))),
    ("x.real", real_part, (Active(3.0),), Refusal(OPAQUE + ("x.real",))),
    ("obj.attr", reads_attribute_of_unknown_object, (Active(3.0),),
     Refusal(OPAQUE + ("MODEL.x",))),
    # a tuple of numbers reads as the array of them (srcad/frontend/constant_sequences.py)
    ("global-tuple", reads_global_tuple, (Active(3.0),), (2.0,)),
    # a global container of numbers is a constant, its entries read by constant index
    # (srcad/transform/normalize/free_containers.py)
    ("global-nested-tuple", reads_global_nested_tuple, (Active(3.0),), (2.0,)),
    ("global-fraction", reads_global_fraction, (Active(3.0),), Refusal(OPAQUE + ("FRACTION",))),
]


def _same_derivatives(result, expected):
    assert len(result) == len(expected)
    for got, want in zip(result, expected):
        assert got == (None if want is None else pytest.approx(want))


@pytest.mark.parametrize("name, f, args, expected", REVERSE_CASES,
                         ids=[r[0] if isinstance(r, tuple) else r.id for r in REVERSE_CASES])
def test_construct_is_answered_or_refused_as_documented(name, f, args, expected):
    answered_or_documented_refusal(lambda: srcad.autodiff(Reverse, f, *args), expected,
                                   _same_derivatives)


@pytest.mark.parametrize("name, f, words", [
    ("x.real", real_part, ("x.real",)),
    ("obj.attr", reads_attribute_of_unknown_object, ("MODEL.x",)),
    ("global-fraction", reads_global_fraction, ("FRACTION",))])
def test_forward_mode_refuses_opaque_values(name, f, words):
    Refusal(OPAQUE + words).check(lambda: srcad.autodiff(Forward, f, Duplicated(3.0, 1.0)))


def test_real_of_array_element_is_an_opaque_value():
    """x[0].real: an attribute of a number, refused as documented."""
    x, dx = np.array([3.0]), np.zeros(1)
    Refusal(OPAQUE + ("x[0].real",)).check(
        lambda: srcad.autodiff(Reverse, real_of_element, Duplicated(x, dx)))


def test_string_argument_is_part_of_the_code():
    """A str argument is a constant of the generated code (docs/modes.md), as in JAX."""
    assert srcad.autodiff(Reverse, string_argument, Active(3.0), "square") == (6.0, None)
    assert srcad.autodiff(Reverse, string_argument, Active(3.0), "plain") == (1.0, None)


def test_set_argument_is_refused():
    """Other Const values than numbers, strings, None, arrays and containers: ArgumentError."""
    refused(lambda: srcad.autodiff(Reverse, string_argument, Active(3.0), {"square"}), "set",
            hint=False, kind=srcad.ArgumentError)


def test_missing_argument_is_refused():
    """Calling with fewer arguments than the function has parameters (no default)."""
    refused(lambda: srcad.autodiff(Reverse, product, Active(3.0)), "argument", hint=False)


def test_extra_argument_is_refused():
    refused(lambda: srcad.autodiff(Reverse, square, Active(3.0), Active(4.0)), "argument",
            hint=False)


def test_omitted_default_argument_is_answered():
    """`has_default(x)` with the default scale=2.0 omitted: d/dx (2 x^2) = 4x = 12 at 3."""
    answered(lambda: srcad.autodiff(Reverse, has_default, Active(3.0)),
                       lambda r: r == (pytest.approx(12.0),))


def test_unknown_mode_is_refused():
    refused(lambda: srcad.autodiff("reverse", square, Active(3.0)), "mode", filename=None)


def test_operator_on_function_returning_string_is_refused():
    def returns_string(x):
        return "x"
    refused(lambda: srcad.gradient(returns_string, 1.0), "str", filename=None, hint=False)


# --- arguments --------------------------------------------------------------------------------

def test_forward_shadow_of_wrong_shape_is_refused():
    x = np.ones(3)
    refused(lambda: srcad.autodiff(Forward, square_sum, Duplicated(x, np.ones(4))), "shadow")
    refused(lambda: srcad.autodiff(Forward, square_sum, Duplicated(x, np.ones((3, 1)))),
            "shadow")


@pytest.mark.parametrize("mode", [Reverse, Forward], ids=["rev", "fwd"])
def test_shadow_of_wrong_float_dtype_is_refused(mode):
    """float32 shadow for a float64 array: not congruent."""
    x = np.ones(3)
    refused(lambda: srcad.autodiff(mode, square_sum, Duplicated(x, np.zeros(3, np.float32))),
            "shadow")


@pytest.mark.parametrize("mode", [Reverse, Forward], ids=["rev", "fwd"])
def test_shadow_that_is_not_an_array_is_refused(mode):
    x = np.ones(3)
    refused(lambda: srcad.autodiff(mode, square_sum, Duplicated(x, [0.0, 0.0, 0.0])), "shadow")
    refused(lambda: srcad.autodiff(mode, square_sum, Duplicated(x, None)), "shadow")


def test_forward_scalar_shadow_that_is_an_array_is_refused():
    refused(lambda: srcad.autodiff(Forward, square, Duplicated(2.0, np.ones(1))), "shadow",
            hint=False)


def test_forward_integer_inputs_are_refused_not_zero():
    """Tangent returns zeros for integer inputs; srcad must refuse."""
    refused(lambda: srcad.autodiff(Forward, square, Duplicated(3, 1.0)), "integer")
    xi = np.arange(3)
    refused(lambda: srcad.autodiff(Forward, square_sum, Duplicated(xi, np.ones(3, int))),
            "dtype")
    refused(lambda: srcad.autodiff(Forward, square_sum, BatchDuplicated(xi, [np.ones(3, int)])),
            "dtype")


def test_operators_refuse_integer_inputs():
    refused(lambda: srcad.gradient(square_sum, np.arange(3)), "float", filename=None,
            hint=False)
    refused(lambda: srcad.gradient(square, 3), "float", filename=None)
    refused(lambda: srcad.jacobian(squares_out, np.arange(3)), "float", filename=None,
            hint=False)


def test_integer_const_array_gives_correct_gradient():
    """An integer Const array used as weights is fine: its values enter the float math."""
    x = np.array([1.0, 2.0, 3.0])
    dx = np.zeros(3)
    a = np.array([1, 2, 3])
    srcad.autodiff(Reverse, weighted_square_sum, Duplicated(x, dx), a)
    np.testing.assert_allclose(dx, 2 * a * x)


def test_numpy_float_scalars_work():
    """np.float64 is a float; np.float32 is a float too."""
    assert srcad.autodiff(Reverse, square, Active(np.float64(3.0))) == (pytest.approx(6.0),)
    answered(lambda: srcad.autodiff(Reverse, square, Active(np.float32(3.0))),
                       lambda r: r == (pytest.approx(6.0),))


def test_numpy_integer_scalar_is_refused():
    refused(lambda: srcad.autodiff(Reverse, square, Active(np.int64(3))), "integer")


def test_zero_dim_array_as_active_is_refused():
    """Documented: Active takes a float scalar; arrays (0-d ones too) go in Duplicated."""
    Refusal(("Active takes a float scalar",)).check(
        lambda: srcad.autodiff(Reverse, square, Active(np.array(3.0))))


@pytest.mark.parametrize("mode", [Reverse, Forward], ids=["rev", "fwd"])
def test_bool_inputs_are_refused(mode):
    """True is an int to Python; a derivative with respect to it makes no sense."""
    arg = Active(True) if mode is Reverse else Duplicated(True, 1.0)
    refused(lambda: srcad.autodiff(mode, square, arg), "bool", hint=False)
    xb = np.array([True, False])
    refused(lambda: srcad.autodiff(mode, square_sum, Duplicated(xb, np.zeros(2, bool))),
            "dtype")


def test_complex_inputs_are_refused():
    refused(lambda: srcad.autodiff(Reverse, square, Active(1j)), "complex", hint=False)
    refused(lambda: srcad.autodiff(Reverse, square, Active(1.0 + 0j)), "complex", hint=False)
    refused(lambda: srcad.autodiff(Forward, square, Duplicated(1j, 1.0)), "complex",
            hint=False)
    refused(lambda: srcad.autodiff(Forward, square, Duplicated(1.0, 1j)), hint=False)
    xc = np.ones(3, complex)
    refused(lambda: srcad.autodiff(Reverse, square_sum, Duplicated(xc, np.zeros(3, complex))),
            "dtype")
    refused(lambda: srcad.autodiff(Forward, square_sum, Duplicated(xc, np.ones(3, complex))),
            "dtype")
    refused(lambda: srcad.autodiff(Forward, square_sum, BatchDuplicated(xc, [xc])), "dtype")


def test_complex_const_is_refused():
    """Documented: Const values other than floats, ints, bools, None and arrays are
    refused (a complex one too, even where only its real part is used)."""
    def real_times(x, c):
        return x * c.real
    Refusal(("got complex",)).check(
        lambda: srcad.autodiff(Reverse, real_times, Active(2.0), 3.0 + 1j))


def test_operators_refuse_complex_inputs():
    refused(lambda: srcad.gradient(square_sum, np.ones(3, complex)), filename=None, hint=False)
    refused(lambda: srcad.gradient(square, 1j), "float", filename=None)


# non-contiguous views

def _views():
    base = np.arange(1.0, 9.0)
    mat = np.arange(1.0, 7.0).reshape(2, 3)
    return base, mat


def test_strided_view_as_x_reverse_matches_contiguous_copy():
    base, _ = _views()
    x = base[::2]
    before = base.copy()
    dx = np.zeros(4)
    answered(lambda: srcad.autodiff(Reverse, square_sum, Duplicated(x, dx)))
    np.testing.assert_allclose(dx, 2 * np.ascontiguousarray(x))
    np.testing.assert_array_equal(base, before)


def test_strided_view_as_shadow_reverse_gets_the_gradient():
    base, _ = _views()
    x = base[::2].copy()
    shadow_base = np.zeros(8)
    dx = shadow_base[::2]
    answered(lambda: srcad.autodiff(Reverse, square_sum, Duplicated(x, dx)))
    np.testing.assert_allclose(shadow_base[::2], 2 * x)
    np.testing.assert_array_equal(shadow_base[1::2], 0.0)


def test_transposed_matrix_as_x_and_shadow_reverse():
    _, mat = _views()
    x = mat.T  # (3, 2), F-ordered view
    dx_base = np.zeros((2, 3))
    dx = dx_base.T
    _, value = answered(
        lambda: srcad.autodiff(ReverseWithPrimal, mat_sum_weighted, Duplicated(x, dx)))
    # d/dx[i, j] of sum (i + 1)(j + 2) x[i, j]^2, with x = mat.T (i over mat's columns)
    i, j = np.indices(x.shape)
    np.testing.assert_allclose(dx, 2 * (i + 1.0) * (j + 2.0) * x)
    assert mat_sum_weighted(x) == pytest.approx(value)


def test_strided_views_forward_and_batch():
    base, _ = _views()
    x = base[::2]
    t_base = np.ones(8)
    dx = t_base[1::2]
    expected = float(2 * np.ascontiguousarray(x) @ np.ones(4))
    answered(lambda: srcad.autodiff(Forward, square_sum, Duplicated(x, dx)),
             lambda t: t == pytest.approx(expected))
    lanes = np.ones((8, 4))[::2]  # stacked lanes, non-contiguous
    answered(
        lambda: srcad.autodiff(Forward, square_sum, BatchDuplicated(x, lanes), batch="stacked"),
        lambda t: np.testing.assert_allclose(t, [expected] * 4))


def test_strided_output_view_in_forward_gets_the_tangent():
    """Forward mode writes tangents of written arrays into their shadows: into a view, too."""
    x = np.array([1.0, 2.0, 3.0])
    y_base = np.zeros(6)
    y = y_base[::2]
    dy_base = np.zeros(6)
    dy = dy_base[::2]
    answered(lambda: srcad.autodiff(Forward, squares_into, Duplicated(y, dy),
                                    Duplicated(x, np.ones(3))))
    np.testing.assert_allclose(y, x * x)
    np.testing.assert_allclose(dy, 2 * x)
    np.testing.assert_array_equal(y_base[1::2], 0.0)
    np.testing.assert_array_equal(dy_base[1::2], 0.0)


def test_operators_with_non_contiguous_x_and_out():
    base, mat = _views()
    x = base[::2]
    g = srcad.gradient(square_sum, x)
    np.testing.assert_allclose(g, 2 * np.ascontiguousarray(x))
    out_base = np.zeros(8)
    out = out_base[::2]
    answered(lambda: srcad.gradient(square_sum, x, out=out),
             lambda r: np.testing.assert_allclose(out_base[::2], 2 * x))
    gt = srcad.gradient(mat_sum_weighted, mat.T)
    expected = srcad.gradient(mat_sum_weighted, np.ascontiguousarray(mat.T))
    np.testing.assert_allclose(gt, expected)
    J_base = np.zeros((4, 8))
    J = J_base[:, ::2]
    answered(lambda: srcad.jacobian(squares_out, x, out=J),
             lambda r: np.testing.assert_allclose(J, np.diag(2 * x)))


def test_prepared_gradient_reused_with_a_non_contiguous_x():
    """Prepared with a contiguous x, used with a strided view of the same shape and dtype."""
    base, _ = _views()
    prep = srcad.prepare_gradient(square_sum, np.ones(4))
    x = base[::2]
    answered(lambda: srcad.gradient(square_sum, x, prep=prep),
             lambda g: np.testing.assert_allclose(g, 2 * np.ascontiguousarray(x)))


# 0-length arrays

def test_empty_array_reverse():
    """Empty loop: value 0.0 (the initial s) and an empty gradient."""
    x, dx = np.zeros(0), np.zeros(0)
    derivs, value = srcad.autodiff(ReverseWithPrimal, square_sum, Duplicated(x, dx))
    assert derivs == (None,)
    assert value == 0.0
    assert dx.shape == (0,)


def test_empty_array_forward_and_batch():
    x = np.zeros(0)
    assert srcad.autodiff(ForwardWithPrimal, square_sum, Duplicated(x, np.zeros(0))) == (0.0, 0.0)
    t = srcad.autodiff(Forward, square_sum, BatchDuplicated(x, [np.zeros(0), np.zeros(0)]))
    np.testing.assert_array_equal(t, [0.0, 0.0])


def test_empty_array_operators():
    value, g = srcad.value_and_gradient(square_sum, np.zeros(0))
    assert value == 0.0 and g.shape == (0,)
    H = srcad.hessian(square_sum, np.zeros(0))
    assert H.shape == (0, 0)


def test_empty_array_forward_gradient():
    """Forward-mode gradient at a 0-length x: no chunks to run, but the value is still 0.0."""
    value, g = srcad.value_and_gradient(square_sum, np.zeros(0), mode="forward")
    assert value == 0.0 and g.shape == (0,)


def test_empty_array_jacobian_returns_the_value():
    """jacobian of x -> x**2 at a 0-length x: value is the (empty) output array, J is (0, 0)."""
    value, J = srcad.value_and_jacobian(squares_out, np.zeros(0))
    assert J.shape == (0, 0)
    assert isinstance(value, np.ndarray) and value.shape == (0,)


def test_empty_output_jacobian():
    """f: R^3 -> R^0: J is (0, 3) and the value is an empty array."""
    def empty_out(x):
        y = np.zeros(0)
        return y
    value, J = answered(lambda: srcad.value_and_jacobian(empty_out, np.ones(3)))
    assert J.shape == (0, 3)
    assert isinstance(value, np.ndarray) and value.shape == (0,)


# preparation mismatches

def test_float_where_array_was_prepared():
    prep = srcad.prepare_gradient(square_sum, np.ones(3))
    refused(lambda: srcad.gradient(square_sum, 2.0, prep=prep), "prepare", filename=None,
            kind=srcad.PreparationMismatchError)


def test_array_where_float_was_prepared():
    prep = srcad.prepare_gradient(square, 2.0)
    refused(lambda: srcad.gradient(square, np.ones(3), prep=prep), "prepare", filename=None,
            kind=srcad.PreparationMismatchError)


@pytest.mark.parametrize("other", [np.ones(4), np.ones(3, np.float32), np.ones((3, 1))],
                         ids=["shape", "dtype", "ndim"])
def test_other_shape_or_dtype_than_prepared(other):
    prep = srcad.prepare_gradient(square_sum, np.ones(3))
    refused(lambda: srcad.gradient(square_sum, other, prep=prep), "prepared", filename=None,
            hint=False)


def test_prepared_for_another_function_or_operator():
    prep = srcad.prepare_gradient(square_sum, np.ones(3))
    refused(lambda: srcad.gradient(weighted_square_sum, np.ones(3), Constant(np.ones(3)),
                                   prep=prep), filename=None,
            kind=srcad.PreparationMismatchError)
    refused(lambda: srcad.jacobian(square_sum, np.ones(3), prep=prep), filename=None,
            kind=srcad.PreparationMismatchError)


def test_constant_of_other_kind_than_prepared():
    prep = srcad.prepare_gradient(weighted_square_sum, np.ones(3), Constant(np.ones(3)))
    refused(lambda: srcad.gradient(weighted_square_sum, np.ones(3), Constant(2.0), prep=prep),
            filename=None, kind=srcad.PreparationMismatchError)
    refused(lambda: srcad.gradient(weighted_square_sum, np.ones(3), Cache(np.ones(3)),
                                   prep=prep), filename=None, kind=srcad.PreparationMismatchError)


def test_hvp_and_hessian_preparation_mismatch():
    prep = srcad.prepare_hvp(square_sum, np.ones(3))
    refused(lambda: srcad.hvp(square_sum, 2.0, tangent=1.0, prep=prep), filename=None,
            kind=srcad.PreparationMismatchError)
    prep = srcad.prepare_hessian(square_sum, np.ones(3))
    refused(lambda: srcad.hessian(square_sum, np.ones(4), prep=prep), filename=None,
            kind=srcad.PreparationMismatchError)


def test_hvp_tangent_of_wrong_shape():
    refused(lambda: srcad.hvp(square_sum, np.ones(3), tangent=np.ones(4)), filename=None,
            hint=False)


def test_pushforward_and_pullback_of_wrong_shape():
    refused(lambda: srcad.pushforward(squares_out, np.ones(3), tangent=np.ones(4)),
            filename=None, hint=False)
    refused(lambda: srcad.pullback(squares_out, np.ones(3), cotangent=np.ones(4)),
            filename=None, hint=False)


def test_jacobian_out_of_wrong_shape():
    refused(lambda: srcad.jacobian(squares_out, np.ones(3), out=np.zeros((3, 4))), "shape",
            filename=None, hint=False)


def test_gradient_out_of_wrong_shape():
    refused(lambda: srcad.gradient(square_sum, np.ones(3), out=np.zeros(4)), filename=None,
            hint=False)


def test_operator_with_two_bare_arguments():
    refused(lambda: srcad.gradient(weighted_square_sum, np.ones(3), np.ones(3)), "bare",
            filename=None)


def test_active_given_a_numpy_array_in_forward_is_refused():
    refused(lambda: srcad.autodiff(Forward, square, Active(np.ones(3))), "active")


# BatchDuplicated

def test_batch_mismatched_widths_are_refused():
    refused(lambda: srcad.autodiff(Forward, product, BatchDuplicated(1.0, [1.0, 0.0]),
                                   BatchDuplicated(2.0, [0.0, 1.0, 0.0])), "width", hint=False)


def test_batch_lane_of_wrong_shape_is_refused():
    x = np.ones(3)
    refused(lambda: srcad.autodiff(Forward, square_sum, BatchDuplicated(x, [np.ones(3),
                                                                            np.ones(4)])),
            "shadow")
    refused(lambda: srcad.autodiff(Forward, square_sum, BatchDuplicated(x, np.ones((2, 4)))),
            "shadow")
    refused(lambda: srcad.autodiff(Forward, square_sum, BatchDuplicated(x, np.ones((2, 4))),
                                   batch="stacked"), "shadow")


def test_batch_shadows_not_a_sequence_is_refused():
    """BatchDuplicated(x, 1.0): the shadows must be a sequence of W shadows."""
    refused(lambda: srcad.autodiff(Forward, square, BatchDuplicated(2.0, 1.0)), "shadow",
            hint=False)


def test_batch_with_zero_lanes_is_refused():
    refused(lambda: srcad.autodiff(Forward, square, BatchDuplicated(2.0, [])), "shadow",
            hint=False)


def test_batch_mixed_with_duplicated_is_refused():
    refused(lambda: srcad.autodiff(Forward, product, BatchDuplicated(1.0, [1.0, 0.0]),
                                   Duplicated(2.0, 1.0)), "mixing")


def test_batch_in_reverse_pulls_back_each_lane():
    """BatchDuplicated in reverse mode: lane k's gradient is added into shadow k (2 x, times
    the lane's seed), on both backends."""
    for backend in ("python", "numba"):
        shadows = [np.zeros(3), np.ones(3)]
        answered(lambda shadows=shadows, backend=backend: srcad.autodiff(
            Reverse, square_sum, BatchDuplicated(np.ones(3), shadows), seed=[1.0, 2.0],
            backend=backend))
        np.testing.assert_allclose(shadows, [[2.0, 2.0, 2.0], [5.0, 5.0, 5.0]])


def test_batch_integer_lane_values():
    """Integer scalar lanes for a float input are accepted as floats (1 is 1.0)."""
    answered(lambda: srcad.autodiff(Forward, square, BatchDuplicated(3.0, [1, 0])),
             lambda t: np.testing.assert_allclose(t, [6.0, 0.0]))


@pytest.mark.parametrize("batch", ["unrolled", "stacked"])
def test_batch_unknown_or_forced_layout(batch):
    x = np.array([1.0, 2.0])
    t = srcad.autodiff(Forward, square_sum, BatchDuplicated(x, [np.ones(2), np.zeros(2)]),
                       batch=batch)
    np.testing.assert_allclose(t, [6.0, 0.0])


def test_batch_layout_of_unknown_name_is_refused():
    x = np.array([1.0, 2.0])
    refused(lambda: srcad.autodiff(Forward, square_sum,
                                   BatchDuplicated(x, [np.ones(2), np.zeros(2)]),
                                   batch="diagonal"), "batch", filename=None)


# NaN and inf

def test_nan_and_inf_propagate_in_reverse_and_forward():
    """d(x*x)/dx = 2x: at inf that is inf, at -inf -inf, at nan nan; no exception."""
    for x, want in [(math.inf, math.inf), (-math.inf, -math.inf)]:
        assert srcad.autodiff(Reverse, square, Active(x)) == (want,)
        assert srcad.autodiff(Forward, square, Duplicated(x, 1.0)) == want
    assert math.isnan(srcad.autodiff(Reverse, square, Active(math.nan))[0])
    assert math.isnan(srcad.autodiff(Forward, square, Duplicated(math.nan, 1.0)))


@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")
def test_nan_and_inf_in_arrays():
    """Elements are NumPy float64: nan and inf propagate elementwise."""
    x = np.array([1.0, math.inf, math.nan])
    dx = np.zeros(3)
    srcad.autodiff(Reverse, square_sum, Duplicated(x, dx))
    assert dx[0] == 2.0 and dx[1] == math.inf and math.isnan(dx[2])
    g = srcad.gradient(square_sum, x)
    assert g[0] == 2.0 and g[1] == math.inf and math.isnan(g[2])
    t = srcad.autodiff(Forward, square_sum, Duplicated(x, np.array([1.0, 0.0, 0.0])))
    assert math.isnan(t)  # 2*1*1 + 2*inf*0 (= nan) + 2*nan*0 (= nan): IEEE says nan


def test_log_of_negative_raises_what_the_primal_raises():
    """math.log(-1.0) raises ValueError('math domain error') in the primal; documented: when
    the primal raises, srcad raises that error unchanged."""
    with pytest.raises(ValueError):
        log_of(-1.0)
    for call in (lambda: srcad.autodiff(Reverse, log_of, Active(-1.0)),
                 lambda: srcad.autodiff(Forward, log_of, Duplicated(-1.0, 1.0))):
        with pytest.raises(ValueError, match="math domain error"):
            call()


def test_log_of_nan_and_inf():
    """math.log(nan) = nan, math.log(inf) = inf; derivatives 1/x: nan and 0."""
    assert math.isnan(srcad.autodiff(Reverse, log_of, Active(math.nan))[0])
    assert srcad.autodiff(Reverse, log_of, Active(math.inf)) == (0.0,)
    assert srcad.autodiff(Forward, log_of, Duplicated(math.inf, 1.0)) == 0.0


def test_sqrt_at_zero_does_not_crash_where_the_primal_does_not():
    """math.sqrt(0.0) = 0.0 runs fine; its derivative is 1/(2*sqrt(0)) = +inf by IEEE. Python
    float division by zero raises ZeroDivisionError, which the primal never raises: srcad
    refuses with the documented non-finite-derivative error (docs/autodiff.md), not a crash."""
    assert sqrt_of(0.0) == 0.0
    Refusal(NON_FINITE).check(lambda: srcad.autodiff(Reverse, sqrt_of, Active(0.0)))
    Refusal(NON_FINITE).check(lambda: srcad.autodiff(Forward, sqrt_of, Duplicated(0.0, 1.0)))


def test_log_at_zero_raises_what_the_primal_raises():
    """math.log(0.0) raises ValueError in the primal: srcad raises it unchanged."""
    with pytest.raises(ValueError, match="math domain error"):
        srcad.autodiff(Reverse, log_of, Active(0.0))


def test_division_by_zero_raises_what_the_primal_raises():
    def inverse(x):
        return 1.0 / x
    with pytest.raises(ZeroDivisionError):
        srcad.autodiff(Reverse, inverse, Active(0.0))


def test_pow_half_at_zero():
    """x ** 0.5 at 0: primal 0.0; derivative 0.5 * 0 ** -0.5 = inf (IEEE), but Python's
    0.0 ** -0.5 raises ZeroDivisionError: the documented non-finite-derivative refusal."""
    def root(x):
        return x ** 0.5
    assert root(0.0) == 0.0
    Refusal(NON_FINITE).check(lambda: srcad.autodiff(Reverse, root, Active(0.0)))


def test_inf_times_zero_reverse():
    """d(x*y): at x=inf, y=0: dx = y = 0.0, dy = x = inf (no inf*0 in the reverse sweep with
    seed 1)."""
    assert srcad.autodiff(Reverse, product, Active(math.inf), Active(0.0)) == (0.0, math.inf)


def test_nan_seed():
    assert math.isnan(srcad.autodiff(Reverse, square, Active(2.0), seed=math.nan)[0])


# --- Const inputs are never modified -------------------------------------------------------------

def reads_x_and_const(x, a, y0):
    s = y0
    for i in range(len(x)):
        s += a[i] * math.sin(x[i]) * x[i]
    return s


def writes_output(y, x, a):
    for i in range(len(x)):
        y[i] = a[i] * x[i] * x[i]


def writes_output_returns_sum(y, x, a):
    s = 0.0
    for i in range(len(x)):
        y[i] = a[i] * x[i] * x[i]
        s += y[i]
    return s


def reads_x_returns_array(x, a):
    y = np.zeros(len(x))
    for i in range(len(x)):
        y[i] = a[i] * math.sin(x[i])
    return y


def _data():
    x = np.array([0.3, -1.2, 2.5, 0.7])
    a = np.array([1.5, 2.0, -0.5, 3.0])
    return x, a


class Snapshot:
    """Copies of arrays before a call; `assert_unchanged` compares after."""

    def __init__(self, **arrays):
        self.arrays = arrays
        self.copies = {k: np.array(v, copy=True) for k, v in arrays.items()}

    def assert_unchanged(self, *names):
        for name in names or self.arrays:
            np.testing.assert_array_equal(self.arrays[name], self.copies[name],
                                          err_msg=f"{name} was modified")


def test_reverse_does_not_modify_const_or_x():
    x, a = _data()
    dx = np.zeros(4)
    snap = Snapshot(x=x, a=a)
    srcad.autodiff(Reverse, reads_x_and_const, Duplicated(x, dx), a, 0.5)
    srcad.autodiff(ReverseWithPrimal, reads_x_and_const, Duplicated(x, dx), srcad.Const(a), 0.5)
    snap.assert_unchanged()


def test_forward_does_not_modify_const_x_or_seed():
    x, a = _data()
    dx = np.linspace(0.1, 0.4, 4)
    snap = Snapshot(x=x, a=a, dx=dx)
    srcad.autodiff(Forward, reads_x_and_const, Duplicated(x, dx), a, 0.5)
    srcad.autodiff(ForwardWithPrimal, reads_x_and_const, Duplicated(x, dx), srcad.Const(a), 0.5)
    snap.assert_unchanged()


@pytest.mark.parametrize("batch", ["unrolled", "stacked"])
def test_batch_does_not_modify_const_x_or_seeds(batch):
    x, a = _data()
    lanes = [np.eye(4)[k].copy() for k in range(3)]
    snap = Snapshot(x=x, a=a, l0=lanes[0], l1=lanes[1], l2=lanes[2])
    t = srcad.autodiff(Forward, reads_x_and_const, BatchDuplicated(x, lanes), a, 0.5,
                       batch=batch)
    snap.assert_unchanged()
    expected = a * (np.cos(x) * x + np.sin(x))
    np.testing.assert_allclose(t, expected[:3])


def test_batch_stacked_array_of_shadows_is_not_modified():
    x, a = _data()
    lanes = np.eye(4)[:3].copy()
    snap = Snapshot(x=x, a=a, lanes=lanes)
    srcad.autodiff(Forward, reads_x_and_const, BatchDuplicated(x, lanes), a, 0.5,
                   batch="stacked")
    snap.assert_unchanged()


@pytest.mark.parametrize("mode", [Reverse, Forward], ids=["rev", "fwd"])
def test_output_writing_function_modifies_only_its_output(mode):
    x, a = _data()
    y = np.zeros(4)
    dy = np.ones(4) if mode is Reverse else np.zeros(4)
    dx = np.zeros(4) if mode is Reverse else np.ones(4)
    snap = Snapshot(x=x, a=a)
    if mode is Forward:
        snap = Snapshot(x=x, a=a, dx=dx)
    srcad.autodiff(mode, writes_output, Duplicated(y, dy), Duplicated(x, dx), a)
    snap.assert_unchanged()
    np.testing.assert_allclose(y, a * x * x)
    if mode is Reverse:
        np.testing.assert_allclose(dx, 2 * a * x)
    else:
        np.testing.assert_allclose(dy, 2 * a * x)


def test_batch_output_writing_function_modifies_only_its_output():
    x, a = _data()
    y = np.zeros(4)
    snap = Snapshot(x=x, a=a)
    dys = [np.zeros(4), np.zeros(4)]
    dxs = [np.eye(4)[0].copy(), np.eye(4)[1].copy()]
    srcad.autodiff(Forward, writes_output, BatchDuplicated(y, dys), BatchDuplicated(x, dxs), a)
    snap.assert_unchanged()
    np.testing.assert_allclose(y, a * x * x)
    np.testing.assert_allclose(dys[0], [2 * a[0] * x[0], 0, 0, 0])


def test_operators_do_not_modify_x_or_constants():
    x, a = _data()
    snap = Snapshot(x=x, a=a)
    srcad.gradient(reads_x_and_const, x, Constant(a), Constant(0.5))
    srcad.gradient(reads_x_and_const, x, Constant(a), Constant(0.5), mode="forward")
    srcad.jacobian(reads_x_returns_array, x, Constant(a))
    srcad.jacobian(reads_x_returns_array, x, Constant(a), mode="reverse")
    srcad.hvp(reads_x_and_const, x, Constant(a), Constant(0.5), tangent=np.ones(4))
    srcad.hessian(reads_x_and_const, x, Constant(a), Constant(0.5))
    srcad.pushforward(reads_x_returns_array, x, Constant(a), tangent=np.ones(4))
    srcad.pullback(reads_x_returns_array, x, Constant(a), cotangent=np.ones(4))
    snap.assert_unchanged()


def test_operators_with_output_modify_only_the_output():
    x, a = _data()
    y = np.zeros(4)
    snap = Snapshot(x=x, a=a)
    J = srcad.jacobian(writes_output, Output(y), x, Constant(a))
    snap.assert_unchanged()
    np.testing.assert_allclose(J, np.diag(2 * a * x))
    np.testing.assert_allclose(y, a * x * x)
    y[:] = 0.0
    J = srcad.jacobian(writes_output, Output(y), x, Constant(a), mode="reverse")
    snap.assert_unchanged()
    np.testing.assert_allclose(J, np.diag(2 * a * x))
    np.testing.assert_allclose(y, a * x * x)


def test_hvp_with_cache_does_not_modify_x_or_constants():
    def uses_scratch(x, c, a):
        for i in range(len(x)):
            c[i] = a[i] * x[i] * x[i]
        s = 0.0
        for i in range(len(x)):
            s += c[i] * x[i]
        return s
    x, a = _data()
    c = np.zeros(4)
    snap = Snapshot(x=x, a=a)
    hv = srcad.hvp(uses_scratch, x, Cache(c), Constant(a), tangent=np.ones(4))
    snap.assert_unchanged()
    np.testing.assert_allclose(hv, 6 * a * x)
    g = srcad.gradient(uses_scratch, x, Cache(c), Constant(a))
    snap.assert_unchanged()
    np.testing.assert_allclose(g, 3 * a * x * x)


def doubles_const_in_place(x, w):
    for i in range(len(w)):
        w[i] = w[i] * 2.0
    s = 0.0
    for i in range(len(x)):
        s += w[i] * x[i] * x[i]
    return s


@pytest.mark.parametrize("mode", [Forward, "batch"], ids=["fwd", "batch"])
def test_const_modified_by_the_primal_is_modified_exactly_once(mode):
    """The primal doubles w: after one call w is doubled once (not once per lane)."""
    x, _ = _data()
    w = np.array([1.0, 2.0, 3.0, 4.0])
    if mode == "batch":
        t = srcad.autodiff(Forward, doubles_const_in_place,
                           BatchDuplicated(x, [np.eye(4)[0].copy(), np.eye(4)[1].copy()]), w)
        np.testing.assert_allclose(t, [4 * 1.0 * x[0], 4 * 2.0 * x[1]])
    else:
        t = srcad.autodiff(Forward, doubles_const_in_place, Duplicated(x, np.ones(4)), w)
        np.testing.assert_allclose(t, np.sum(4 * np.array([1.0, 2.0, 3.0, 4.0]) * x))
    np.testing.assert_array_equal(w, [2.0, 4.0, 6.0, 8.0])


def test_operator_on_function_that_modifies_its_constant():
    """gradient/jacobian run f several times (value probe, one pass per chunk or row). If f
    doubles its Constant in place, a later pass would see doubled weights: refused as
    documented (a Constant must be read-only), never a gradient computed from weights doubled
    by an earlier pass."""
    x, _ = _data()
    w0 = np.array([1.0, 2.0, 3.0, 4.0])
    w = w0.copy()
    Refusal(CONSTANT_WRITTEN, filename=None).check(
        lambda: srcad.gradient(doubles_const_in_place, x, Constant(w), mode="forward", chunk=1))
    np.testing.assert_array_equal(w, w0)


def test_jacobian_reverse_on_function_that_modifies_its_constant():
    def scales_const(x, w):
        y = np.zeros(len(x))
        for i in range(len(w)):
            w[i] = w[i] * 2.0
        for i in range(len(x)):
            y[i] = w[i] * x[i]
        return y
    x = np.array([1.0, 2.0, 3.0])
    w0 = np.array([1.0, 2.0, 3.0])
    Refusal(CONSTANT_WRITTEN, filename=None).check(
        lambda: srcad.jacobian(scales_const, x, Constant(w0.copy()), mode="reverse"))


# --- backends -----------------------------------------------------------------------------------

def test_unknown_backend_is_refused():
    refused(lambda: srcad.autodiff(Reverse, square, Active(2.0), backend="jax"), "backend",
            filename=None)
    refused(lambda: srcad.autodiff(Forward, square, Duplicated(2.0, 1.0), backend="cuda"),
            "backend", filename=None)
    refused(lambda: srcad.gradient(square_sum, np.ones(3), backend="jax"), "backend",
            filename=None)
    refused(lambda: srcad.jacobian(squares_out, np.ones(3), backend="jax"), "backend",
            filename=None)
    refused(lambda: srcad.hvp(square_sum, np.ones(3), tangent=np.ones(3), backend="jax"),
            "backend", filename=None)


def test_backend_of_wrong_type_is_refused():
    refused(lambda: srcad.autodiff(Reverse, square, Active(2.0), backend=None), "backend",
            filename=None)


@needs_numba
def test_numba_argument_checks():
    x = np.ones(3)
    refused(lambda: srcad.autodiff(Reverse, square_sum, Duplicated(x, np.zeros(4)),
                                   backend="numba"), "shadow")
    refused(lambda: srcad.autodiff(Forward, square_sum, Duplicated(x, np.zeros(3, np.float32)),
                                   backend="numba"), "shadow")
    refused(lambda: srcad.autodiff(Reverse, square_sum, Duplicated(np.arange(3),
                                                                   np.zeros(3, int)),
                                   backend="numba"), "dtype")
    refused(lambda: srcad.autodiff(Reverse, square, Active(1j), backend="numba"), "complex",
            hint=False)
    refused(lambda: srcad.autodiff(Reverse, square, Active(np.ones(3)), backend="numba"),
            "array")
    refused(lambda: srcad.autodiff(Forward, product, BatchDuplicated(1.0, [1.0, 0.0]),
                                   BatchDuplicated(2.0, [0.0, 1.0, 0.0]), backend="numba"),
            "width", hint=False)
    prep = srcad.prepare_gradient(square_sum, np.ones(3), backend="numba")
    refused(lambda: srcad.gradient(square_sum, 2.0, prep=prep), filename=None,
            kind=srcad.PreparationMismatchError)


@needs_numba
def test_numba_forward_over_reverse_is_refused_clearly():
    # numba runs second order as reverse over forward; the other order is refused by name
    refused(lambda: srcad.hvp(square_sum, np.ones(3), tangent=np.ones(3), backend="numba",
                              mode="forward-over-reverse"), "numba", "reverse over forward",
            filename=None)


@needs_numba
def test_numba_non_contiguous_and_empty_and_nan():
    base = np.arange(1.0, 9.0)
    x = base[::2]
    dx = np.zeros(4)
    answered(lambda: srcad.autodiff(Reverse, square_sum, Duplicated(x, dx), backend="numba"),
             lambda r: np.testing.assert_allclose(dx, 2 * np.ascontiguousarray(x)))
    dx_base = np.zeros(8)
    xc = x.copy()
    answered(lambda: srcad.autodiff(Reverse, square_sum, Duplicated(xc, dx_base[::2]),
                                    backend="numba"),
             lambda r: np.testing.assert_allclose(dx_base[::2], 2 * xc))
    _, mat = _views()
    dxt = np.zeros((3, 2))
    answered(
        lambda: srcad.autodiff(Reverse, mat_sum_weighted, Duplicated(mat.T, dxt),
                               backend="numba"),
        lambda r: np.testing.assert_allclose(
            dxt, srcad.gradient(mat_sum_weighted, np.ascontiguousarray(mat.T))))
    e = np.zeros(0)
    de = np.zeros(0)
    derivs, value = srcad.autodiff(ReverseWithPrimal, square_sum, Duplicated(e, de),
                                   backend="numba")
    assert value == 0.0
    xn = np.array([1.0, math.inf, math.nan])
    dxn = np.zeros(3)
    srcad.autodiff(Reverse, square_sum, Duplicated(xn, dxn), backend="numba")
    assert dxn[0] == 2.0 and dxn[1] == math.inf and math.isnan(dxn[2])
    assert srcad.autodiff(Reverse, square, Active(math.inf), backend="numba") == (math.inf,)


@needs_numba
def test_numba_const_not_modified():
    x, a = _data()
    dx = np.zeros(4)
    snap = Snapshot(x=x, a=a)
    srcad.autodiff(Reverse, reads_x_and_const, Duplicated(x, dx), a, 0.5, backend="numba")
    srcad.autodiff(Forward, reads_x_and_const, Duplicated(x, np.ones(4)), a, 0.5,
                   backend="numba")
    srcad.gradient(reads_x_and_const, x, Constant(a), Constant(0.5), backend="numba")
    snap.assert_unchanged()
    np.testing.assert_allclose(dx, a * (np.cos(x) * x + np.sin(x)))


@needs_numba
def test_numba_sqrt_at_zero_and_log_of_negative():
    """numba follows IEEE for float division (no ZeroDivisionError by default with
    error_model='numpy', but njit's default error_model='python' raises): the documented
    non-finite-derivative refusal, as in Python."""
    Refusal(NON_FINITE).check(
        lambda: srcad.autodiff(Reverse, sqrt_of, Active(0.0), backend="numba"))
    # numba's math follows IEEE where Python raises: log(-1) is nan (docs/speed_with_numba.md)
    try:
        value = srcad.autodiff(ReverseWithPrimal, log_of, Active(-1.0), backend="numba")[1]
    except (ValueError, srcad.SrcadError):
        return
    assert math.isnan(value)


def test_no_warnings_on_plain_use():
    """Sanity: the common path emits no warnings."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert srcad.autodiff(Reverse, square, Active(3.0)) == (6.0,)


def weighted_squares_2d(X):
    s = 0.0
    for i in range(len(X)):
        for j in range(len(X)):
            s += X[i, j] ** 2 * (i + 1.0)
    return s


@pytest.mark.parametrize("mode", ["forward", "reverse"])
def test_gradient_into_a_transposed_out_is_written(mode):
    """A non-contiguous `out` must receive the gradient (forward mode once wrote into a copy)."""
    X = np.arange(4.0).reshape(2, 2)
    out = np.zeros((2, 2)).T
    assert srcad.gradient(weighted_squares_2d, X, mode=mode, out=out) is out
    np.testing.assert_allclose(out, 2 * X * (np.arange(2)[:, None] + 1.0))


def variables_named_like_the_tapes(x):
    tape = 0.0
    tape_size = 1.0
    int_tape = 0
    for i in range(len(x)):
        int_tape = (int_tape + 2) % len(x)
        tape = tape * x[i] + x[int_tape] * tape_size
        tape_size = math.sin(tape_size + x[i])
    return tape * tape_size


@pytest.mark.parametrize("backend", ["python", "numba"])
def test_variables_named_like_the_generated_tapes(backend):
    """The generated code's tapes once took their names without looking at the function's own
    (`tape` was a float here, then `tape.append` failed): they are named around them now."""
    if backend == "numba":
        pytest.importorskip("numba")
    x = np.array([0.3, -0.8, 1.1, 0.5])
    source = srcad.source(variables_named_like_the_tapes, Reverse,
                          srcad.Duplicated(x, np.zeros(4)), backend=backend)
    assert "tape_1" in source and "int_tape_1" in source
    check_grads(variables_named_like_the_tapes, srcad.Duplicated(x, np.zeros(4)),
                backend=backend)


def _add_square_in_place(a, y):
    a += y * y


def _copy_then_add(a, y):
    b = a * 1.0
    b += y * y
    return np.sum(b * b)


@pytest.mark.parametrize("f", [_add_square_in_place, _copy_then_add])
@pytest.mark.parametrize("mode", [Forward, Reverse])
def test_a_zero_dim_array_with_a_derivative_is_refused(f, mode):
    """NumPy arithmetic on a 0-d array returns a scalar: forward mode lost the tangent of
    `a += y * y` (the shadow kept its seed) and `b = a * 1.0; b += ...` wrote into a's
    shadow. Refused at the function, naming the argument; a Constant 0-d array still runs."""
    seed = Active(3.0) if mode is Reverse else Duplicated(3.0, 1.0)
    with pytest.raises(srcad.ArgumentError) as caught:
        srcad.autodiff(mode, f, Duplicated(np.array(2.0), np.array(1.0)), seed)
    assert "argument `a` is a 0-d array" in str(caught.value)
    assert caught.value.line == f.__code__.co_firstlineno
    assert "a.reshape(1)" in str(caught.value)


def test_a_zero_dim_constant_array_runs():
    def scaled(x, c):
        return x * x * c

    # d/dx x^2 c = 2 x c = 12 (the result is one entry per argument: None for the Const)
    assert srcad.autodiff(Reverse, scaled, Active(3.0), np.array(2.0)) == (12.0, None)
