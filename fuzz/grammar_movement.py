"""Shape and movement calls in whole-array programs (`run.py --arrays --shapes movement`):
each program gains one to three statements applying NumPy's shape and movement functions
(`np.tile`, `np.repeat`, `np.roll`, `np.flip`, `np.rot90`, `np.pad` in each mode, `np.swapaxes`,
`np.moveaxis`, `np.sort`, `np.take` through the int array `idx`, `np.diag`, `np.diagonal`,
`np.diagflat`, `np.tril`, `np.triu`, `np.trace`, `np.linspace` between values, `np.r_`,
nested lists as arrays, `a, b = np.split(e, 2)`) to arrays in scope, with their keywords by
position or by name; each result joins the program's arrays (its shape computed by NumPy) or,
for a trace, its floats.

Drawn from its own random stream (`random.Random("movement <seed>")`): without `movement` every
seed keeps its program. The numba backend compiles the family (srcad/runtime/numba_movement.py,
numba_padding.py, numba_selection.py); np.linspace between values that carry a derivative, and
whatever else numba cannot compile, must be refused with a SrcadError naming the call.
"""

from __future__ import annotations

import random

import numpy as np

ANY = ["np.tile({0}, 2)", "np.repeat({0}, 2)", "np.roll({0}, {k})", "np.flip({0})",
       "np.flipud({0})", "np.pad({0}, 1)", "np.pad({0}, (1, 2), mode='edge')",
       "np.pad({0}, 1, 'reflect')", "np.pad({0}, 2, mode='wrap')", "np.sort({0}, axis=None)",
       "np.sort({0})", "np.take({0}, idx)"]
MATRIX = ["np.tile({0}, (2, 1))", "np.repeat({0}, 2, axis=1)", "np.roll({0}, {k}, axis=0)",
          "np.roll({0}, ({k}, 1), axis=(0, 1))", "np.flip({0}, 1)", "np.fliplr({0})",
          "np.rot90({0})", "np.rot90({0}, k=-1, axes=(1, 0))", "np.swapaxes({0}, 0, 1)",
          "np.moveaxis({0}, 0, -1)", "np.sort({0}, axis=0)", "np.tril({0})",
          "np.triu({0}, k={k})", "np.diag({0}, {k})", "np.diagonal({0}, offset={k})",
          "np.trace({0}, {k})", "np.pad({0}, ((1, 0), (0, 2)), mode='symmetric')",
          "np.take({0}, idx, axis=1)"]
VECTOR = ["np.diag({0})", "np.diag({0}, k={k})", "np.diagflat({0}, -1)"]
# arrays written out and linspace between values (any operand: reduced to numbers first)
WRITTEN = ["np.linspace(np.sum({0}), a, 4)", "np.linspace(a, stop=np.mean({0}), num=5)",
           "np.r_[{0}, {0} * 2.0]", "np.array([[np.sum({0}), a], [a * a, np.mean({0})]])",
           "np.mean([[np.sum({0}), a], [a, 2.0]], axis=0)"]


class MovementGrammar:
    def movement_statements(self) -> list:
        """Statements binding shape and movement results; each joins the program's values."""
        rng = random.Random(f"movement {self.seed}")
        lines = []
        for _ in range(rng.randint(1, 3)):
            name = self.fresh("mv")
            array, shape = rng.choice(sorted(self.arr_scope.items()))
            operand = rng.choice([array, f"{array} * a", f"np.sin({array})"])
            if rng.random() < 0.2 and shape[0] % 2 == 0:  # a, b = np.split(e, 2)
                first, second = self.fresh("part"), self.fresh("part")
                lines.append(f"{first}, {second} = np.split({operand}, 2)")
                for part in (first, second):
                    self.arr_scope[part] = (shape[0] // 2,) + tuple(shape[1:])
                continue
            forms = ANY + WRITTEN + (MATRIX if len(shape) == 2 else VECTOR)
            form = rng.choice(forms).format(operand, k=rng.choice([-1, 1, 2]))
            result = _shape(form, array, shape, self.idx_max, self.n_idx)
            if result is None:  # NumPy raises for this shape (an index past the end)
                continue
            lines.append(f"{name} = {form}")
            if result == ():
                self.arr_floats.append(name)
            else:
                self.arr_scope[name] = result
        return lines


def _shape(form, array, shape, idx_max, n_idx):
    """The shape NumPy gives `form` for `array` of `shape`, or None if NumPy refuses it."""
    namespace = {"np": np, "a": 1.0, array: np.ones(shape),
                 "idx": np.full(n_idx, idx_max)}
    try:
        return np.shape(eval(form, namespace))
    except (IndexError, ValueError):
        return None
