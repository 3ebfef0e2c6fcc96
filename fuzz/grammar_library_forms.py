"""Library forms srcad writes out or reads lane by lane (`run.py --arrays --shapes
library-forms`): each whole-array program gains one or two statements from its own random
stream (`random.Random("library forms <seed>")`, so without the option every seed keeps its
program), each binding a float the result adds up:

a part of np.split / np.array_split read by a literal index, np.broadcast_arrays read by
index (of arrays named: a computed one is refused), np.c_ of two vectors, np.linspace with
array ends, np.cumprod along an axis of a matrix, scipy.linalg.lu_solve(lu_factor(...), b,
trans=) of a well-conditioned matrix, math.fsum / math.prod / statistics.fmean of a
vector, np.interp in x and fp, np.full / np.full_like filled with a value that carries a
derivative (np.full and np.broadcast_to to an int n or to `()`, np.reshape to `()`), and
np.linalg.det of a singular matrix (a square matrix with its first row repeated: det is 0
everywhere there, so its gradient through the cofactors is 0). On the numba backend
np.linspace, np.cumprod, np.full of a number, np.broadcast_to, np.reshape, det and np.interp
compile (srcad/runtime/numba_scans.py, numba_decompositions.py, numba_interp.py); the others
are refused by name (srcad differentiates them on the python backend).
"""

from __future__ import annotations

import random

PRELUDE = "import statistics\n\nimport scipy.linalg\n"


def _vector_forms(name, v, n):
    """The forms of a vector: `name` the array in scope, `v` an operand made of it."""
    return [f"np.sum(np.sin(np.array_split({v}, 2)[-1]))",
            f"np.sum(np.split({v} * {v}, [1])[0])",
            f"np.sum(np.broadcast_arrays({name}[None, :], {name}[:, None])[{{k}}] * 1.3)",
            f"np.sum(np.c_[{v}, np.sin({v})] * 0.7)",
            f"np.sum(np.linspace({v}, 2.0 * {v}, 3) ** 2)",
            f"np.sum(scipy.linalg.lu_solve(scipy.linalg.lu_factor(2.0 * np.eye({n}) + 0.1 * "
            f"np.outer({v}, {v})), {v}, trans={{k}}))",
            f"math.fsum({v} * {v})", f"math.prod(1.0 + 0.1 * np.tanh({v}))",
            f"statistics.fmean(np.sin({v}))",
            f"np.sum(np.full({n}, np.sum({v}) * 0.5) * np.cos({v}))",
            f"np.sum(np.full((2, {n}), {v}) ** 2)",
            f"np.sum(np.full_like({name}, np.mean({v})) * {v})",
            f"np.sum(np.full((), np.sum({v})) * {v})",
            f"np.sum(np.broadcast_to(np.mean({v}), {n}) * {v})",
            f"np.sum(np.broadcast_to(np.sum({v} * {v}), ()) * np.sin({v}))",
            f"np.sum(np.reshape({v}[:1] * {v}[:1], ()) * {v})",
            f"np.sum(np.interp(np.sin({v}), np.linspace(-1.0, 1.0, {n}), {v} * {v}) ** 2)"]


def _matrix_forms(m):
    """(form, the axes it may take): np.split's parts along a literal axis that is not
    negative (a negative one is refused)."""
    return [(f"np.sum(np.cumprod(1.0 + 0.2 * np.tanh({m}), axis={{axis}}))", [0, 1, -1]),
            (f"np.sum(np.array_split({m}, 2, axis={{axis}})[0] ** 2)", [0, 1])]


def _square_forms(m):
    """Forms of a square matrix: det of it with its first row repeated (singular)."""
    return [(f"np.linalg.det(np.concatenate([{m}[:1], {m}[:-1]], axis=0)) + "
             f"np.sum(np.full_like({m}, np.trace({m})) * 0.1)", [0])]


class LibraryFormsGrammar:
    def library_forms_statements(self) -> list:
        """Statements of `library-forms`; each binds a float the result adds up."""
        rng = random.Random(f"library forms {self.seed}")
        lines = []
        for _ in range(rng.randint(1, 2)):
            array, shape = rng.choice(sorted(self.arr_scope.items()))
            operand = rng.choice([array, f"{array} * a", f"np.sin({array})"])
            if len(shape) == 1:
                form = rng.choice(_vector_forms(array, operand, shape[0])).replace(
                    "{k}", str(rng.randrange(2)))
            elif len(shape) == 2:
                square = _square_forms(operand) if shape[0] == shape[1] else []
                form, axes = rng.choice(_matrix_forms(operand) + square)
                form = form.replace("{axis}", str(rng.choice(axes)))
            else:
                continue
            name = self.fresh("form")
            lines.append(f"{name} = {form}")
            self.arr_floats.append(name)
        return lines
