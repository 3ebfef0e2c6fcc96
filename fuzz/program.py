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
    'const_int' (int, passed bare), 'index' (an int array, the list `value`, passed bare) or
    'container' (a parameter container of structure `value`, Duplicated with a zero shadow
    of its structure; fuzz/grammar_containers.py)."""

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
    # mode -> the line its refusal must name, None: it must agree (fuzz/grammar_effects.py)
    refusals: dict | None = None


def make_inputs(program: Program, rng: np.random.Generator):
    """Values for `f`'s arguments (plain values, no annotations)."""
    values = []
    for arg in program.args:
        if arg.kind == "dup":
            values.append(np.round(rng.uniform(-1.5, 1.5, arg.shape), 3) + 0.0)
        elif arg.kind == "active":
            values.append(float(np.round(rng.uniform(-1.5, 1.5), 3)))
        elif arg.kind == "container":
            values.append(_container_values(arg.value, rng))
        else:
            values.append(arg.value)
    return values


def _container_values(spec, rng):
    """A parameter container of structure `spec` (fuzz/grammar_containers.py): "f" a float,
    n an array of n floats, ("int", v) the int v."""
    if isinstance(spec, dict):
        return {key: _container_values(v, rng) for key, v in spec.items()}
    if isinstance(spec, list):
        return [_container_values(v, rng) for v in spec]
    if isinstance(spec, tuple) and spec[0] == "record":  # ("record", class name, fields)
        import records_classes  # noqa: PLC0415  (fuzz/grammar_records.py only)
        return getattr(records_classes, spec[1])(**{k: _container_values(v, rng)
                                                    for k, v in spec[2].items()})
    if isinstance(spec, tuple):
        return spec[1]
    if spec == "f":
        return float(np.round(rng.uniform(-1.5, 1.5), 3))
    return np.round(rng.uniform(-1.5, 1.5, spec), 3) + 0.0


def container_repr(value) -> str:
    """Python text building the container `value` (arrays as np.array([...]))."""
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k!r}: {container_repr(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(container_repr(v) for v in value) + "]"
    if isinstance(value, np.ndarray):
        return f"np.array({_array_repr(value)})"
    fields = getattr(type(value), "__dataclass_fields__", None) or getattr(value, "_fields", None)
    if fields is not None:  # a record (fuzz/grammar_records.py)
        return f"{type(value).__name__}(" + ", ".join(
            f"{k}={container_repr(getattr(value, k))}" for k in fields) + ")"
    return repr(value)


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
        elif annotation == "container":
            text = container_repr(value)
            lines.append(f"        Duplicated({text}, tree_zeros_like({text})),")
        elif annotation == "const" and arg.kind == "container":
            lines.append(f"        {container_repr(value)},")
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
