"""A sum of the product of two broadcast arrays that is a matrix product, computed by BLAS:
the fused kernels (srcad/runtime/numba_fusion.py) try it before their loop nest for
`np.sum(a * b, axis=...)` and `unbroadcast(a * b, shape)` of two float64 arrays.

    np.sum(lower[None, :, :, :] * x[:, :, None, :], axis=3)     # x @ lower[j].T per j
    unbroadcast(g[:, :, :, None] * x[:, :, None, :], (1, k, d, d))  # g[:, j].T @ x[:, j]

`contract(b0, b1, full, kept, out)` (`kept`: bit r set where the result keeps axis r) reads the
two operands as views broadcast to the `full` shape (a stretched axis has step 0) and sorts the
axes longer than 1 by who varies along them and whether the result keeps them: both operands
and kept is a batch axis, one operand and kept a row (of b0) or column (of b1) axis, both
operands and summed the contracted axis. Where there is exactly one contracted axis, at most
one row and one column axis, at least one of them, and every other axis is a batch axis, each
batch is one matrix product `A @ B` added into `out` (the result, viewed with a length-1 axis
at each summed axis): one BLAS call on the operands' and the result's strided views in place
where they lie as BLAS reads matrices (srcad/runtime/numba_gemm.py: a stretched axis does
not), else one dgemm (the call numba's np.dot makes) of the rows and columns copied into work
arrays; it returns True. It returns False, having written nothing, for any other pattern and
for products of fewer than `MIN_WORK` multiplications per batch, where the loop nest is faster:
the caller then runs its loop nest. BLAS adds the terms in its own order (results can differ in
the last bits). Of the two axes kept, the one the result varies slower along is the product's
rows (its copies and its additions into `out` then walk memory forward). Without SciPy (numba's
np.dot calls BLAS through it) the kernels keep their loop nests alone.

Imported by srcad/runtime/numba_fusion.py only (generated modules reach it through there).
"""

from __future__ import annotations

from functools import lru_cache

import numba
from numpy.lib.stride_tricks import as_strided

# BLAS: numba's BLAS calls (np.dot's too) go through SciPy's; without it the loop nests stay
# alone. MIN_WORK: per batch
from srcad.runtime.numba_gemm import BLAS, MIN_WORK, gemm_into
from srcad.runtime.numba_sum_to import compiled


def contraction_lines(rank: int, kept: list[str], out_shape: str, view: str = "") -> list[str]:
    """Lines of a kernel (after `out`, `full`, `b0`, `b1` are defined) that return `out`
    when the product is a matrix product: `kept[r]` spells 1 where the result keeps axis r,
    0 where it sums it (passed as the bits of one int); `out_shape` spells the result's
    shape with a 1 at each summed axis, `view` (else `out.reshape(out_shape)`) a view of
    `out` of that shape. No lines without SciPy's BLAS."""
    if not BLAS:
        return []
    # one int, bit r set where axis r is kept: one type for every pattern (a tuple of
    # literals would make numba compile `contract` again for each)
    mask = " | ".join(f"({k}) << {r}" for r, k in enumerate(kept))
    # any layout ('A'), as a view of an adjoint added into is (numba_fusion's
    # "unbroadcast_into"): one compilation of `contract` serves both
    view = view or f"out.reshape({out_shape})[{', '.join([':'] * rank)}]"
    return [f"    if contract_{rank}(b0, b1, full, np.int64({mask}), {view}):",
            "        return out"]


