"""Cases generated for the shape and movement family of the rule table
(srcad/rules/movement.py, srcad/rules/selection.py): for each function, calls with its
keywords by position and by name, on operands of several shapes. tests/rules/test_shape_rules.py
checks each in every mode against central finite differences; a function of the family without
a case fails `test_every_family_function_has_cases`.

Each case is `(call, x's shape)`: `probe(x)` returns a position-weighted, nonlinear sum of the
call's elements (np.cumsum of the flat result, squared), so a derivative that puts a seed in
the wrong element disagrees with finite differences (a plain sum would not see it)."""

import itertools
import linecache

import numpy as np

_counter = itertools.count()

# int arrays the calls index with (constants: no derivative)
CONSTANTS = {
    "IDX": np.array([2, 0, 2, 1]),
    "IDX2": np.array([[1, 0], [0, 2]]),
    "WIDE": np.array([-7, 1, 9]),
    "ORDER": np.array([[2, 2, 0], [1, 0, 1]]),
    "COLUMN": np.array([[1], [2]]),
}

CASES = [
    ("np.tile(x, 2)", (3,)), ("np.tile(x, (2, 1))", (2, 3)), ("np.tile(x, (2, 1, 2))", (2, 3)),
    ("np.tile(x, reps=(3,))", (2, 2)), ("np.tile(x, 3)", ()),
    ("np.repeat(x, 2)", (2, 3)), ("np.repeat(x, 3, axis=1)", (2, 3)),
    ("np.repeat(x, (1, 0, 2), axis=-1)", (2, 3)), ("x.repeat(2, axis=0)", (2, 3)),
    ("np.repeat(x, repeats=(2, 1, 3))", (3,)),
    ("np.roll(x, 2)", (2, 3)), ("np.roll(x, -1, axis=1)", (2, 3)),
    ("np.roll(x, (1, 2), axis=(0, 1))", (2, 3)), ("np.roll(x, shift=1, axis=0)", (3,)),
    ("np.flip(x)", (2, 3)), ("np.flip(x, 1)", (2, 3)), ("np.flip(x, axis=(0, -1))", (2, 3, 2)),
    ("np.fliplr(x)", (2, 3)), ("np.flipud(x)", (3,)), ("np.flipud(x)", (2, 3)),
    ("np.rot90(x)", (2, 3)), ("np.rot90(x, 3)", (2, 3)),
    ("np.rot90(x, k=2, axes=(1, 2))", (2, 3, 2)),
    ("np.rot90(x, -1, (1, 0))", (2, 3)),
    ("np.pad(x, 1)", (3,)), ("np.pad(x, ((1, 0), (0, 2)))", (2, 3)),
    ("np.pad(x, 2, mode='edge')", (2, 3)), ("np.pad(x, (2, 1), 'reflect')", (2, 3)),
    ("np.pad(x, 3, mode='wrap')", (4,)), ("np.pad(x, 1, mode='symmetric')", (2, 3)),
    ("np.pad(x, pad_width=1, constant_values=2.5)", (2, 2)),
    ("np.swapaxes(x, 0, 1)", (2, 3)), ("x.swapaxes(0, -1)", (2, 3, 2)),
    ("np.swapaxes(x, axis1=2, axis2=1)", (2, 3, 2)),
    ("np.moveaxis(x, 0, -1)", (2, 3, 4)), ("np.moveaxis(x, (0, 1), (2, 0))", (2, 3, 4)),
    ("np.moveaxis(x, source=2, destination=0)", (2, 3, 4)),
    ("np.sort(x)", (5,)), ("np.sort(x, axis=0)", (3, 2)), ("np.sort(x, axis=None)", (2, 3)),
    ("np.sort(x, kind='stable')", (2, 3)),
    ("np.partition(x, 3)", (7,)), ("np.partition(x, kth=(0, 2), axis=0)", (4, 3)),
    ("np.partition(x, 1, None)", (2, 3)),
    ("np.rollaxis(x, 2)", (2, 3, 4)), ("np.rollaxis(x, 0, start=3)", (2, 3, 4)),
    ("np.rollaxis(x, axis=-1, start=-2)", (2, 3, 4)),
    ("np.take(x, IDX)", (2, 3)), ("np.take(x, IDX[:3], axis=1)", (2, 3)),
    ("np.take(x, IDX2, axis=0)", (3, 2)), ("x.take(IDX, axis=0)", (3,)),
    ("np.take(x, WIDE, mode='wrap')", (2, 3)), ("np.take(x, WIDE, axis=1, mode='clip')", (2, 3)),
    ("np.take(x, 4)", (2, 3)), ("np.take(x, indices=IDX2, axis=-1)", (2, 3)),
    ("np.take(x, [0, 2, 2])", (3,)), ("np.take(x, indices=(1, 0), axis=1)", (2, 3)),
    ("np.take_along_axis(x, ORDER, axis=1)", (2, 3)), ("np.take_along_axis(x, COLUMN, 1)", (2, 3)),
    ("np.take_along_axis(x, ORDER, axis=0)", (3, 3)),
    ("np.take_along_axis(x, IDX, axis=None)", (2, 3)),
    ("np.diag(x)", (3,)), ("np.diag(x, 1)", (3,)), ("np.diag(x, k=-2)", (3,)),
    ("np.diag(x)", (3, 4)),
    ("np.diag(x, -1)", (3, 4)), ("np.diag(x, k=2)", (3, 4)),
    ("np.diagonal(x)", (3, 4)), ("np.diagonal(x, 1)", (3, 4)),
    ("np.diagonal(x, offset=-1, axis1=1, axis2=2)", (2, 3, 4)), ("x.diagonal(0, 2, 0)", (2, 3, 4)),
    ("np.diagflat(x)", (3,)), ("np.diagflat(x, -1)", (2, 2)), ("np.diagflat(x, k=2)", (2,)),
    ("np.tril(x)", (3, 3)), ("np.tril(x, -1)", (3, 4)), ("np.triu(x, k=1)", (3, 4)),
    ("np.triu(x)", (2, 3, 3)),
    ("np.trace(x)", (3, 3)), ("np.trace(x, 1)", (3, 4)),
    ("np.trace(x, offset=-1, axis1=1, axis2=2)", (2, 3, 4)), ("x.trace(offset=1)", (3, 3)),
    ("np.trace(x, 1, 2, 0)", (2, 3, 4)), ("np.diagonal(x, 1, 3, 1)", (2, 3, 2, 4)),
    ("np.squeeze(x[:, None, :], axis=1)", (2, 3)), ("x[None, :, None].squeeze((0, 2))", (3,)),
    ("np.repeat(x, [1, 0, 2]) + np.tile(x, [1])", (3,)),
    ("np.pad(x, [[1, 0], [0, 2]], mode='edge') + np.pad(x, 1, constant_values=(1.0, 2.0))[1:, :]",
     (2, 3)),
    ("np.roll(x, shift=[1], axis=[0]) + np.moveaxis(x, [0], [1]).T", (3, 3)),
    ("np.roll(x * x, 1, 0) + np.flip(x, 0)", (3, 2)), ("np.sort(np.sin(x))[::-1]", (4,)),
]


def function_of(call: str):
    """`def probe(x)` over `call`, with source srcad reads (linecache)."""
    filename = f"<shape rule case {next(_counter)}>"
    text = (f"def probe(x):\n    y = np.ravel({call})\n"
            "    return np.sum(np.cumsum(y) ** 2)\n")
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    namespace = {"np": np, **CONSTANTS}
    exec(compile(text, filename, "exec"), namespace)
    return namespace["probe"]


def argument(shape, seed=0):
    """Distinct values (no ties: np.sort's order is the same a step away)."""
    rng = np.random.default_rng(seed)
    size = int(np.prod(shape, dtype=int))
    values = (rng.permutation(size) + rng.uniform(0.1, 0.4, size)) / size
    return float(values[0]) if shape == () else values.reshape(shape)


def case_id(call, shape) -> str:
    return f"{call}-{'x'.join(map(str, shape)) or 'float'}"
