"""What f returns, as the operators need to know it before their first derivative: a float,
an array (and its shape) or an Output argument.

Guarantees: f is not run where srcad's code of f typed its returned value a float (f on
CPython can take minutes where the compiled derivative takes milliseconds: GradBench's
k-means at k=1000, n=10000); an array's shape is learned by running f once on copies of its
arguments; an operator that needs a float-valued f refuses any other with the same message
whether or not its code could be built.
"""

from __future__ import annotations

import numpy as np

from srcad.analysis.value_types import FLOAT
from srcad.errors import ArgumentError, SrcadError


def output_kind(f, slots, compiled=None):
    """("output", array) | ("array", zeros like it) | ("float", None): what f produces.
    Where srcad's code of f (`compiled`) typed f's returned value a float, that is the
    answer and f is not run (f in CPython can take minutes where its compiled code takes
    milliseconds); else f runs once on copies of the arguments (an array's shape is needed)."""
    outputs = [s for s in slots if s.role == "output"]
    if outputs:
        return "output", outputs[0].value
    if compiled is not None and compiled.returned == FLOAT:
        return "float", None
    copies = [s.value.copy() if isinstance(s.value, np.ndarray) else s.value for s in slots]
    result = f(*copies)
    if isinstance(result, np.ndarray):
        return "array", np.zeros_like(result, dtype=float)
    if isinstance(result, (float, np.floating, int)):
        return "float", None
    raise ArgumentError(f"f returned {type(result).__name__}; operators need a float, a float "
                        "array, or an Output(y) argument")


def float_engine(operator, f, slots, build, compiled_of, hint: str):
    """`build()`, the engine of an operator that needs f to return a float, after checking
    that f does (`output_kind` of the engine's code, `compiled_of(engine)`): refused naming
    `operator` if not. Where the build itself refuses, f is run to tell an f that returns no
    float (that refusal, as before any build) from a construct the build refuses."""
    refusal = ArgumentError(f"{operator} needs f to return a float", hint=hint)
    try:
        engine = build()
    except SrcadError:
        if output_kind(f, slots)[0] != "float":
            raise refusal from None
        raise
    if output_kind(f, slots, compiled_of(engine))[0] != "float":
        raise refusal
    return engine
