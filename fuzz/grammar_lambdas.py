"""Programs passed to srcad as a lambda (`--lambdas`): the module gets `f_as_lambda`, a lambda
calling `f` (when f returns one float, sometimes `LAMBDA_SCALE * f(...)`, reading a
module-level constant, or `f(...)` handed to a lambda called in place), and
fuzz/checking.py checks it instead of `f`. So the whole program runs through srcad's reading of
a lambda's text (srcad/frontend/lambdas.py) and the inlining of the def it calls. Half the programs
of
a run are passed so, drawn from `random.Random(f"lambda {seed}")`: the program of a seed does not
change.
"""

from __future__ import annotations

import ast
import random

ENTRY = "f_as_lambda"


def through_lambda(text: str, program, seed: int) -> str:
    """`text` (a module from `program.module_text`) with `f_as_lambda` added for half the
    seeds; the others unchanged."""
    rng = random.Random(f"lambda {seed}")
    if rng.random() >= 0.5:
        return text
    params = ", ".join(arg.name for arg in program.args)
    call = f"f({params})"
    if program.returns_float and rng.random() < 0.5 and not _returns_tuple(program):
        scale = rng.choice([0.5, 2.0, -1.5])
        text += f"\n\nLAMBDA_SCALE = {scale!r}\n"
        call = f"LAMBDA_SCALE * {call}" if rng.random() < 0.5 else \
            f"(lambda value: value * LAMBDA_SCALE + value * value)({call})"  # called in place
    # inside the parentheses of a call, over two lines, as lambdas are often written
    return text + f"\n\n{ENTRY} = (lambda {params}:\n               {call})\n"


def _returns_tuple(program) -> bool:
    """Does `f` return a tuple (fuzz/grammar_python.py's tuple returns)?"""
    f = next(node for node in ast.parse(program.source).body
             if isinstance(node, ast.FunctionDef) and node.name == "f")
    return any(isinstance(node, ast.Return) and isinstance(node.value, ast.Tuple)
               for node in ast.walk(f))
