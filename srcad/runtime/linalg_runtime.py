"""What the derivatives of the linear algebra rules call besides NumPy on the python backend:
the adjoint of an operand of np.einsum (srcad/rules/einsum.py).

`einsum_adjoint(subscripts, k, g, *operands)` is the adjoint of operand k of
`np.einsum(subscripts, *operands)` for the seed `g`: the other operands contracted with `g`
onto operand k's labels, then summed over the axes where operand k was broadcast (an
ellipsis axis of length 1), spread over the labels only operand k has (summed inside it),
and put on the diagonal where operand k repeats a label (`"ii->i"`).
"""

from __future__ import annotations

import string
from collections import Counter

import numpy as np


def einsum_labels(subscripts: str, ndims) -> tuple[list[str], str]:
    """The subscripts with each ellipsis spelled as letters of its own, and the output
    (NumPy's implicit output when there is no `->`: the labels used once, sorted).

    >>> einsum_labels("...ij,jk", (3, 2))
    (['aij', 'jk'], 'aik')
    >>> einsum_labels("ij,jk->ki", (2, 2))
    (['ij', 'jk'], 'ki')
    """
    text = subscripts.replace(" ", "")
    inputs, arrow, output = text.partition("->")
    parts = inputs.split(",")
    if len(parts) != len(ndims):
        raise ValueError(f"{len(parts)} subscripts for {len(ndims)} operands")
    used = set(text)
    fresh = [c for c in string.ascii_letters if c not in used]
    widths = [nd - len(p.replace("...", "")) for p, nd in zip(parts, ndims) if "..." in p]
    width = max(widths, default=0)
    ellipsis = "".join(fresh[:width])
    labels = [p.replace("...", ellipsis[width - (nd - len(p.replace("...", ""))):])
              if "..." in p else p for p, nd in zip(parts, ndims)]
    if not arrow:
        counts = Counter("".join(p.replace("...", "") for p in parts))
        output = ellipsis + "".join(sorted(c for c, n in counts.items() if n == 1))
    else:
        output = output.replace("...", ellipsis)
    return labels, output


def tensordot_subscripts(x_rank: int, y_rank: int, axes=2) -> str:
    """np.tensordot(x, y, axes) as einsum subscripts: `axes` an int (the last axes of x with
    the first of y) or a pair of axes (ints or sequences of them); ValueError for axes
    NumPy does not take.

    >>> tensordot_subscripts(2, 2, 1), tensordot_subscripts(3, 3, ([0, 2], [1, 0]))
    ('ab,bd->ad', 'abc,caf->bf')
    """
    if isinstance(axes, int):
        if not 0 <= axes <= min(x_rank, y_rank):
            raise ValueError(f"axes={axes} for operands of ranks {(x_rank, y_rank)}")
        pairs = [(x_rank - axes + i, i) for i in range(axes)]
    else:
        try:
            first, second = (a if isinstance(a, (tuple, list)) else (a,) for a in axes)
            pairs = [(a % x_rank, b % y_rank) for a, b in zip(first, second, strict=True)]
        except (TypeError, ValueError, ZeroDivisionError):
            raise ValueError(f"axes={axes!r}") from None
    x = list(string.ascii_lowercase[:x_rank])
    y = list(string.ascii_lowercase[x_rank:x_rank + y_rank])
    for a, b in pairs:
        y[b] = x[a]
    summed = {x[a] for a, _ in pairs}
    output = [c for c in x if c not in summed] + [c for c in y if c not in summed]
    return f"{''.join(x)},{''.join(y)}->{''.join(output)}"


def einsum_adjoint(subscripts, k, g, *operands):
    """The adjoint of operand k of `np.einsum(subscripts, *operands)` for the seed g.

    >>> a, b = np.arange(6.0).reshape(2, 3), np.ones((3, 2))
    >>> bool(np.allclose(einsum_adjoint("ij,jk->ik", 0, np.ones((2, 2)), a, b), 2.0))
    True
    >>> einsum_adjoint("ii->", 0, 1.0, np.ones((2, 2)))
    array([[1., 0.],
           [0., 1.]])
    """
    labels, output = einsum_labels(subscripts, [np.ndim(x) for x in operands])
    own, shape = labels[k], np.shape(operands[k])
    others = [x for j, x in enumerate(operands) if j != k]
    other_labels = [s for j, s in enumerate(labels) if j != k]
    unique = "".join(dict.fromkeys(own))
    known = set("".join(other_labels) + output)
    reached = "".join(c for c in unique if c in known)
    spec = ",".join(other_labels + [output]) + "->" + reached
    contribution = np.einsum(spec, *others, np.asarray(g))
    sizes = [shape[own.index(c)] for c in unique]
    # the labels only operand k has: a new axis of length 1, spread by broadcast_to below
    contribution = np.expand_dims(contribution, tuple(i for i, c in enumerate(unique)
                                                      if c not in known))
    summed = tuple(i for i, (n, size) in enumerate(zip(contribution.shape, sizes))
                   if n != size)  # operand k's length-1 axes another operand broadcast
    if summed:
        contribution = np.sum(contribution, axis=summed, keepdims=True)
    contribution = np.broadcast_to(contribution, sizes)
    if len(unique) == len(own):
        return np.transpose(contribution, [unique.index(c) for c in own]) \
            if unique != own else np.array(contribution)
    diagonal = np.zeros(shape, dtype=contribution.dtype)
    np.einsum(own + "->" + unique, diagonal)[...] = contribution  # a writable view
    return diagonal


