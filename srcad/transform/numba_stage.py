"""The numba backend's rewrites of a generated tree, in the order they run: what numba
compiles differently from CPython (numba_compat), a linear-algebra call written twice
evaluated once (numba_shared_calls), small arrays of a constant length as
numbers, chains of elementwise operations and reductions fused into loops, an array
adjoint's first contribution assigned rather than added to zeros, zeros made in a loop
written into the array their name owns, a `while` iteration's tape checks made once, two
values recorded only to be compared recorded as the comparison's outcome, a running extremum
nothing else reads recorded as the step that set it,
a reverse loop that only adds multiples of one adjoint skipped while that adjoint is zero,
a running extremum's reverse steps replayed only for the last winner where the others change
nothing (and a loop's tape reserved for the records its code makes),
long sums of exponentials split into a vectorizable exp loop and an in-order sum,
a loop over points around such sums run with the points in lanes (numba_row_lanes),
sums over the rows of an array for a running extremum computed for all rows at once
(numba_row_sums), and running minima and maxima kept in independent lanes, those of values
an inner loop computes with the lanes' inner loops as one (bit-identical results).

The tree after `numba_rewrites` is what `srcad.source` shows; `compiled_tree` is what numba
compiles: loop counters that are never negative index without Python's wraparound, and
additions into a name call srcad's loop (numba_accumulate).
"""

from __future__ import annotations

import gast

from srcad.analysis.value_types import BOOL, FLOAT, INT
from srcad.transform.numba_accumulate import added_in_place
from srcad.transform.numba_argmin_lanes import argmin_lanes
from srcad.transform.numba_array_reuse import reuse_loop_zeros
from srcad.transform.numba_column_jam import jam_columns
from srcad.transform.numba_compare_tapes import compare_tapes
from srcad.transform.numba_compat import numba_friendly
from srcad.transform.numba_exp_sums import split_exp_sums
from srcad.transform.numba_extremum_jam import extremum_jam
from srcad.transform.numba_extremum_lanes import extremum_lanes
from srcad.transform.numba_extremum_winners import extremum_winners
from srcad.transform.numba_first_adjoints import assign_first_adjoints
from srcad.transform.numba_fusion import fuse_array_chains
from srcad.transform.numba_indices import unsigned_indices
from srcad.transform.numba_last_winner import last_winner_steps
from srcad.transform.numba_maps import fuse_array_maps
from srcad.transform.numba_outer_lanes import outer_loop_lanes
from srcad.transform.numba_row_lanes import row_sums_in_point_lanes
from srcad.transform.numba_row_sums import interchange_row_sums
from srcad.transform.numba_shared_calls import share_linalg_calls
from srcad.transform.numba_tape_counts import exact_tape_counts
from srcad.transform.numba_tape_reserve import reserve_while_tapes
from srcad.transform.numba_zero_adjoints import zero_adjoint_loops
from srcad.transform.row_views import row_view_types
from srcad.transform.small_arrays import scalar_small_arrays
from srcad.transform.small_kernel_tuples import tuple_results


def numba_rewrites(tree, namer, types, bars, located, given=None,
                   reassociated=False, specialize=None, tuples=None) -> tuple:
    """(the tree rewritten for numba, {name: FusedLoop} of the fused loops it calls, which
    the compiler defines); `located(node)` names where the user wrote a node (run-time
    refusals), `bars` the reverse sweep's adjoints (empty in forward mode), `given` the
    lengths of the array parameters the code is specialized for
    (srcad/build/length_specialization.py), `reassociated` whether numba compiles it with
    LLVM's `reassoc` (srcad/build/numba_fastmath.py); `specialize` and `tuples` make the
    nested kernels for lengths (small_arrays.py, small_kernel_tuples.py)."""
    tree = share_linalg_calls(numba_friendly(tree, namer, located), namer)
    numbers = {name for name, t in types.env.items() if t in (FLOAT, INT, BOOL)}
    numbers |= _float_shadows(tree, types.env)
    scalar_small_arrays(tree, namer, numbers, given or {}, specialize)
    if tuples is not None:  # kernels made for lengths, their results read as numbers
        tuple_results(tree, tuples)
    fused = fuse_array_chains(tree, namer)
    fuse_array_maps(tree, namer, row_view_types(types, bars)[0], fused)
    assign_first_adjoints(tree, bars)
    reuse_loop_zeros(tree, types, bars, fused)
    reserve_while_tapes(tree)
    compare_tapes(tree, namer)
    extremum_winners(tree, namer, types.env, bars.values())
    zero_adjoint_loops(tree, bars, types.env)
    exact_tape_counts(last_winner_steps(tree, namer))
    outer_loop_lanes(tree, namer, types.env)
    row_sums_in_point_lanes(tree, namer, types.env)
    interchange_row_sums(tree, namer, types.env, reassociated)
    tree = extremum_lanes(extremum_jam(tree, namer, types.env), namer, types.env)
    argmin_lanes(tree, namer, types.env)
    return split_exp_sums(tree, namer, reassociated), fused


def _float_shadows(tree, env) -> set:
    """The forward-mode shadows of float parameters (`w_dot`, and `w_dot_0`, ... of unrolled
    lanes): floats too (a nested kernel called on them is made for numbers,
    srcad/operators/nested_number_kernels.py). Names the user's code types are its own."""
    shadows = set()
    for fn in (n for n in gast.walk(tree) if isinstance(n, gast.FunctionDef)):
        params = [a.id for a in fn.args.args]
        floats = [p for p in params if env.get(p) == FLOAT]
        shadows |= {s for s in params if s not in env and any(
            s == f"{p}_dot" or (s.startswith(f"{p}_dot_") and s[len(p) + 5:].isdigit())
            for p in floats)}
    return shadows


def compiled_tree(tree, types, counters=frozenset(), fused=None, retraced=frozenset(),
                  tapes=frozenset()):
    """The tree numba compiles: `tree` with loop counters that are never negative (and
    srcad's tape `counters`) indexing as unsigned integers (no wraparound select, so LLVM
    vectorizes the loop), a triangle's columns added into a work vector four at a time
    (numba_column_jam), and additions into a name as one loop of srcad's
    (`x_bar = added_into(x_bar, g)`), one BLAS call or one fused loop adding into it (the
    kernels it adds to `fused`); `retraced`, `tapes`: the reverse sweep's restored counters and
    the tapes they are popped from (numba_indices.unsigned_indices)."""
    tree = jam_columns(unsigned_indices(tree, types.env, counters, retraced, tapes),
                       frozenset(counters), types.env)
    return added_in_place(tree, fused)
