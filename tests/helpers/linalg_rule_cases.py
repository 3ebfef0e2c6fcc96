"""Cases generated from the linear algebra rule tables (srcad/rules/linalg.py's ENTRIES,
srcad/rules/spectral.py's ENTRIES, srcad/rules/scipy_linalg.py's SHAPED and the stacked forms
of srcad/rules/decompositions.py): for each function, the calls a user writes (keywords by
position and by name, shapes that broadcast, stacks of matrices) and the kind of each operand.
tests/rules/test_linalg_rules.py checks each in every mode against central differences and
against JAX; a function in a table without cases here fails test_every_linalg_entry_has_cases.
"""

import itertools
import linecache

import numpy as np
import scipy.linalg

_counter = itertools.count()

# operand kinds: how a value is drawn (a well-conditioned square matrix, a symmetric positive
# definite one, a triangle) and, for the JAX comparison, whether the function reads only a
# triangle of it as a symmetric matrix ("sym": NumPy folds the adjoint onto the triangle, JAX
# symmetrizes; both agree on g + g^T)
ANY, SQUARE, SPD, LOWER, UPPER, SYM = "any", "square", "spd", "lower", "upper", "sym"


def _case(call, *operands, name, jax=True, symmetric=()):
    return {"call": call, "operands": operands, "name": name, "jax": jax,
            "symmetric": symmetric}


