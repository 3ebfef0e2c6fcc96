"""Every entry of the derivative rule table, checked on its own against finite differences in
every mode (forward, vector, reverse): each callable srcad knows a rule for (`math.exp`,
`np.exp`, builtin `abs`, ...) and each operator, at points on both sides of every branch of
its rule (abs of a negative number, min with either operand smaller, both arms of `a if c
else b`). scripts/mutate.py relies on these to kill a flipped sign, a dropped term or swapped
operands in any rule."""

import builtins
import importlib.util
import math
import sys

import numpy as np
import pytest

import srcad
from srcad.rules import math_functions, special
from srcad.rules import table as rule_table
from srcad.testing import check_grads

# rule name -> argument tuples: inside the domain, away from kinks, covering each branch, and
# with operands of different values (so swapping them changes the result)
POINTS = {
    "exp": [(0.7,), (-1.3,)], "log": [(0.7,), (2.5,)], "log1p": [(0.4,), (1.7,)],
    "expm1": [(0.6,), (-0.9,)], "sqrt": [(0.7,), (2.3,)], "sin": [(0.7,), (-2.1,)],
    "cos": [(0.7,), (-2.1,)], "tan": [(0.7,), (-1.1,)], "asin": [(0.3,), (-0.6,)],
    "acos": [(0.3,), (-0.6,)], "atan": [(0.7,), (-2.0,)],
    "atan2": [(0.4, -0.9), (-1.2, 0.5)], "sinh": [(0.7,), (-1.4,)],
    "cosh": [(0.7,), (-1.4,)], "tanh": [(0.7,), (-0.4,)],
    "pow": [(1.3, 2.1), (0.6, -1.5)], "hypot": [(0.3, 0.7), (-1.2, 0.4)],
    "abs": [(0.7,), (-1.3,)], "fabs": [(0.7,), (-1.3,)],
    "erf": [(0.4,), (-0.8,)], "erfc": [(0.4,), (-0.8,)],
    "min": [(0.3, 0.8), (0.8, 0.3)], "max": [(0.3, 0.8), (0.8, 0.3)], "float": [(0.7,)],
    "float64": [(0.7,)],
    "minimum": [(0.3, 0.8), (0.8, 0.3)], "maximum": [(0.3, 0.8), (0.8, 0.3)],
    "copysign": [(2.0, -1.0), (-0.5, 3.0), (0.5, 3.0)],
}

MODULES = {"math": math, "np": np, "builtins": builtins}
# the library families carry their own sample intervals (tests/rules/test_library_rules.py checks
# them on broadcasting shapes; scipy.special's join the table when SciPy is imported), and
# the rules users add (tests/rules/test_custom_rules.py) are theirs
FAMILIES = {id(e.function) for e in math_functions.ENTRIES + special.ENTRIES
            + special.MATH_ENTRIES}


def _library(rule) -> bool:
    """A rule a user added (its formulas call the user's functions)."""
    return any("srcad_rule_" in (formula or "") for formula in rule.partials
               + (rule.tangents or ()))


def _core(obj, info) -> bool:
    return info.rule is not None and not info.numba_refusal and id(obj) not in FAMILIES \
        and not _library(info.rule)


def _callables():
    """(source name, rule name) of every object with a rule: `math.exp`, `np.exp`, `abs`."""
    found = []
    for obj, info in rule_table._TABLE.values():
        if not _core(obj, info):
            continue
        for prefix, module in MODULES.items():
            name = getattr(obj, "__name__", None)
            if name and getattr(module, name, None) is obj:
                found.append((name if prefix == "builtins" else f"{prefix}.{name}", info.name))
                break
        else:  # pragma: no cover - a new kind of entry: add its module to MODULES
            raise AssertionError(f"no module of {obj!r} in MODULES")
    return sorted(set(found))


CALLABLES = _callables()

OPERATORS = {  # operator rules (srcad/rules/__init__.py): expression, points
    "add": ("x + y", [(0.3, 0.8)]),
    "sub": ("x - y", [(0.3, 0.8)]),
    "mul": ("x * y", [(0.3, 0.8), (-1.5, 0.4)]),
    "div": ("x / y", [(0.3, 0.8), (-1.5, 0.4)]),
    "pow": ("x ** y", [(1.3, 2.1), (0.6, -1.5)]),
    "mod": ("x % y", [(2.7, 0.8), (-1.3, 0.7)]),
    "neg": ("-x * y", [(0.3, 0.8)]),
    "pos": ("+x * y", [(0.3, 0.8)]),
    "select": ("x * 2.0 if x > y else y * 3.0", [(0.3, 0.8), (0.8, 0.3)]),
}

_counter = iter(range(10**6))


def _function(params, expression):
    """A module-level function `f(params): return expression` with real source."""
    name = f"srcad_rule_case_{next(_counter)}"
    source = f"import math\nimport numpy as np\n\n\ndef f({', '.join(params)}):\n" \
             f"    return {expression}\n"
    path = _function.folder / f"{name}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module.f


@pytest.fixture(scope="module", autouse=True)
def _folder(tmp_path_factory):
    _function.folder = tmp_path_factory.mktemp("rule_cases")


def test_every_rule_has_points():
    names = {info.name for obj, info in rule_table._TABLE.values() if _core(obj, info)}
    assert names <= set(POINTS), names - set(POINTS)


@pytest.mark.parametrize("callee, rule_name", CALLABLES, ids=[c for c, _ in CALLABLES])
def test_rule_of_each_callable_matches_finite_differences(callee, rule_name):
    for point in POINTS[rule_name]:
        params = ["x", "y"][:len(point)]
        # a factor 1.5 on the result: a rule's mistake cannot cancel against the seed of 1
        f = _function(params, f"1.5 * {callee}({', '.join(params)})")
        check_grads(f, *[srcad.Active(v) for v in point])


@pytest.mark.parametrize("name", sorted(OPERATORS))
def test_rule_of_each_operator_matches_finite_differences(name):
    expression, points = OPERATORS[name]
    f = _function(["x", "y"], f"1.5 * ({expression})")
    for point in points:
        check_grads(f, *[srcad.Active(v) for v in point])


def test_callables_cover_math_numpy_and_builtins():
    names = {c for c, _ in CALLABLES}
    assert {"math.exp", "np.exp", "np.arctan2", "abs", "min", "max", "pow", "float",
            "math.fabs", "np.copysign"} <= names


# The operators on arrays use their own rules (np.log, np.floor in the formulas): each checked
# with both operands arrays that carry derivatives, elementwise, in every mode.
ARRAY_OPERATORS = {
    "pow": ("np.sum(x ** y)", (np.array([1.3, 0.6, 2.0]), np.array([2.1, -1.5, 0.5]))),
    "mod": ("np.sum(x % y)", (np.array([2.7, -1.3, 0.4]), np.array([0.8, 0.7, 1.1]))),
}


@pytest.mark.parametrize("name", sorted(ARRAY_OPERATORS))
def test_rule_of_each_array_operator_matches_finite_differences(name):
    expression, (x, y) = ARRAY_OPERATORS[name]
    f = _function(["x", "y"], f"1.5 * {expression}")
    check_grads(f, srcad.Duplicated(x.copy(), np.zeros(3)), srcad.Duplicated(y.copy(), np.zeros(3)))