def _transposed(a):
    return np.swapaxes(a, -1, -2)


def matrix_power_tangent(a, da, n):
    """The tangent of `np.linalg.matrix_power(a, n)`: the sum over i of a^i da a^(n-1-i)
    (n < 0: the same of the inverse, whose tangent is -inv(a) da inv(a)).

    >>> float(matrix_power_tangent(np.array([[2.0]]), np.array([[1.0]]), 3)[0, 0])
    12.0
    """
    if n < 0:
        inverse = np.linalg.inv(a)
        return matrix_power_tangent(inverse, -(inverse @ da @ inverse), -n)
    total = np.zeros(np.broadcast_shapes(np.shape(a), np.shape(da)))
    for i in range(n):
        total = total + np.linalg.matrix_power(a, i) @ da @ np.linalg.matrix_power(a, n - 1 - i)
    return total


def matrix_power_adjoint(a, g, n):
    """The adjoint of `np.linalg.matrix_power(a, n)` for the seed g: the tangent's transpose,
    the sum over i of (a^T)^i g (a^T)^(n-1-i).

    >>> float(matrix_power_adjoint(np.array([[2.0]]), np.array([[1.0]]), -1)[0, 0])
    -0.25
    """
    if n < 0:
        inverse = np.linalg.inv(a)
        g_inverse = matrix_power_adjoint(inverse, g, -n)
        return -(_transposed(inverse) @ g_inverse @ _transposed(inverse))
    return matrix_power_tangent(_transposed(a), g, n)


def _half_diagonal_lower(x):
    return np.tril(x) - 0.5 * x * np.eye(x.shape[-1])


def stacked_cholesky_tangent(L, dA):
    """`cholesky_tangent` of srcad/runtime/array_runtime.py for stacks of matrices (the last
    two axes): dL = L Phi(L^-1 S L^-T), S the lower triangle of dA mirrored."""
    sym = np.tril(dA) + _transposed(np.tril(dA, -1))
    inner = _transposed(np.linalg.solve(L, _transposed(np.linalg.solve(L, sym))))
    return L @ _half_diagonal_lower(inner)


def stacked_cholesky_adjoint(L, g):
    """`cholesky_adjoint` for stacks of matrices: zero above the diagonal."""
    projected = _half_diagonal_lower(_transposed(L) @ g)
    left = np.linalg.solve(_transposed(L), projected)
    sym = _transposed(np.linalg.solve(_transposed(L), _transposed(left)))
    return np.tril(sym) + np.tril(_transposed(sym), -1)


def det_cofactor(a):
    """The cofactor matrix of each matrix of `a`, the gradient of np.linalg.det: det(a)
    inv(a)^T where that is finite, else (a singular matrix: det is a polynomial, so it has
    a gradient everywhere, JAX's convention) from the SVD a = U diag(s) Vh,
    det(U) det(Vh) U diag(prod_{j != i} s_j) Vh.

    >>> det_cofactor(np.array([[1.0, 2.0], [2.0, 4.0]])).round(12).tolist()
    [[4.0, -2.0], [-2.0, 1.0]]
    """
    a = np.asarray(a, dtype=float)
    det = np.linalg.det(a)
    if np.all(det != 0.0):  # every pivot nonzero: inv exists (today's formula, one LU more)
        inverse = np.linalg.inv(a)
        if np.all(np.isfinite(inverse)):
            return det[..., None, None] * _transposed(inverse)
    n = a.shape[-1]
    flat = a.reshape((-1, n, n))
    out = np.empty_like(flat)
    for k, matrix in enumerate(flat):
        out[k] = _singular_cofactor(matrix)
    return out.reshape(a.shape)


def _singular_cofactor(a):
    """The cofactor matrix of one matrix from its SVD (exact at a singular matrix)."""
    det = np.linalg.det(a)
    if det != 0.0:
        inverse = np.linalg.inv(a)
        if np.all(np.isfinite(inverse)):
            return det * inverse.T
    u, s, vh = np.linalg.svd(a)
    return np.linalg.det(u) * np.linalg.det(vh) * ((u * products_of_others(s)) @ vh)


def products_of_others(s):
    """prod_{j != i} s_j for each i, from the products before and after i (no division:
    exact where some s_j are 0). Plain loops: numba compiles it too
    (srcad/runtime/numba_decompositions.py)."""
    n = s.shape[0]
    others = np.ones(n)
    before = 1.0
    for i in range(n):
        others[i] = before
        before *= s[i]
    after = 1.0
    for i in range(n - 1, -1, -1):
        others[i] *= after
        after *= s[i]
    return others