CASES = [
    # einsum: explicit and implicit output, traces, diagonals, ellipsis, broadcasting
    _case('np.einsum("ij,jk->ik", x0, x1)', (ANY, (3, 4)), (ANY, (4, 2)), name="einsum"),
    _case('np.einsum("ij,jk", x0, x1)', (ANY, (3, 4)), (ANY, (4, 2)), name="einsum"),
    _case('np.einsum("ji", x0) * 1.0', (ANY, (3, 4)), name="einsum"),
    _case('np.einsum("ii", x0)', (ANY, (3, 3)), name="einsum"),
    _case('np.einsum("ii->i", x0)', (ANY, (3, 3)), name="einsum"),
    _case('np.einsum("ij->", x0)', (ANY, (3, 4)), name="einsum"),
    _case('np.einsum("i,i", x0, x1)', (ANY, (4,)), (ANY, (4,)), name="einsum"),
    _case('np.einsum("ijk,ik->j", x0, x1)', (ANY, (2, 3, 4)), (ANY, (2, 4)), name="einsum"),
    _case('np.einsum("i,j,k->ijk", x0, x1, x2)', (ANY, (2,)), (ANY, (3,)), (ANY, (2,)),
          name="einsum"),
    _case('np.einsum("...ij,...j->...i", x0, x1)', (ANY, (2, 3, 4)), (ANY, (4,)),
          name="einsum"),
    _case('np.einsum("...i,...i->...", x0, x1)', (ANY, (4, 1, 3)), (ANY, (2, 3)),
          name="einsum"),
    _case('np.einsum("...ii->...i", x0)', (ANY, (2, 3, 3)), name="einsum"),
    _case('np.einsum("ij,jk->ik", x0, x1, optimize=True)', (ANY, (3, 4)), (ANY, (4, 2)),
          name="einsum"),
    # tensordot: axes= an int, by position, or two lists
    _case("np.tensordot(x0, x1)", (ANY, (2, 3, 4)), (ANY, (3, 4)), name="tensordot"),
    _case("np.tensordot(x0, x1, 1)", (ANY, (3, 4)), (ANY, (4, 2)), name="tensordot"),
    _case("np.tensordot(x0, x1, axes=0)", (ANY, (3,)), (ANY, (2,)), name="tensordot"),
    _case("np.tensordot(x0, x1, axes=([1], [0]))", (ANY, (3, 4)), (ANY, (4, 2)),
          name="tensordot"),
    _case("np.tensordot(x0, x1, axes=([0, 2], [1, 0]))", (ANY, (2, 3, 4)), (ANY, (4, 2, 5)),
          name="tensordot"),
    _case("np.tensordot(x0, x1, axes=(-1, 0))", (ANY, (3, 4)), (ANY, (4, 2)), name="tensordot"),
    # products
    _case("np.inner(x0, x1)", (ANY, (2, 3)), (ANY, (4, 3)), name="inner"),
    _case("np.inner(x0, x1)", (ANY, (3,)), (ANY, (2, 3)), name="inner"),
    _case("np.outer(x0, x1)", (ANY, (2, 3)), (ANY, (2,)), name="outer"),
    _case("np.vdot(x0, x1)", (ANY, (2, 3)), (ANY, (6,)), name="vdot"),
    _case("np.vdot(x0, x1)", (ANY, (4,)), (ANY, (4,)), name="vdot"),
    _case("np.kron(x0, x1)", (ANY, (2,)), (ANY, (3,)), name="kron"),
    _case("np.kron(x0, x1)", (ANY, (2, 3)), (ANY, (3, 2)), name="kron"),
    _case("np.kron(x0, x1)", (ANY, (2, 3)), (ANY, (2,)), name="kron"),
    _case("np.kron(x0, x1)", (ANY, (3,)), (ANY, (2, 2)), name="kron"),
    _case("np.kron(x0, x1)", (ANY, (2, 1, 2)), (ANY, (2, 2, 1)), name="kron"),
    _case("np.cross(x0, x1)", (ANY, (3,)), (ANY, (3,)), name="cross"),
    _case("np.cross(x0, x1)", (ANY, (4, 3)), (ANY, (3,)), name="cross"),
    _case("np.linalg.matrix_power(x0, 3)", (SQUARE, (3, 3)), name="matrix_power"),
    _case("np.linalg.matrix_power(x0, n=-2)", (SQUARE, (3, 3)), name="matrix_power"),
    _case("np.linalg.matrix_power(x0, 2)", (SQUARE, (2, 3, 3)), name="matrix_power"),
    _case("np.linalg.multi_dot([x0, x1, x2])", (ANY, (3, 4)), (ANY, (4, 2)), (ANY, (2,)),
          name="multi_dot"),
    _case("np.linalg.multi_dot([x0, x1, x2, x3])", (ANY, (3,)), (ANY, (3, 4)),
          (ANY, (4, 2)), (ANY, (2, 3)), name="multi_dot"),
    # stacks of matrices
    _case("x0 @ x1", (ANY, (2, 3, 4)), (ANY, (4, 2)), name="matmul"),
    _case("x0 @ x1", (ANY, (1, 3, 4)), (ANY, (2, 4, 2)), name="matmul"),
    _case("np.matmul(x0, x1)", (ANY, (3,)), (ANY, (2, 3, 4)), name="matmul"),
    _case("x0 @ x1", (ANY, (2, 3, 4)), (ANY, (4,)), name="matmul"),
    _case("np.linalg.solve(x0, x1)", (SQUARE, (2, 3, 3)), (ANY, (3,)), name="solve"),
    _case("np.linalg.solve(x0, x1)", (SQUARE, (2, 3, 3)), (ANY, (2, 3, 2)), name="solve"),
    _case("np.linalg.solve(x0, x1)", (SQUARE, (3, 3)), (ANY, (2, 3, 2)), name="solve"),
    _case("np.linalg.inv(x0)", (SQUARE, (2, 3, 3)), name="inv"),
    _case("np.linalg.det(x0)", (ANY, (2, 3, 3)), name="det"),
    _case("np.linalg.slogdet(x0).logabsdet", (ANY, (2, 3, 3)), name="slogdet"),
    _case("np.linalg.cholesky(x0)", (SPD, (2, 3, 3)), name="cholesky", symmetric=(0,)),
    # spectral (eigenvectors and singular vectors squared: their signs are arbitrary)
    _case("np.linalg.eigvalsh(x0)", (SYM, (4, 4)), name="eigvalsh", symmetric=(0,)),
    _case("np.linalg.eigvalsh(x0, UPLO='U')", (SYM, (2, 3, 3)), name="eigvalsh",
          symmetric=(0,)),
    _case("np.linalg.eigh(x0)[0]", (SYM, (4, 4)), name="eigh", symmetric=(0,)),
    _case("np.linalg.eigh(x0, 'U').eigenvectors ** 2", (SYM, (4, 4)), name="eigh",
          symmetric=(0,)),
    _case("np.linalg.eigh(x0)[1] ** 2", (SYM, (2, 3, 3)), name="eigh", symmetric=(0,)),
    _case("np.linalg.svd(x0, compute_uv=False)", (ANY, (3, 5)), name="svd"),
    _case("np.linalg.svd(x0, False, False)", (ANY, (2, 4, 3)), name="svd"),
    _case("np.linalg.svd(x0, full_matrices=False)[0] ** 2", (ANY, (5, 3)), name="svd"),
    _case("np.linalg.svd(x0, full_matrices=False).Vh ** 2", (ANY, (3, 5)), name="svd"),
    _case("np.linalg.svd(x0)[2] ** 2 + np.linalg.svd(x0).S", (ANY, (4, 4)), name="svd"),
    _case("np.linalg.qr(x0)[1] ** 2", (ANY, (5, 3)), name="qr"),
    _case("np.linalg.qr(x0).Q ** 2 + np.sum(np.linalg.qr(x0).R ** 2)", (ANY, (4, 4)), name="qr"),
    _case("np.linalg.qr(x0, 'reduced')[0] ** 2", (ANY, (2, 4, 3)), name="qr"),
    _case("np.linalg.pinv(x0)", (ANY, (3, 5)), name="pinv"),
    _case("np.linalg.pinv(x0)", (ANY, (4, 2)), name="pinv"),
    _case("np.linalg.pinv(x0)", (ANY, (2, 5, 3)), name="pinv"),
    _case("np.linalg.pinv(x0)", (ANY, (2, 2, 3, 4)), name="pinv"),
    _case("np.linalg.cond(x0)", (ANY, (3, 3)), name="cond"),
    _case("np.linalg.lstsq(x0, x1, rcond=None)[0]", (ANY, (5, 3)), (ANY, (5,)), name="lstsq"),
    _case("np.linalg.lstsq(x0, x1)[0]", (ANY, (2, 4)), (ANY, (2, 3)), name="lstsq"),
    _case("np.linalg.lstsq(x0, x1, None)[1] + np.sum(np.linalg.lstsq(x0, x1)[3] ** 2)",
          (ANY, (5, 3)), (ANY, (5, 2)), name="lstsq_parts", jax=False),
    # scipy.linalg
    _case("scipy.linalg.solve_triangular(x0, x1, lower=True)", (LOWER, (4, 4)), (ANY, (4,)),
          name="solve_triangular"),
    _case("scipy.linalg.solve_triangular(x0, x1)", (UPPER, (4, 4)), (ANY, (4, 2)),
          name="solve_triangular"),
    _case("scipy.linalg.solve_triangular(x0, x1, trans=1)", (UPPER, (4, 4)), (ANY, (4, 2)),
          name="solve_triangular"),
    _case("scipy.linalg.solve_triangular(x0, x1, 'T', True, True)", (LOWER, (4, 4)),
          (ANY, (4,)), name="solve_triangular"),
    _case("scipy.linalg.solve_triangular(x0, x1, lower=True)", (SQUARE, (4, 4)),
          (ANY, (4,)), name="solve_triangular", jax=False),  # the triangle of a full matrix
    _case("scipy.linalg.cholesky(x0)", (SPD, (4, 4)), name="cholesky", symmetric=(0,)),
    _case("scipy.linalg.cholesky(x0, lower=True)", (SPD, (4, 4)), name="cholesky",
          symmetric=(0,)),
    _case("scipy.linalg.cho_solve(scipy.linalg.cho_factor(x0), x1)", (SPD, (4, 4)),
          (ANY, (4,)), name="cho_solve", symmetric=(0,)),
    _case("scipy.linalg.cho_solve(scipy.linalg.cho_factor(x0, True), x1)", (SPD, (4, 4)),
          (ANY, (4, 2)), name="cho_solve_matrix", symmetric=(0,)),
    _case("scipy.linalg.cho_factor(x0)[0] * 1.0", (SPD, (4, 4)), name="cho_factor", jax=False),
    _case("scipy.linalg.cho_factor(x0, lower=True)[0] * 1.0", (SPD, (4, 4)),
          name="cho_factor_matrix", jax=False),
    _case("scipy.linalg.solve(x0, x1)", (SQUARE, (4, 4)), (ANY, (4,)), name="solve"),
    _case("scipy.linalg.solve(x0, x1, assume_a='pos')", (SPD, (4, 4)), (ANY, (4, 2)),
          name="solve", symmetric=(0,)),
    _case("scipy.linalg.solve(x0, x1, True, assume_a='sym')", (SYM, (4, 4)), (ANY, (4,)),
          name="solve", symmetric=(0,)),
    _case("scipy.linalg.solve(x0, x1, assume_a='lower triangular')", (LOWER, (4, 4)),
          (ANY, (4, 2)), name="solve", jax=False),
    _case("scipy.linalg.solve(x0, x1, assume_a='diagonal')", (SQUARE, (3, 3)), (ANY, (3,)),
          name="solve", jax=False),
    _case("scipy.linalg.inv(x0)", (SQUARE, (3, 3)), name="inv"),
    _case("scipy.linalg.det(x0)", (ANY, (3, 3)), name="det"),
    _case("scipy.linalg.expm(x0)", (ANY, (3, 3)), name="expm"),
    _case("scipy.linalg.lu_factor(x0)[0] * 1.0", (ANY, (4, 4)), name="lu_factor"),
    _case("scipy.linalg.lu_factor(x0, check_finite=False)[0] * 1.0", (ANY, (3, 3)),
          name="lu_factor_matrix"),
    _case("scipy.linalg.lu_solve(scipy.linalg.lu_factor(x0), x1)", (ANY, (4, 4)), (ANY, (4,)),
          name="lu_solve"),
    _case("scipy.linalg.lu_solve(scipy.linalg.lu_factor(x0), x1, trans=1)", (ANY, (4, 4)),
          (ANY, (4, 2)), name="lu_solve_matrix"),
    _case("scipy.linalg.lu_solve(scipy.linalg.lu_factor(x0), x1, 2)", (SQUARE, (3, 3)),
          (ANY, (3, 2)), name="lu_solve"),
]
for _case_ in CASES:
    _case_["id"] = f"{_case_['call']}-{'-'.join(str(s) for _, s in _case_['operands'])}"


def arguments(case, seed=0):
    """The operands of a case, drawn by their kinds."""
    rng = np.random.default_rng(seed)
    out = []
    for kind, shape in case["operands"]:
        x = rng.normal(size=shape)
        n = shape[-1]
        if kind == SQUARE:
            x = x + 3.0 * np.eye(n)
        elif kind == SPD:
            x = x @ np.swapaxes(x, -1, -2) + n * np.eye(n)
        elif kind == SYM:
            x = x + np.swapaxes(x, -1, -2)
        elif kind in (LOWER, UPPER):
            x = (np.tril if kind == LOWER else np.triu)(x) + 3.0 * np.eye(n)
        out.append(x)
    return out


def function_of(case, namespace=None):
    """`def probe(x0, ...): return np.sum(np.sin(<call>))`, with source srcad reads
    (linecache); `namespace` binds np and scipy (JAX's, for the comparison)."""
    xs = ", ".join(f"x{k}" for k in range(len(case["operands"])))
    filename = f"<linalg rule case {next(_counter)}>"
    text = f"def probe({xs}):\n    return np.sum(np.sin({case['call']}))\n"
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    scope = dict(namespace or {"np": np, "scipy": scipy})
    exec(compile(text, filename, "exec"), scope)
    return scope["probe"]
