"""The names generated code calls by their bare spelling (srcad's runtime, `np`, `math`, the
builtins it emits), and the renaming that keeps the user's own names from meaning them.

Generated code calls `unbroadcast(...)`, `view_element(...)`, `np.sum(...)`,
`reversed(range(n))`. A function that binds one of these names itself (a local, a parameter,
a nested `def`), or reads a global of that name bound to something else, would have srcad's
code call the user's value, or the user's code call srcad's function. `rename_clashes` runs on
every parsed function (srcad/frontend/parse.py: the differentiated function and each helper it
inlines, before any pass adds a runtime call) and renames each such name throughout the
function to a fresh one (`unbroadcast` -> `unbroadcast_1`); a global's value is bound under
the new name in the function's namespace, so it is resolved, embedded (numba) and cached
like any other global. This module is the one list of these names: the python namespace
(srcad/build/pipeline.py), the numba module's imports (srcad/build/compiler.py) and the names fresh
variables avoid (srcad/transform/names.py) derive from it.
"""

from __future__ import annotations

import builtins
import math
import sys

import gast
import numpy as np

from srcad.runtime.convolution_runtime import CONVOLUTION_RUNTIME_NAMES
from srcad.runtime.cross_runtime import CROSS_RUNTIME_NAMES
from srcad.runtime.movement_runtime import MOVEMENT_RUNTIME_NAMES

# srcad/runtime/array_runtime.py: what generated array code calls on the python backend
# (and what a loop raises when an array it carries changes shape: reverse/shape_guards.py)
ARRAY_RUNTIME_NAMES = ("unbroadcast", "reshaped", "diagonal_adjoint", "cholesky_tangent",
                       "cholesky_adjoint", "view_element", "view_size", "view_start",
                       "LoopShapeError", "grown", "einsum_adjoint",
                       "matrix_power_tangent", "matrix_power_adjoint",
                       "stacked_cholesky_tangent", "stacked_cholesky_adjoint",
                       "eigh_tangent", "eigh_adjoint", "svd_tangent", "svd_adjoint",
                       "cond_tangent", "cond_adjoint", "qr_tangent", "qr_adjoint",
                       "cholesky_tangent_tangent", "cholesky_tangent_adjoint",
                       "cholesky_adjoint_tangent", "reverse_over_reverse_refused")
ARRAY_RUNTIME_NAMES += MOVEMENT_RUNTIME_NAMES
ARRAY_RUNTIME_NAMES += ("lstsq_parts", "divmod_parts", "cho_factor_matrix", "cho_solve_matrix")
ARRAY_RUNTIME_NAMES += ("lu_factor_matrix", "lu_pivots", "lu_solve_matrix", "lu_factor_tangent",
                        "lu_factor_adjoint", "lu_solve_tangent", "lu_solve_adjoint",
                        "c_columns", "cumprod_tangent", "cumprod_adjoint")
ARRAY_RUNTIME_NAMES += ("det_cofactor", "interp_slope", "interp_tangent", "interp_adjoint")
ARRAY_RUNTIME_NAMES += CONVOLUTION_RUNTIME_NAMES + CROSS_RUNTIME_NAMES
# srcad/runtime/numba_runtime.py, imported by every numba module (the python backend binds the
# same names: srcad/build/running.py, srcad/runtime/checkpointing.py,
# srcad/runtime/array_runtime.py)
NUMBA_RUNTIME_NAMES = frozenset({"reserve_tape", "simd_exp", "checkpoint_plan", "array_bytes",
                                 "zero_signs_differ",
                                 "view_element", "view_size", "view_start", "grown"})
# srcad/runtime/numba_arrays.py: the array runtime, compiled (srcad/transform/numba_compat.py spells
# products `array_matmul`, rank-one adjoints `outer_add`)
NUMBA_ARRAY_NAMES = frozenset({"unbroadcast", "array_matmul", "outer_add", "cholesky_tangent",
                               "cholesky_adjoint", "reshaped", "array_tanh",
                               "array_heaviside", "array_exp", "array_log", "array_stack",
                               "array_copy", "LoopShapeError"})
# srcad/runtime/numba_semantics.py: NumPy's and Python's arithmetic where numba's differs
# (srcad/transform/numba_compat.py spells overlapping updates `unshared`, powers `int_power`,
# products kept across statements `int_product`, `int_factor`)
NUMBA_SEMANTICS_NAMES = frozenset({"unshared", "int_power", "int_product", "int_factor",
                                   "scatter_add", "assigned_adjoint", "copied_adjoint",
                                   "added_into", "matmul_added_into", "zeros_into"})
