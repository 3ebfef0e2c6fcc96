"""The whole-array calls the numba backend compiles, by family: the names of the calls (their
CallInfo name, srcad/rules/table.py) whose derivative code numba runs, either numba's own
function or srcad's compiled runtime (srcad/runtime/numba_*.py). `numba_supports(norm)` is
the test srcad/analysis/array_bindings.py's `refuse_array_code` applies on the numba backend:
an active array operation outside these families is refused naming the line.
"""

from __future__ import annotations

import gast

from srcad.analysis.primitives import array_call
from srcad.frontend.parse import resolve_callee
from srcad.rules.numpy_entries import NUMBA_SCANS, NUMBA_STATISTICS, NUMBA_UFUNCS, numba_compiles
from srcad.runtime.runtime_names import NUMBA_SPECIAL_FUNCTIONS, NUMBA_SPECIAL_REDUCTIONS

# elementwise functions and operators, numba's own (srcad/runtime/numba_arrays.py adds the
# array forms numba lacks)
ELEMENTWISE = frozenset({"exp", "log", "log1p", "expm1", "sqrt", "square", "sin", "cos", "tan",
                         "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh", "pow",
                         "hypot", "abs", "min", "max", "minimum", "maximum", "where", "copy",
                         "add", "subtract", "multiply", "divide", "negative", "clip",
                         "logaddexp", "divmod",
                         "round"})  # x.round(1): srcad/transform/numba_compat.py
# products and reductions (numba_arrays.py: the reductions with axis=;
# srcad/runtime/numba_products.py, srcad/transform/numba_linalg_calls.py)
PRODUCTS = frozenset({"transpose", "dot", "matmul", "outer", "sum", "mean", "cumsum", "norm",
                      "tensordot", "multi_dot", "kron", "matrix_power",
                      "cross", "vdot", "inner",  # numba's own (np.cross of 3-vectors)
                      "einsum",  # srcad/runtime/numba_einsum.py
                      "convolve", "correlate"})  # srcad/runtime/numba_convolution.py
# shapes and movement (srcad/runtime/numba_movement.py, numba_selection.py, numba_padding.py)
MOVEMENT = frozenset({"asarray", "reshape", "ravel", "concatenate", "stack", "array",
                      "expand_dims", "broadcast_to", "atleast_1d", "atleast_2d", "atleast_3d",
                      "hstack", "vstack", "column_stack", "tril", "triu", "swapaxes",
                      "moveaxis", "flip", "fliplr", "flipud", "roll", "rot90", "tile",
                      "repeat", "pad", "take", "take_along_axis", "diag", "diagonal",
                      "diagflat", "trace", "sort",
                      "partition", "rollaxis",  # srcad/runtime/numba_reorder.py
                      "squeeze",  # a reshape (srcad/transform/numba_compat.py)
                      "full", "full_like"})  # constructors with a rule (rules/shapes.py)
# linear algebra: numba's np.linalg, srcad/runtime/numba_linalg.py (scipy.linalg),
# numba_spectral.py, numba_decompositions.py, numba_expm.py
LINALG = frozenset({"solve", "inv", "det", "slogdet", "logabsdet", "sign", "cholesky",
                    "solve_triangular", "cho_factor_matrix", "cho_solve_matrix", "eigh",
                    "eigvalsh", "svd", "qr", "pinv", "lstsq", "lstsq_parts", "cond", "expm",
                    "lu_factor_matrix", "lu_solve_matrix"})  # srcad/runtime/numba_lu.py
# statistics, scans and interp: srcad/runtime/numba_quantiles.py, numba_scans.py, numba_stats.py
# (scipy.stats' methods), numba_special.py (scipy.special), numba_interp.py
STATISTICS = frozenset({"median", "quantile", "percentile", "linspace", "logpdf", "pdf", "cdf",
                        "logcdf", "logpmf", "pmf",
                        "interp"}) | NUMBA_SCANS | NUMBA_STATISTICS.keys() \
    | frozenset(NUMBA_SPECIAL_FUNCTIONS + NUMBA_SPECIAL_REDUCTIONS)
# calls of srcad's own runtime with numba kernels of their own (nested_numba.py,
# recursion_numba.py)
KERNELS = frozenset({"srcad_nested_gradient", "recursive_call"})

NUMBA_COMPILED = ELEMENTWISE | PRODUCTS | MOVEMENT | LINALG | STATISTICS | KERNELS | NUMBA_UFUNCS


def numba_supports(norm):
    """`supported(node)` for `refuse_array_code`: the array operations the numba backend
    compiles (elementwise operators and functions, np.sum, np.mean, np.max and np.min with or
    without axis=, transposes, products of 1-D and 2-D arrays)."""
    def supported(node) -> bool:
        if isinstance(node, gast.Call) and hasattr(resolve_callee(
                norm.parsed, node.func, norm.extra_names), "srcad_numba_function"):
            return True  # a custom rule's function: numba compiles it (numba_functions.py)
        call = array_call(norm, node)
        if call is None:
            return True
        return call.info.name in NUMBA_COMPILED and numba_compiles(call)
    return supported
