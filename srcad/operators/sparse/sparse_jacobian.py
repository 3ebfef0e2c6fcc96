"""Sparse Jacobians: `jacobian(f, x, ..., sparse=True)` and its preparation.

The preparation finds the pattern of J, from the source where its index structure allows
(`static_sparsity.static_pattern`), otherwise by tracing (`sparsity.jacobian_pattern`:
dependency sets propagated through f's forward code, at the preparation point); which one
is `prep.state["pattern_source"]`, "static" or "traced". It colors the columns
(`sparsity.color_columns`: columns sharing no row get one color) and builds a forward engine
with one lane per color (in equal chunks when there are more colors than a call takes). A call
seeds lane c with the sum of the unit vectors of the columns of color c, so one vector-mode
pass gives the compressed Jacobian B (output size x colors), and J[i, j] = B[i, color[j]] for
every (i, j) of the pattern: a gather into the CSR's `data`, precomputed as flat indices of B.

Guarantee: the result equals the dense Jacobian. Both patterns are those of the
preparation's Constants, and a traced one that of the branches f took at the preparation
point (`srcad/operators/sparse/sparsity.py`). Every call asks `pattern_guard.PatternGuard`
whether its pattern is surely the preparation's: its Constants equal the preparation's by
value, and, when the pattern was traced, the decisions f's forward code takes on varying
values (branch tests, indices, selections such as `np.where`, `max`, `int(x[0] * 3)`),
computed by a slice of that code (`decisions.py`), equal the preparation's. When not (or
when the slice is beyond its analysis and the code branches), the call finds its own pattern
(traced, or static again) and refuses it when it has an entry outside the preparation's: a
column of a shared color would add into another's entries (a prepared call once returned
J[0, 0] = 1.1 for 0.2, after `if x[0] > 0.5:` changed sides; and the pattern of a changed
Constant index map was once used unchecked). `out=` must be a CSR matrix with the
preparation's structure (as returned by a previous call); its `data` is refilled in place.
"""

from __future__ import annotations

import ast

import numpy as np

from srcad.build.differentiate import _compiled
from srcad.build.engines import Slot, _spec
from srcad.build.pipeline import Request
from srcad.build.progress import Progress
from srcad.errors import ArgumentError, SrcadError
from srcad.operators.preparation import forward_engine, input_slot, make_prep
from srcad.operators.sparse.decisions import SELECTIONS, decision_slice
from srcad.operators.sparse.pattern_guard import PatternGuard, tracing_positions
from srcad.operators.sparse.sparsity import color_columns, jacobian_pattern
from srcad.operators.sparse.static_sparsity import static_pattern


def _scipy_sparse():
    try:
        import scipy.sparse
    except ImportError:  # pragma: no cover - scipy is a dev dependency
        raise SrcadError("sparse=True returns a scipy.sparse.csr_matrix, and SciPy is not "
                         "installed", construct="sparse=True", hint="pip install scipy") from None
    return scipy.sparse


def prepare_sparse_jacobian(f, slots, template, chunk, backend):
    """The preparation of a sparse jacobian: pattern, coloring, a forward engine of one lane
    per color (per chunk), the seeds of every chunk and the gather indices into B."""
    sparse = _scipy_sparse()
    x = input_slot(slots).value
    if not isinstance(x, np.ndarray):
        raise ArgumentError("sparse=True needs an array input x", construct="sparse=True",
                            hint="leave sparse out for a float x")
    n, m = x.size, template.size
    found, source, tracing = static_pattern(f, slots), "static", None
    if found is None:
        tracing = _tracing(f, slots)
        found, source = jacobian_pattern(tracing, slots, f), "traced"
        decisions = decision_slice(tracing, *tracing_positions(slots))
        guard = PatternGuard(slots, decisions,
                             always_check=decisions is None and _branches(tracing.source))
    else:
        guard = PatternGuard(slots)
    indptr, indices, rows = found
    if rows != m:
        raise SrcadError(f"the traced output has {rows} elements, f's output {m}",
                         construct=f.__name__)
    colors = color_columns(indptr, indices, n)
    count = int(colors.max()) + 1 if n else 0
    engine = forward_engine(f, slots, max(count, 1), chunk, backend, stack_narrow=True)
    width = engine.width
    seeds = []  # per chunk: the x-shaped seeds of its lanes
    for start in range(0, max(count, 1), width):
        lanes = []
        for c in range(start, start + width):
            seed = np.zeros(n)
            seed[colors == c] = 1.0
            lanes.append(seed.reshape(x.shape))
        seeds.append(lanes)
    compressed = np.zeros((m, len(seeds) * width))
    rows_of_nz = np.repeat(np.arange(m), np.diff(indptr))
    gather = rows_of_nz * compressed.shape[1] + colors[indices]
    template_csr = sparse.csr_matrix((np.zeros(len(indices)), indices, indptr), shape=(m, n))
    return make_prep("jacobian", f, slots, "forward", width, engine, n=n, m=m, sparse=True,
                     colors=colors, seeds=seeds, compressed=compressed, gather=gather,
                     pattern=template_csr, pattern_source=source, tracing=tracing,
                     guard=guard)