# srcad/runtime/numba_movement.py and numba_selection.py: NumPy's movement family and the
# adjoints of srcad/runtime/movement_runtime.py, compiled (srcad/transform/numba_movement.py
# spells `np.roll(...)` `moved_roll(...)`)
NUMBA_MOVEMENT_NAMES = frozenset({"moved_flip", "moved_fliplr", "moved_flipud", "moved_roll",
                                  "moved_rot90", "moved_tile", "moved_repeat", "untile",
                                  "tiled_shape", "unrepeat", "repeated_shape", "size_of",
                                  "moved_atleast_1d", "moved_atleast_2d", "moved_atleast_3d"})
NUMBA_PADDING_NAMES = frozenset({"moved_pad", "unpad", "padded_shape"})  # numba_padding.py
NUMBA_SELECTION_NAMES = frozenset({"moved_take", "moved_sort", "untake", "taken_shape",
                                   "untake_along_axis", "along_shape", "sort_order", "unsort"})
NUMBA_DIAGONAL_NAMES = frozenset({"moved_diagonal", "moved_trace", "undiagonal", "untrace",
                                  "diagonal_shape"})  # numba_diagonals.py
# srcad/runtime/numba_quantiles.py: np.median, np.quantile, np.percentile along an axis
NUMBA_QUANTILE_NAMES = frozenset({"moved_median", "moved_quantile", "moved_percentile"})
# srcad/runtime/numba_einsum.py: np.einsum with literal subscripts and its adjoint, as loops
NUMBA_EINSUM_NAMES = frozenset({"moved_einsum", "einsum_adjoint"})
# srcad/runtime/numba_scans.py: np.cumsum, np.cumprod, np.diff, np.trapezoid, np.gradient,
# np.average, np.linspace with NumPy's keywords, and cumprod's derivatives, compiled
NUMBA_SCAN_NAMES = frozenset({"moved_cumsum", "moved_cumprod", "moved_diff", "moved_trapezoid",
                              "moved_gradient", "moved_average", "moved_linspace",
                              "cumprod_tangent", "cumprod_adjoint"})
# srcad/runtime/numba_reorder.py: np.partition, np.rollaxis and partition's derivatives
NUMBA_REORDER_NAMES = frozenset({"moved_partition", "moved_rollaxis", "partition_order",
                                 "unpartition"})
# srcad/runtime/numba_convolution.py: np.convolve, np.correlate and what their derivatives
# call, compiled; and scipy.signal's functions it gives numba (overloads of the SciPy objects)
NUMBA_CONVOLUTION_NAMES = frozenset({"moved_convolve", "moved_correlate", "full_seed",
                                     "convolved_shape"})
NUMBA_SIGNAL_FUNCTIONS = ("convolve", "correlate")
# srcad/runtime/numba_lu.py: srcad's spellings of lu_factor / lu_solve and their derivatives
NUMBA_LU_NAMES = frozenset({"lu_factor_matrix", "lu_pivots", "lu_solve_matrix",
                            "lu_factor_tangent", "lu_factor_adjoint", "lu_solve_tangent",
                            "lu_solve_adjoint"})
# srcad/runtime/numba_linalg.py: srcad's spellings of cho_factor / cho_solve, compiled, and
# the scipy.linalg functions numba compiles (numba overloads of the SciPy objects)
NUMBA_LINALG_NAMES = frozenset({"cho_factor_matrix", "cho_solve_matrix"})
# srcad/runtime/numba_lapack.py: np.linalg.solve of float64 operands, one compile per rank of
# its right-hand side, and inv, slogdet and det of a float64 matrix, one compile each
# (srcad/transform/numba_linalg_calls.py spells them)
NUMBA_LAPACK_NAMES = frozenset({"linalg_solve", "linalg_inv", "linalg_slogdet", "linalg_det"})
NUMBA_LINALG_FUNCTIONS = ("solve_triangular", "cholesky", "solve", "inv", "det",
                          "expm", "expm_frechet")  # srcad/runtime/numba_expm.py
# srcad/runtime/numba_spectral.py: np.linalg.eigh / eigvalsh with UPLO= and their derivatives
NUMBA_SPECTRAL_NAMES = frozenset({"spectral_eigh", "spectral_eigvalsh", "eigh_tangent",
                                  "eigh_adjoint"})
# srcad/runtime/numba_products.py: np.tensordot, np.kron, matrix_power and its derivatives
NUMBA_PRODUCT_NAMES = frozenset({"moved_tensordot", "linalg_matrix_power",
                                 "matrix_power_tangent", "matrix_power_adjoint", "moved_kron"})