@lru_cache(maxsize=None)
def contract_function(rank: int):
    """The numba function `contract` for operands of `rank` axes (module docstring)."""
    axes = range(rank)
    start = f"[{', '.join(f'i{r}:' for r in axes)}]"  # the view from a batch's first element
    lines = [
        "def impl(b0, b1, full, kept, out):",
        "    m_axis, n_axis, c_axis, batches = -1, -1, -1, 1",
        f"    batch = np.zeros({rank}, np.bool_)",
        f"    for r in range({rank}):",
        "        if full[r] == 1:",
        "            continue",
        "        first, second = b0.strides[r] != 0, b1.strides[r] != 0",
        "        keeps = (kept >> r) & 1 == 1",
        "        if keeps and first and second:",
        "            batch[r] = True",
        "            batches *= full[r]",
        "        elif keeps and first and m_axis < 0:",
        "            m_axis = r",
        "        elif keeps and second and n_axis < 0:",
        "            n_axis = r",
        "        elif not keeps and first and second and c_axis < 0:",
        "            c_axis = r",
        "        else:",
        "            return False",
        "    if c_axis < 0 or (m_axis < 0 and n_axis < 0):",
        "        return False",
        # ints as int64, not literals: one compilation of `contract` per operand types
        "    m_axis, n_axis, c_axis = np.int64(m_axis), np.int64(n_axis), np.int64(c_axis)",
        "    batches = np.int64(batches)",
        "    if n_axis >= 0 and (m_axis < 0 or n_axis < m_axis):",
        "        return contract(b1, b0, full, out, n_axis, m_axis, c_axis, batch, batches)",
        "    return contract(b0, b1, full, out, m_axis, n_axis, c_axis, batch, batches)",
    ]
    product_lines = [
        "def impl(b0, b1, full, out, m_axis, n_axis, c_axis, batch, batches):",
        "    m = full[m_axis] if m_axis >= 0 else 1",
        "    n = full[n_axis] if n_axis >= 0 else 1",
        "    c = full[c_axis]",
        f"    if m * n * c < {MIN_WORK}:",
        "        return False",
        *[f"    batch{r} = batch[{r}]" for r in axes],
        "    m_step0 = b0.strides[m_axis] if m_axis >= 0 else 0",
        "    m_step = out.strides[m_axis] if m_axis >= 0 else 0",
        "    n_step1 = b1.strides[n_axis] if n_axis >= 0 else 0",
        "    n_step = out.strides[n_axis] if n_axis >= 0 else 0",
        # work arrays for views BLAS cannot read in place, made at the first such batch
        "    left, right, product = np.empty((0, c)), np.empty((c, 0)), np.empty((0, 0))",
        "    for t in range(batches):",
        "        rest = t",
        *[line for r in reversed(axes) for line in (
            f"        i{r} = 0",
            f"        if batch{r}:",
            f"            i{r} = rest % full[{r}]",
            f"            rest //= full[{r}]")],
        # each operand's batch as a strided matrix view: BLAS reads the views and adds
        # into the target in place where they lie as it reads matrices, else they are
        # copied element by element (numba's slice assignment `left[:, :] = view` compiles
        # its shape-mismatch message, some forty of numba's string functions per process),
        # multiplied by the same dgemm call numba's np.dot makes of C-ordered matrices and
        # added by a loop (numba's np.dot and its `+=` of two strided views were compiled
        # into every fused kernel calling this)
        f"        a_view = as_strided(b0{start}, (m, c), (m_step0, b0.strides[c_axis]))",
        f"        b_view = as_strided(b1{start}, (c, n), (b1.strides[c_axis], n_step1))",
        f"        target = as_strided(out{start}, (m, n), (m_step, n_step))",
        "        if gemm_into(a_view, b_view, target, 1.0):",
        "            continue",
        "        if product.size == 0:",
        "            left, right, product = np.empty((m, c)), np.empty((c, n)), np.empty((m, n))",
        "        for p in range(m):",
        "            for q in range(c):",
        "                left[p, q] = a_view[p, q]",
        "        for p in range(c):",
        "            for q in range(n):",
        "                right[p, q] = b_view[p, q]",
        "        gemm_into(left, right, product, 0.0)",  # numba's np.dot's dgemm call
        "        for p in range(m):",
        "            for q in range(n):",
        "                target[p, q] += product[p, q]",
        "    return True",
    ]
    contract = numba.njit(compiled(product_lines, {"as_strided": as_strided,
                                                   "gemm_into": gemm_into}))
    return numba.njit(compiled(lines, {"contract": contract}))
