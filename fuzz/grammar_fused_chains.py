"""Seeded random programs of elementwise chains and reductions (`--fused-chains`): what the
numba backend fuses into loop nests (srcad/transform/numba_fusion.py). `f(A, r, c, a)` with
`A` an (m, n) matrix, `r` an (n,) row, `c` an (m,) column (Duplicated) and `a` an Active float:

* chains of one to four elementwise operations (`+ - * /`, `** 2`, unary minus, np.exp, np.log,
  np.sqrt, np.tanh, np.sin, np.cos; domains safe by construction) over the matrix, the row
  `r[None, :]` and column `c[:, None]` broadcast against it, `a`, constants, and the arrays and
  numbers computed before;
* reduced by np.sum, np.mean, np.max or np.min over every axis, axis 0, 1 or -1, with and
  without `keepdims` (a kept (m, 1) or (1, n) result broadcast against the matrix after, the
  softmax pattern `S - np.max(S, axis=1, keepdims=True)`; a dropped axis read back as
  `v[:, None]` or `v[None, :]`);
* the result a float: a sum of whole reductions of chains;
* in about a third of the programs the row is read as `np.broadcast_to(r,
  np.broadcast_shapes(A.shape, r.shape))` instead of `r[None, :]` (drawn from
  `random.Random(f"fused chains broadcast {seed}")`).

* in about a third of the programs (drawn from `random.Random(f"fused chains products
  {seed}")`), A is 6 to 12 on each side and one more term reduces a chain of a matrix product
  spelled as a broadcast product summed over its shared axis (`np.sum(A[:, :, None] *
  A.T[None, :, :], axis=1)`, which is A @ A.T, and its variants): the sums the numba backend
  computes as BLAS matrix products (srcad/runtime/numba_contraction.py), as are some of their
  adjoints.

* in about a third of the programs (drawn from `random.Random(f"fused chains rank 3
  {seed}")`), one more term reduces a chain of gmm's contraction
  `np.sum(L[None, :, :, :] * X[:, :, None, :], axis=3)` of (m, m, n) and (m, n, n) arrays:
  rows of n elements (the short rows the fused maps compute as one plain nest), the product
  and its adjoints as BLAS products on strided views in place
  (srcad/runtime/numba_gemm.py) when A is large enough, and additions into the adjoints of
  the views `X[:, :, None, :]` and `L[None, :, :, :]` (srcad/transform/numba_accumulate.py).

* in about a third of the programs (drawn from `random.Random(f"fused chains matmul
  {seed}")`), one more term reduces a chain of a matrix product written with `@` (`A @ A.T`,
  `A.T @ (A * c[:, None])`, ...): the adjoint of A gets products added into it, which the
  numba backend adds by one BLAS call into the adjoint itself where the product is large
  enough (srcad/runtime/numba_semantics.py's `matmul_added_into`), else makes and adds.

Their reverse sweeps sum chains back to the shapes broadcasting stretched (`unbroadcast`),
the adjoint the fused kernels compute. The chains bound to `t<k>` and most adjoints of the
chains are chains of arrays outside a reduction, which the numba backend computes as one
loop each (srcad/transform/numba_maps.py; 15 of seeds 40-55), and the first contribution to
an array adjoint is assigned there (srcad/transform/numba_first_adjoints.py; 9 of them).
`generate(seed)` draws from `random.Random(f"fused chains {seed}")`, a stream of its own, so
the other grammars' seeds keep their programs.
"""

from __future__ import annotations

import random
import re

from grammar_recursion import HEADER, _c
from program import ArgKind, Program

_UNARY = ["np.exp(np.sin({}))", "np.log(1.0 + ({0}) * ({0}))", "np.sqrt(0.5 + ({0}) * ({0}))",
          "np.tanh({})", "np.sin({})", "np.cos({})", "-({})", "({}) ** 2"]
_BINARY = ["{} + {}", "{} - ({})", "({}) * ({})", "({}) / (2.0 + np.sin({}))"]
_KINDS = ["np.sum", "np.mean", "np.max", "np.min"]
# (m, m) matrix products of A (m, n) as broadcast products summed over the shared axis
_PRODUCTS = ["np.sum(A[:, :, None] * A.T[None, :, :], axis=1)",
             "np.sum(A[:, None, :] * A[None, :, :], axis=2)",
             "np.sum(A[None, :, :] * (A * c[:, None])[:, None, :], axis=-1)",
             "np.sum(A.T[None, :, :] * ({})[:, :, None], axis=1)"]
# matrix products written with `@`, of A, its transpose and chains of them
_MATMULS = ["A @ A.T", "A.T @ (A * c[:, None])", "np.tanh(A) @ (A.T * r[:, None])",
            "(A @ A.T) @ A", "np.dot(A * r[None, :], A.T)"]


