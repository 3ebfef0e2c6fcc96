"""Annotation mixes for the fuzz programs: each float argument of `f` independently `Const` or
varied (a scalar Active in reverse mode and Duplicated in forward mode, an array Duplicated:
its input tangent or adjoint is the shadow, and its final contents, written in place, are an
output whose shadow is the seed). At least one argument stays varied.

A mix comes from a random stream of its own (`random.Random(f"annotations {seed}")`), so the
program of a seed does not change with it. A `Const` array that the program writes with values
that depend on a varied input must be refused (`ActivityError`: its derivative would be lost);
`expected_refusal` says when a refusal is that one.
"""

from __future__ import annotations

import random

# The chance that a float argument is Const: with three float arguments, about 30% of the
# mixes keep every argument varied (the fuzzer's programs before mixes existed).
CONST_CHANCE = 1 / 3
VARIED = ("dup", "active", "container")  # argument kinds a mix may make Const


def choose_annotations(program, seed: int) -> list[str]:
    """One annotation per argument of `program`: 'const', or its kind ('dup', 'active');
    int arguments stay as they are."""
    rng = random.Random(f"annotations {seed}")
    while True:
        mix = [("const" if rng.random() < CONST_CHANCE else arg.kind)
               if arg.kind in VARIED else arg.kind for arg in program.args]
        if any(kind in VARIED for kind in mix):
            return mix


def describe(program, annotations) -> str:
    """`y:dup x:const a:active`, for reports."""
    return " ".join(f"{arg.name}:{kind}" for arg, kind in zip(program.args, annotations)
                    if arg.kind in VARIED)


def expected_refusal(program, annotations, message: str) -> bool:
    """The refusal `message` is the one a Const array written with varied values must get."""
    const_arrays = [arg.name for arg, kind in zip(program.args, annotations)
                    if arg.kind == "dup" and kind == "const"]
    return bool(const_arrays) and message.startswith("ActivityError")