# srcad/runtime/numba_decompositions.py: np.linalg.svd, qr, pinv, lstsq and cond's derivatives
NUMBA_DECOMPOSITION_NAMES = frozenset({"linalg_svd", "linalg_qr", "linalg_pinv", "lstsq_parts",
                                       "svd_tangent", "svd_adjoint", "qr_tangent",
                                       "qr_adjoint", "cond_tangent", "cond_adjoint",
                                       "det_cofactor"})
# srcad/runtime/numba_interp.py: np.interp's derivatives (interp_runtime.py's), compiled
NUMBA_INTERP_NAMES = frozenset({"interp_slope", "interp_tangent", "interp_adjoint"})
# srcad/runtime/checkpointing.py: what a loop over the automatic tape budget raises (numba)
CHECKPOINT_NAMES = frozenset({"TapeOverBudget"})
# srcad/operators/nested.py: nested gradients (numba: kernels `srcad_nested_*_<token>`)
NESTED_RUNTIME_NAMES = ("srcad_nested_gradient", "srcad_nested_tangent", "srcad_nested_adjoint")
# srcad/operators/recursion.py: calls of the user's recursive helpers and their derivatives
RECURSION_RUNTIME_NAMES = ("srcad_recursive_call", "srcad_recursive_tangent",
                           "srcad_recursive_adjoint", "srcad_recursive_hvp")
# the modules generated code spells `np.` and `math.`
MODULES = {"math": math, "np": np}
# modules the python backend's generated code spells by name once the user has imported them
# (`scipy.special.digamma(x)`, the derivative of gammaln: srcad/rules/special.py); srcad does
# not import them itself, and the numba backend refuses the rules that call them
LIBRARY_MODULES = ("scipy",)
# scipy.special's functions the numba backend compiles (srcad/runtime/numba_special.py: numba
# implementations of the SciPy objects, which a generated numba module imports when it calls one)
NUMBA_SPECIAL_FUNCTIONS = ("gammaln", "loggamma", "gamma", "digamma", "polygamma", "beta",
                           "betaln", "erf", "erfc", "erfinv", "erfcinv", "expit", "logit",
                           "xlogy", "xlog1py", "ndtr", "log_ndtr", "ndtri", "i0", "i0e", "i1",
                           "i1e", "iv", "ive")
# and along axes (axis=, keepdims=, logsumexp's b=: srcad/runtime/numba_special.py), and
# multigammaln (a sum over its d terms)
NUMBA_SPECIAL_REDUCTIONS = ("logsumexp", "softmax", "log_softmax", "multigammaln")
# scipy.stats' distributions whose methods the numba backend compiles
# (srcad/runtime/numba_stats.py: numba types of the SciPy objects)
NUMBA_STATS_DISTRIBUTIONS = ("norm", "t", "gamma", "beta", "poisson", "multivariate_normal")
# builtins generated code calls (loops, tape reads, lowered max()/min())
GENERATED_BUILTINS = frozenset({"range", "reversed", "len", "float", "int", "abs", "min", "max",
                                "pow", "bool", "round", "tuple", "ValueError", "sum"})
# the numba module's own names (srcad/build/compiler.py: `reducer(...)` makes each
# `reduce_<kind>_<axes>`; `srcad_jit`, `srcad_inlined_jit`, `srcad_kernel`, `srcad_constant_<k>`)
PREFIXES = ("srcad_", "reduce_")
# srcad/runtime/numba_broadcast.py: np.broadcast_shapes and np.broadcast_to, for the ranks
NUMBA_BROADCAST_NAMES = frozenset({"broadcast_shape", "broadcast_view"})
# every name above (a new `*_NAMES` list joins here: tests/frontend/test_runtime_name_clashes.py
# checks that each one does)
RESERVED = frozenset(ARRAY_RUNTIME_NAMES) | NUMBA_RUNTIME_NAMES | NUMBA_ARRAY_NAMES \
    | NUMBA_SEMANTICS_NAMES | NUMBA_MOVEMENT_NAMES | NUMBA_PADDING_NAMES \
    | NUMBA_SELECTION_NAMES | NUMBA_DIAGONAL_NAMES | NUMBA_QUANTILE_NAMES | NUMBA_EINSUM_NAMES \
    | NUMBA_SCAN_NAMES \
    | NUMBA_REORDER_NAMES | NUMBA_CONVOLUTION_NAMES | NUMBA_LU_NAMES | NUMBA_LINALG_NAMES \
    | NUMBA_LAPACK_NAMES \
    | NUMBA_SPECTRAL_NAMES | NUMBA_PRODUCT_NAMES | NUMBA_DECOMPOSITION_NAMES \
    | NUMBA_BROADCAST_NAMES | CHECKPOINT_NAMES | frozenset(NESTED_RUNTIME_NAMES) \
    | frozenset(RECURSION_RUNTIME_NAMES) | frozenset(MODULES) | GENERATED_BUILTINS \
    | frozenset(LIBRARY_MODULES) | {"numba", "reducer"} \
    | {"fused_kernel"}  # srcad/transform/numba_fusion.py's calls are bound by it


