"""Linear algebra in whole-array programs (`run.py --arrays --shapes linalg`): each program
gains one to three statements applying einsum, tensordot, the products (kron, outer, vdot,
inner), the decompositions (eigvalsh, eigh, svd, pinv, cholesky, slogdet, inv,
matrix_power), stacks of matrices and scipy.linalg (solve_triangular with lower=True,
cholesky, solve with assume_a='pos', expm) to the arrays in scope; each result joins the
floats the program returns.

Matrices are kept well-conditioned by the form (`A @ A.T + m * I` for a symmetric positive
definite one, `0.3 * S` inside a power or exponential), and eigenvectors and singular vectors
enter squared (their signs are arbitrary). Drawn from its own random stream
(`random.Random("linalg <seed>")`): without `linalg` every seed keeps its program. On the
numba backend eigvalsh, cholesky, slogdet, inv and scipy.linalg but expm run; a program with
any other form must be refused with a SrcadError.
"""

from __future__ import annotations

import random

PRELUDE = "import scipy.linalg\n"

# forms of a matrix {0} of shape (m, n) (m, n >= 1), giving a float
RECTANGULAR = ['np.sum(np.einsum("ij,kj->ik", {0}, {0}))',
               'np.sum(np.einsum("ij->j", {0}) ** 2)',
               "np.sum(np.tensordot({0}, {0}, axes=([0], [0])))",
               "np.sum(np.tensordot({0}, np.sin({0}), 2))",
               "np.sum(np.linalg.svd({0} + 0.1, compute_uv=False))",
               "np.sum(np.kron({0}, {0}[:1, :1]))",
               "np.vdot({0}, np.cos({0}))",
               "np.sum(np.inner({0}, {0}))",
               "np.sum(np.outer({0}, {0}[0]))"]
# forms of a symmetric positive definite matrix {0} of shape (m, m), giving a float
SPD = ["np.sum(np.linalg.eigvalsh({0}) ** 2)",
       "np.sum(np.linalg.cholesky({0}))",
       "np.linalg.slogdet({0})[1]",
       "np.sum(np.linalg.inv({0}))",
       "np.sum(scipy.linalg.solve_triangular(np.linalg.cholesky({0}), {0}[0], lower=True))",
       "np.sum(scipy.linalg.cholesky({0}))",
       "np.sum(scipy.linalg.solve({0}, {0}[:, 0], assume_a='pos'))",
       "np.sum(np.linalg.matrix_power(0.1 * {0}, 3))",
       "np.sum(scipy.linalg.expm(0.05 * {0}))",
       "np.sum(np.linalg.det(np.stack([{0}, 1.5 * {0}])))",
       "np.sum(np.stack([{0}, {0}]) @ {0})"]
# with the shape `decompositions` (its own stream, `random.Random("decompositions <seed>")`):
# forms of a symmetric positive definite {0} through the decompositions and products the
# numba backend compiles too (srcad/runtime/numba_decompositions.py, numba_products.py)
DECOMPOSITIONS = ["np.sum(np.linalg.multi_dot([{0}, np.sin({0}), {0}[0]]))",
                  "np.sum(np.linalg.qr({0})[1] ** 2)",
                  "np.sum(np.linalg.qr({0}).Q ** 2)",
                  "np.sum(np.linalg.pinv({0}))",
                  "np.linalg.cond({0})",
                  "np.sum(np.linalg.lstsq({0}, np.cos({0}[0]), rcond=None)[0])",
                  "np.sum(np.linalg.svd({0}, full_matrices=False)[2] ** 2)",
                  "np.sum(np.tensordot({0}, {0}, axes=([1], [1])))",
                  "np.sum(np.kron({0}[0], {0}[:, 0]))"]


class LinalgGrammar:
    def linalg_statements(self) -> list:
        """Statements binding linear algebra results; each new local joins the result."""
        rng = random.Random(f"linalg {self.seed}")
        lines = []
        matrices = sorted((name, shape) for name, shape in self.arr_scope.items()
                          if len(shape) == 2)
        if not matrices:
            return lines
        for _ in range(rng.randint(1, 3)):
            name = self.fresh("lin")
            matrix, (m, _n) = rng.choice(matrices)
            operand = rng.choice([matrix, f"{matrix} * a", f"np.sin({matrix})"])
            if rng.random() < 0.45:
                grouped = f"({operand})" if " " in operand else operand
                lines.append(f"{name} = {rng.choice(RECTANGULAR).format(grouped)}")
            else:
                spd = self.fresh("spd")
                lines.append(f"{spd} = ({operand}) @ ({operand}).T + {m}.0 * np.eye({m})")
                lines.append(f"{name} = {rng.choice(SPD).format(spd)}")
            self.arr_floats.append(name)
        if "decompositions" in self.shapes:
            lines += self._decomposition_statements(matrices)
        return lines

    def _decomposition_statements(self, matrices) -> list:
        rng = random.Random(f"decompositions {self.seed}")
        lines = []
        for _ in range(rng.randint(1, 2)):
            name, spd = self.fresh("dec"), self.fresh("spd")
            matrix, (m, _n) = rng.choice(matrices)
            operand = rng.choice([matrix, f"{matrix} * a", f"np.sin({matrix})"])
            lines.append(f"{spd} = ({operand}) @ ({operand}).T + {m}.0 * np.eye({m})")
            lines.append(f"{name} = {rng.choice(DECOMPOSITIONS).format(spd)}")
            self.arr_floats.append(name)
        return lines
