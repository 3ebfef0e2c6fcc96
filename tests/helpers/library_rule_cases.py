"""Cases generated from the rule table's library families (srcad/rules/special.py,
srcad/rules/math_functions.py), as autograd's combo_check does: every function x operand
shapes that broadcast. tests/rules/test_library_rules.py checks each in every mode against central
finite differences; adding an entry to a family adds its cases."""

import itertools
import linecache
import math
import statistics

import numpy as np
import scipy.special

from srcad.rules import math_functions, special

_counter = itertools.count()
# operand shapes that broadcast, by operand count
SHAPES = {1: [(), (3,), (2, 3)], 2: [((), ()), ((3,), ()), ((2, 3), (3,)), ((2, 1), (1, 3))]}


# The numba column of the rule matrices checks reverse and forward mode. Vector mode on numba
# runs the same rule code once per lane, and its lanes are checked on their own
# (tests/numba_backend/test_numba_lanes.py, each family's numba smoke test); a third compile
# for every case of every family was a third of the whole suite's time.
NUMBA_RULE_MODES = ("rev", "fwd")

def function_of(call: str, arity: int):
    """`def probe(x0, ...): return np.sum(<call>(x0, ...) * weights)`, with source srcad
    reads (linecache); `weights` fixed so that every element's derivative counts."""
    xs = ", ".join(f"x{k}" for k in range(arity))
    filename = f"<library rule case {next(_counter)}>"
    text = f"def probe({xs}):\n    return np.sum({call} * WEIGHT)\n"
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    namespace = {"np": np, "math": math, "scipy": scipy, "statistics": statistics,
                 "WEIGHT": 1.3}
    exec(compile(text, filename, "exec"), namespace)
    return namespace["probe"]


def _sample(domain, shape, rng):
    if isinstance(domain, int):
        return domain
    low, high = domain
    if shape == ():
        return float(rng.uniform(low, high))
    return rng.uniform(low, high, size=shape)


def elementwise_cases():
    """(id, dotted name, entry, shapes) for each elementwise entry and each shape
    combination: the scipy.special family on floats and arrays, math's on floats."""
    out = []
    for family, prefix, arrays in ((special.ENTRIES, "scipy.special.", True),
                                   (special.PYTHON_ENTRIES, "scipy.special.", True),
                                   (special.MATH_ENTRIES, "math.", False),
                                   (math_functions.ENTRIES, "math.", False)):
        for entry in family:
            name = prefix + entry.rule.name
            floats = [d for d in entry.domain if not isinstance(d, int)]
            shapes = SHAPES[len(floats)] if arrays else [((),) * len(floats)]
            for shape in shapes:
                shape = (shape,) if len(floats) == 1 and arrays else shape
                out.append((f"{name}-{'-'.join(map(str, shape)) or 'float'}", name, entry,
                            shape))
    return out


def arguments(entry, shapes, seed=0):
    """The call's arguments: floats and arrays in the entry's domain, int operands as they
    are."""
    rng = np.random.default_rng(seed)
    floats = iter(shapes)
    return [d if isinstance(d, int) else _sample(d, next(floats), rng) for d in entry.domain]


def call_text(name, entry):
    xs = [f"x{k}" for k in range(len(entry.domain))]
    return f"{name}({', '.join(xs)})"