# where the objects generated code calls by these names live: srcad's runtime package and these
_RUNTIME_MODULES = {"srcad.build.running", "srcad.operators.nested"}


def library_modules() -> dict:
    """{name: module} of the LIBRARY_MODULES imported so far."""
    return {name_: sys.modules[name_] for name_ in LIBRARY_MODULES if name_ in sys.modules}


def is_reserved(name: str) -> bool:
    """Does generated code (or the numba module around it) use `name` for its own?

    >>> is_reserved("unbroadcast"), is_reserved("reduce_sum_1"), is_reserved("total")
    (True, True, False)
    """
    return name in RESERVED or name.startswith(PREFIXES)


def rename_clashes(tree, namespace: dict, resolve) -> dict:
    """Rename, in place in the FunctionDef `tree`, every name that is reserved, unless it is
    a free name that means what generated code means by it (`np` bound to NumPy, a builtin
    not shadowed). `namespace`: the function's globals and closure; each renamed name that
    `resolve` (namespace, then builtins) finds is bound in it under its new name. Returns
    {original: new}.

    >>> tree = gast.parse("def f(x, view_start):\\n    np = 2.0\\n    return x * np").body[0]
    >>> rename_clashes(tree, {"np": np}, {"np": np}.__getitem__)
    {'np': 'np_1', 'view_start': 'view_start_1'}
    """
    names = _identifiers(tree)
    bound = _bound(tree)
    renamed: dict = {}
    for name_ in sorted(names):
        if not is_reserved(name_) or name_ not in bound and _means_runtime(name_, namespace):
            continue
        base = f"user_{name_}" if name_.startswith(PREFIXES) else name_
        k = 1
        while f"{base}_{k}" in names or f"{base}_{k}" in namespace or is_reserved(f"{base}_{k}"):
            k += 1
        renamed[name_] = f"{base}_{k}"
        names.add(renamed[name_])
    if not renamed:
        return renamed
    for old, new in renamed.items():
        try:
            namespace[new] = resolve(old)
        # unbound: reported under its new name, respelled
        # (srcad/frontend/parse.py)
        except KeyError:
            pass
    for node in gast.walk(tree):
        if isinstance(node, gast.Name) and node.id in renamed:
            node.id = renamed[node.id]
        elif isinstance(node, gast.FunctionDef) and node is not tree:
            node.name = renamed.get(node.name, node.name)
        elif isinstance(node, (gast.Global, gast.Nonlocal)):
            node.names = [renamed.get(n, n) for n in node.names]
    return renamed


def _means_runtime(name_: str, namespace: dict) -> bool:
    """Does the free name `name_` resolve to the object generated code means by it? (srcad's
    own runtime too: second derivatives differentiate generated code.)"""
    if name_ in MODULES:
        return namespace.get(name_) is MODULES[name_]
    if name_ in LIBRARY_MODULES:
        return name_ in namespace and namespace[name_] is sys.modules.get(name_)
    if name_ in GENERATED_BUILTINS:
        return namespace.get(name_, getattr(builtins, name_)) is getattr(builtins, name_)
    value = namespace.get(name_)
    value = getattr(value, "func", value)  # checkpoint_plan: a functools.partial
    module = getattr(value, "__module__", None) or ""
    return module.startswith("srcad.runtime.") or module in _RUNTIME_MODULES


def _identifiers(tree) -> set:
    """Every name the function and the functions nested in it spell."""
    out = set()
    for node in gast.walk(tree):
        if isinstance(node, gast.Name):
            out.add(node.id)
        elif isinstance(node, gast.FunctionDef) and node is not tree:
            out.add(node.name)
        elif isinstance(node, (gast.Global, gast.Nonlocal)):
            out.update(node.names)
    return out


def _bound(tree) -> set:
    """Names some scope of the function binds (assignments, parameters, nested `def`s)."""
    return {node.id for node in gast.walk(tree) if isinstance(node, gast.Name)
            and isinstance(node.ctx, (gast.Store, gast.Param, gast.Del))} | \
        {node.name for node in gast.walk(tree) if isinstance(node, gast.FunctionDef)
         and node is not tree}