def _tracing(f, slots):
    """f's forward code, one tangent per value, python backend: what the tracing runs."""
    specs = tuple(_spec(Slot(s.role, s.value), True) for s in slots)
    return _compiled(f, Request("forward", specs, 1, False, "python", lift_loops=False))


def _branches(source: str) -> bool:
    """The generated forward code may take other paths, or read other elements, elsewhere
    (module docstring): it branches, selects, or makes an int of a float (an index)."""
    tree = ast.parse(source)
    return any(isinstance(node, (ast.If, ast.While, ast.IfExp)) or (
        isinstance(node, ast.Attribute) and node.attr in SELECTIONS) or (
        isinstance(node, ast.Name) and node.id in SELECTIONS) for node in ast.walk(tree))


def _pattern_at(prep, slots):
    """f's pattern at the call's arguments, found as the preparation's was."""
    state, f = prep.state, prep.function
    found = static_pattern(f, slots) if state["pattern_source"] == "static" else None
    if found is None:
        if state["tracing"] is None:
            state["tracing"] = _tracing(f, slots)
        found = jacobian_pattern(state["tracing"], slots, f)
    return found


def _check_pattern_holds(prep, slots) -> None:
    """Refuse a call where f's pattern has an entry outside the preparation's."""
    indptr, indices, _ = _pattern_at(prep, slots)
    pattern = prep.state["pattern"]
    for row in range(len(indptr) - 1):
        new = indices[indptr[row]:indptr[row + 1]]
        old = pattern.indices[pattern.indptr[row]:pattern.indptr[row + 1]]
        if not np.isin(new, old).all():
            code = getattr(prep.function, "__code__", None)
            raise ArgumentError(
                f"f takes other branches (or reads other elements) at these arguments than "
                f"at the preparation's: row {row} of "
                f"the Jacobian depends on inputs {sorted(set(new.tolist()) - set(old.tolist()))} "
                "outside the sparsity pattern found at preparation, so the compressed "
                "Jacobian would be wrong", construct="sparse=True",
                filename=getattr(code, "co_filename", None),
                line=getattr(code, "co_firstlineno", None),
                hint="prepare again with these arguments, or at a point where f takes every "
                "branch that adds dependencies; or pass sparse=False")


def sparse_jacobian_call(prep, out, slots=None):
    """Fill `out` (a CSR of the preparation's structure) or a new CSR with J; returns
    (value, J). `slots`: the call's arguments, for the check of a traced pattern."""
    state, engine = prep.state, prep.engine
    guard = state["guard"]
    if slots is not None and not guard.holds(slots):
        _check_pattern_holds(prep, slots)  # the decisions or Constants differ: in full
        guard.accept(slots)
    pattern, compressed = state["pattern"], state["compressed"]
    if out is None:
        out = _scipy_sparse().csr_matrix((np.empty(pattern.nnz), pattern.indices,
                                          pattern.indptr), shape=pattern.shape, copy=False)
    else:
        _check_sparse_out(out, pattern)
    value = None
    width = engine.width
    colors = int(state["colors"].max()) + 1 if state["colors"].size else 0
    with Progress(colors, "sparse jacobian colors") as progress:
        for k, lanes in enumerate(state["seeds"]):
            engine.seed(lanes)
            value, tangents = engine.run()
            engine.write_columns(compressed, k * width, width, tangents)
            progress.step(min(width, colors - k * width) if colors else 0)
    np.take(compressed.reshape(-1), state["gather"], out=out.data)
    return value, out


def _check_sparse_out(out, pattern) -> None:
    sparse = _scipy_sparse()
    if not (sparse.issparse(out) and out.format == "csr") or out.shape != pattern.shape:
        raise ArgumentError(f"out= of a sparse jacobian is a {pattern.shape} CSR matrix with "
                            f"the preparation's pattern, got {type(out).__name__}",
                            construct="out", hint="pass the CSR a previous call returned")
    if out.indices is not pattern.indices and not (
            out.nnz == pattern.nnz and np.array_equal(out.indptr, pattern.indptr)
            and np.array_equal(out.indices, pattern.indices)):
        raise ArgumentError("out= has another sparsity pattern than the preparation's",
                            construct="out", hint="pass the CSR a previous call returned")
    if out.data.dtype != np.float64:
        raise ArgumentError(f"out= holds {out.data.dtype} values; the jacobian is float64",
                            construct="out")