def _chain(rng, operands, depth):
    """An elementwise expression of `depth` operations over `operands`."""
    if depth == 0:
        return rng.choice(operands)
    if rng.random() < 0.45:
        return rng.choice(_UNARY).format(_chain(rng, operands, depth - 1))
    split = rng.randint(0, depth - 1)
    return rng.choice(_BINARY).format(_chain(rng, operands, split),
                                      _chain(rng, operands, depth - 1 - split))


def _array_chain(rng, matrices, numbers, depth):
    """A chain reading at least one array."""
    chain = _chain(rng, matrices + numbers, depth)
    if not any(name in chain for name in matrices):
        chain = f"{rng.choice(matrices)} * ({chain})"
    return chain


def generate(seed: int) -> Program:
    rng = random.Random(f"fused chains {seed}")
    m, n = rng.randint(1, 4), rng.randint(1, 4)
    # the row as a broadcast view, drawn from a stream of its own (the other draws stay)
    wide = random.Random(f"fused chains broadcast {seed}").random() < 0.3
    row = "np.broadcast_to(r, np.broadcast_shapes(A.shape, r.shape))" if wide else "r[None, :]"
    matrices = ["A", row, "c[:, None]"]  # (m, n) or broadcast to it
    numbers = ["a", _c(rng)]
    products = random.Random(f"fused chains products {seed}")
    product = products.random() < 0.35
    if product:
        m, n = products.randint(6, 12), products.randint(6, 12)
    lines = ["def f(A, r, c, a):"]
    for k in range(rng.randint(1, 4)):
        chain = _array_chain(rng, matrices, numbers, rng.randint(1, 4))
        if rng.random() < 0.3:  # an elementwise array, read by the chains after
            lines.append(f"    t{k} = {chain}")
            matrices.append(f"t{k}")
            continue
        kind = rng.choice(_KINDS)
        axis = rng.choice([None, 0, 1, -1])
        if axis is None:
            lines.append(f"    s{k} = {kind}({chain})")
            numbers.append(f"s{k}")
        elif rng.random() < 0.5:
            lines.append(f"    s{k} = {kind}({chain}, axis={axis}, keepdims=True)")
            matrices.append(f"s{k}")
        else:
            lines.append(f"    s{k} = {kind}({chain}, axis={axis})")
            matrices.append(f"s{k}[None, :]" if axis == 0 else f"s{k}[:, None]")
    terms = [f"{rng.choice(_KINDS)}({_array_chain(rng, matrices, numbers, rng.randint(1, 3))})"
             for _ in range(rng.randint(1, 2))]
    if product:
        spelled = products.choice(_PRODUCTS).format(
            _chain(products, ["A", row, "c[:, None]"], products.randint(1, 2)))
        lines.append(f"    p = {spelled}")
        chain = _chain(products, ["p", "a", _c(products)], products.randint(1, 3))
        if not re.search(r"\bp\b", chain):
            chain = f"p * ({chain})"
        terms.append(f"{products.choice(_KINDS)}({chain})")
    gmm = random.Random(f"fused chains rank 3 {seed}")
    if gmm.random() < 0.3:  # gmm's contraction of (m, m, n) rows, rows of n <= 12 elements
        lines += ["    X = A[:, None, :] - A[None, :, :] * c[:, None, None]",
                  "    L = A[:, :, None] * r[None, None, :]",
                  "    q = np.sum(L[None, :, :, :] * X[:, :, None, :], axis=3)"]
        chain = _chain(gmm, ["q", "X", "a", _c(gmm)], gmm.randint(2, 3))
        if not re.search(r"\bq\b", chain):
            chain = f"q * ({chain})"
        terms.append(f"{gmm.choice(_KINDS)}({chain})")
    matmul = random.Random(f"fused chains matmul {seed}")
    if matmul.random() < 0.3:  # products added into A's adjoint (dgemm's beta = 1)
        lines.append(f"    g = {matmul.choice(_MATMULS)}")
        chain = _chain(matmul, ["g", "a", _c(matmul)], matmul.randint(1, 2))
        if not re.search(r"\bg\b", chain):
            chain = f"g * ({chain})"
        terms.append(f"{matmul.choice(_KINDS)}({chain})")
    lines.append(f"    return {' + '.join(terms)}")
    args = [ArgKind("dup", "A", (m, n)), ArgKind("dup", "r", (n,)), ArgKind("dup", "c", (m,)),
            ArgKind("active", "a")]
    return Program(seed, HEADER + "\n\n" + "\n".join(lines) + "\n", "f", args, True)
