"""The library rules added last (`run.py --arrays --shapes library-rules`): each whole-array
program gains one or two statements from its own random stream (`random.Random("library rules
<seed>")`, so without the option every seed keeps its program), each binding a float the
result adds up:

np.convolve / np.correlate of two vectors and scipy.signal.convolve / correlate of two
vectors or matrices (mode full, valid or same, both operands computed from the arguments),
np.partition (kth, axis), np.rollaxis (axis, start), np.kron of operands of two ranks,
np.gradient along an axis, np.cross of a 2-vector and a 3-vector, scipy.special.iv / ive of
a constant order, multigammaln, the method x.round(decimals) and np.squeeze of a tuple of
axes. On the numba backend all of them compile (srcad/runtime/numba_convolution.py,
numba_reorder.py, numba_special.py).

`--shapes library-numba` adds, from a stream of its own (`random.Random("library numba
<seed>")`), one statement of the forms the numba backend compiled last: np.kron of operands of
rank 3, a correlation whose first operand is the shorter, np.partition of a whole matrix
(axis=None), multigammaln of a number, math.dist of points written out.
"""

from __future__ import annotations

import math  # noqa: F401 (math.dist in the programs)
import random

# imported before the first program runs under the harness's time limit (a SIGALRM): an import
# of scipy.signal (slow) cut by it leaves the module half made for every later program
import scipy.signal  # noqa: F401
import scipy.special  # noqa: F401

PRELUDE = "import math\nimport scipy.signal\nimport scipy.special\n"


def _vector_forms(v, w, n):
    """The forms of vectors `v` and `w` (both of length n, made of arrays in scope)."""
    forms = [f"np.sum(np.convolve({v}, {w}[:{{k}}], {{mode}}) ** 2)",
             f"np.sum(np.correlate({v}[:{{k}}], {w}, mode={{mode}}) * 1.3)",
             f"np.sum(scipy.signal.convolve({v}, np.sin({w}), mode={{mode}}) ** 2)",
             f"np.sum(scipy.signal.correlate({v}, {w}[:{{k}}], {{mode}}) * 0.7)",
             f"np.sum(np.partition({v} * {v}, {{k0}}) * np.arange({n}.0))",
             f"np.sum(np.kron({v}, np.outer({w}, {w})[:2]) * 0.5)",
             f"np.sum(np.gradient({v} * {w}) ** 2)",
             f"np.sum(np.cross({v}[:2], {w}[:3]) * np.array([1.0, -0.5, 2.0]))",
             f"np.sum(scipy.special.iv(1.5, 0.5 * {v}) + scipy.special.ive(2, {w}))",
             f"np.sum(scipy.special.multigammaln(2.5 + {v} * {v}, 2))",
             f"np.sum({v}.round(1) * {w})"]
    return [f for f in forms if not ("cross" in f and n < 3 or "gradient" in f and n < 2)]


def _matrix_forms(m):
    """Forms of a matrix `m`; {axis} an axis, {k0} an index along it."""
    return [f"np.sum(np.partition({m}, {{k0}}, axis={{axis}}) ** 2)",
            f"np.sum(np.rollaxis({m}[None] * 1.5, {{axis}}, {{start}}) ** 2)",
            f"np.sum(np.gradient({m}, axis={{axis}}) * 0.9)",
            f"np.sum(scipy.signal.convolve({m}, np.sin({m}[:1, :1]), mode={{mode}}) ** 2)",
            f"np.sum(np.squeeze({m}[None, :, None], axis=(0, 2)) ** 2)"]


class LibraryRulesGrammar:
    def library_rules_statements(self) -> list:
        """Statements of `library-rules`; each binds a float the result adds up."""
        rng = random.Random(f"library rules {self.seed}")
        lines = []
        for _ in range(rng.randint(1, 2)):
            array, shape = rng.choice(sorted(self.arr_scope.items()))
            mode = repr(rng.choice(["full", "valid", "same"]))
            if len(shape) == 1:
                other = rng.choice([a for a, s in sorted(self.arr_scope.items()) if s == shape])
                v = rng.choice([array, f"({array} * a)", f"np.sin({array})"])
                form = rng.choice(_vector_forms(v, f"np.cos({other})", shape[0]))
                form = form.replace("{k}", str(rng.randint(1, shape[0])))
                form = form.replace("{k0}", str(rng.randrange(shape[0])))
            elif len(shape) == 2:
                axis = rng.randrange(2)
                forms = _matrix_forms(rng.choice([array, f"np.tanh({array})"]))
                form = rng.choice([f for f in forms if shape[axis] >= 2 or "gradient" not in f])
                form = form.replace("{axis}", str(axis)).replace(
                    "{k0}", str(rng.randrange(shape[axis]))).replace(
                    "{start}", str(rng.randint(0, 3)))
            else:
                continue
            name = self.fresh("rule")
            lines.append(f"{name} = {form.replace('{mode}', mode)}")
            self.arr_floats.append(name)
        return lines

    def library_numba_statements(self) -> list:
        """Statements of `library-numba`; each binds a float the result adds up."""
        rng = random.Random(f"library numba {self.seed}")
        matrices = [a for a, s in sorted(self.arr_scope.items()) if len(s) == 2]
        vectors = [a for a, s in sorted(self.arr_scope.items()) if len(s) == 1]
        forms = ["math.dist([a, {v}[0] * a], [{v}[-1], 1.5])",
                 "float(scipy.special.multigammaln(3.0 + a * a, 3))"]
        if vectors:
            forms.append("np.sum(np.correlate(np.sin({v})[:1], np.cos({v}) * a, 'same') ** 2)")
        if matrices:
            forms += ["np.sum(np.kron({m}[None] * a, np.tanh({m})[:, None]) * 0.5)",
                      "np.sum(np.partition({m} * a, 0, axis=None) * np.arange({m}.size))"]
        form = rng.choice(forms)
        if "{v}" in form and not vectors:
            return []
        form = form.replace("{v}", rng.choice(vectors) if vectors else "")
        form = form.replace("{m}", rng.choice(matrices) if matrices else "")
        name = self.fresh("rule")
        self.arr_floats.append(name)
        return [f"{name} = {form}"]
