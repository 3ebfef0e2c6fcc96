"""The fuzz program: what `generate(seed)` returns (`Program`, the kinds of `f`'s arguments),
the input values drawn for it and the module text (`args()` building the annotated arguments)
that fuzz/run.py imports and checks.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class ArgKind:
    """One argument of `f`: 'dup' (float array, Duplicated), 'active' (float, Active),
    'const_int' (int, passed bare) or 'index' (an int array, the list `value`, passed bare)."""

    kind: str
    name: str
    shape: tuple = ()
    value: int | list = 0


@dataclass
class Program:
    seed: int
    source: str  # the whole module, without the argument builder
    entry: str
    args: list[ArgKind]
    returns_float: bool
    nest: bool = False  # made by Generator.nest_program (or sum_program)
    sums: bool = False  # made by Generator.sum_program


def make_inputs(program: Program, rng: np.random.Generator):
    """Values for `f`'s arguments (plain values, no annotations)."""
    values = []
    for arg in program.args:
        if arg.kind == "dup":
            values.append(np.round(rng.uniform(-1.5, 1.5, arg.shape), 3) + 0.0)
        elif arg.kind == "active":
            values.append(float(np.round(rng.uniform(-1.5, 1.5), 3)))
        else:
            values.append(arg.value)
    return values


def module_text(program: Program, values, header: str = "", annotations=None) -> str:
    """A self-contained module: the program plus `args()` building the annotated arguments.
    `annotations` (fuzz/activity_mix.py), one per argument, may make a float argument
    'const' (passed bare); by default each argument is annotated as its kind says."""
    lines = []
    if header:
        lines += ['"""' + header.rstrip() + '\n"""', ""]
    body = program.source
    lines.append(body.rstrip())
    lines += ["", "", "def args():", "    return ("]
    annotations = annotations or [arg.kind for arg in program.args]
    for arg, value, annotation in zip(program.args, values, annotations):
        if annotation == "dup":
            lines.append(f"        Duplicated(np.array({_array_repr(value)}), "
                         f"np.zeros({tuple(np.shape(value))!r})),")
        elif annotation == "active":
            lines.append(f"        Active({float(value)!r}),")
        elif annotation == "const" and arg.kind == "dup":
            lines.append(f"        np.array({_array_repr(value)}),")
        elif annotation == "const" and arg.kind == "active":
            lines.append(f"        {float(value)!r},")
        elif arg.kind == "index":
            lines.append(f"        np.array({list(value)!r}),")
        else:
            lines.append(f"        {value!r},")
    lines.append("    )")
    return "\n".join(lines) + "\n"


def _array_repr(value) -> str:
    value = np.asarray(value)
    if value.ndim == 0:
        return repr(float(value))
    return "[" + ", ".join(_array_repr(v) for v in value) + "]"


PRELUDE = ("import math\n\nimport numpy as np\n\n"
           "from srcad import Active, Duplicated  # noqa: F401\n")
