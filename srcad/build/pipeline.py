"""The only orchestrator: parse -> normalize -> analyses -> transform -> codegen -> compile.

Stages hand each other plain values; nothing here knows about a particular construct.
"""

from __future__ import annotations

import functools
import types as pytypes
from dataclasses import dataclass, field

import gast

from srcad.analysis.activity import analyse_activity
from srcad.analysis.array_bindings import (
    check_array_statements,
    numba_supports,
    refuse_array_code,
    refuse_local_row_writes,
    refuse_numba_indexing,
)
from srcad.analysis.list_entries import refuse_aliased_entries
from srcad.analysis.returned_values import refuse_nested_returns
from srcad.analysis.rule_backends import refuse_rule_backends
from srcad.analysis.type_refusals import refuse_zero_dim_arrays
from srcad.analysis.typed_code import inferred_types, set_aside_untyped
from srcad.analysis.types import Array, is_float_like, refuse_active_opaque_calls
from srcad.analysis.writes import written_arguments
from srcad.build.codegen import to_source
from srcad.build.generated_namespace import generated_namespace
from srcad.build.length_specialization import given_lengths
from srcad.build.numba_assembly import assemble, compile_assembled
from srcad.build.numba_fastmath import fastmath_flags
from srcad.build.running import inside_contexts
from srcad.build.shape_fallback import shape_change_fallback
from srcad.build.stage_clock import StageClock
from srcad.display import GeneratedSource
from srcad.errors import SrcadError
from srcad.frontend import syntax as S
from srcad.frontend.parse import parse_function, parsing_once
from srcad.frontend.refusals import Refusals
from srcad.frontend.refused_code import without_refused
from srcad.frontend.source_functions import compile_source
from srcad.transform.defined import typed_defaults
from srcad.transform.element_reuse import reuse_element_reads
from srcad.transform.forward.styles import Looped, tangent_styles
from srcad.transform.forward.transform import ForwardTransform
from srcad.transform.index_reuse import reuse_indices
from srcad.transform.normalize.argument_updates import update_shared_arrays_in_place
from srcad.transform.normalize.array_params import (
    localize_rebound_array_arguments,
    name_array_returns,
    rebind_in_place_updates,
)
from srcad.transform.normalize.array_rows import shape_list_rows
from srcad.transform.normalize.hoist import hoist_invariants
from srcad.transform.normalize.index_array_writes import lower_index_array_writes
from srcad.transform.normalize.list_building import build_from_rows
from srcad.transform.normalize.literal_arguments import arrays_of_literals
from srcad.transform.normalize.number_attributes import number_attributes
from srcad.transform.normalize.retyped_names import split_retyped_names
from srcad.transform.normalize.sliced_elements import compose_sliced_elements
from srcad.transform.normalize.stage import normalize
from srcad.transform.normalize.text_arguments import inline_text_arguments
from srcad.transform.normalize.unshared_copies import copy_unshared_aliases
from srcad.transform.normalize.views import resolve_views
from srcad.transform.normalize.written_results import copy_written_results
from srcad.transform.numba_stage import numba_rewrites
from srcad.transform.optimize import (
    assign_after_element_reset,
    fuse_lane_loops,
    lane_locals,
)
from srcad.transform.parallel_loops import lift_parallel_loops
from srcad.transform.reverse.transform import ReverseTransform
from srcad.transform.reverse.unused_value import drop_unused_value
from srcad.transform.row_views import hoist_row_views, row_view_types
from srcad.transform.tapes import WORK, ArrayTapes, ListTapes, PythonArrayTapes

# Widest batch that is unrolled into W scalar tangents; wider batches use NumPy vectors.
UNROLL_MAX_WIDTH = 16


# the nested-gradient primitive's run time, registered by srcad/operators/nested.py when
# imported (srcad's `__init__` imports it): "runtime", the functions its calls name in the
# generated code, and "numba", the maker of their numba kernels (srcad/operators/nested_numba.py's
# `NumbaNested(norm, types)`)
NESTED: dict = {"runtime": {}, "numba": None}

@dataclass(frozen=True)
class ArgSpec:
    """One argument as far as code generation cares."""

    kind: str  # "const" | "active" | "duplicated"
    type: object  # srcad type (FLOAT, INT, Array(ndim, is_float), ...)
    length: int | None = None  # numba: a short 1-D float array's length the code is made for


@dataclass(frozen=True)
class Request:
    """What to generate: the cache key, minus the function."""

    mode: str  # "reverse" | "forward"
    specs: tuple
    width: int = 1  # batch width (forward vector mode); 1 = plain forward
    stacked: bool = False  # vector mode with NumPy vectors instead of unrolled lanes
    backend: str = "python"  # "python" | "numba"
    array_tapes: bool = False  # python reverse mode: tapes in arrays the caller passes
    # (position, treedef) of arguments passed as containers; `specs` has one entry per leaf
    containers: tuple = ()
    # reverse mode: bytes for a loop's snapshots (checkpointing); None: the automatic budget;
    # 0: loops taped whole (forward over reverse)
    memory: int | None = None
    # reverse mode: no carried array taken to keep its shape (the code run after a loop
    # changed one: srcad/build/shape_fallback.py)
    shapes_recorded: bool = False
    # python forward mode: independent loops run on all iterations at once (False for forward
    # code that srcad differentiates again or traces: second order, nested calls, sparsity)
    lift_loops: bool = True
    # numba reverse mode: the caller never reads the returned value (reverse over forward's
    # grad f . v), so the forward sweep computes only what the reverse sweep needs
    value_unused: bool = False


@dataclass
class Compiled:
    function: object
    source: str
    name: str
    request: Request
    taped: list
    dependencies: list  # (globals dict, name, object) read when the code was generated
    cells: list  # (closure cell, object) read when the code was generated
    tapes: tuple = ()  # numba backend: the tape arrays the function takes and hands back
    written: frozenset = frozenset()  # positions of the arguments whose elements f writes
    scratch: int = 0  # numba vector mode: lane arrays (width W) the caller passes last
    spare: list = field(default_factory=list)  # numba: tape/lane arrays free for a next call
    returns_value: bool = True  # False: f returns nothing (it only writes arrays)
    tuple_return: int = 0  # f returns a tuple of this many values (one seed each)
    returned: object = None  # the type inferred for f's one returned value (operators read it)
    # (function, its code object) for f and each function read: IPython's autoreload gives a
    # function object the code of its edited file in place (`f.__code__ = new`)
    codes: list = field(default_factory=list)
    # seconds per stage of the build (srcad/build/stage_clock.py): the first call's cost
    stage_seconds: dict = field(default_factory=dict)

    def is_current(self) -> bool:
        """False once a global or a closure variable the code was generated from has been
        rebound (or a closure cell emptied; one empty when the code was built never is), or
        f or a function it read was given other code."""
        for namespace, name, obj in self.dependencies:  # a loop: checked on every call
            if namespace.get(name, _MISSING) is not obj:
                return False
        for function, code in self.codes:
            if function.__code__ is not code:
                return False
        try:
            for cell, obj in self.cells:
                if cell.cell_contents is not obj:
                    return False
        except ValueError:  # an empty cell
            return False
        return True


_MISSING = object()


def build(func, request: Request) -> Compiled:
    """The compiled derivative of `func`. Every construct the checks refuse is reported in
    one error (srcad/frontend/refusals.py): the syntax check's, then the later checks' on the code
    the refused constructs do not feed (srcad/frontend/refused_code.py). Collected
    together: the syntax check, the normalization (nested gradients, inlining, containers,
    loops), 0-d array arguments, views srcad cannot resolve, the type inference and its
    checks, the activity analysis's refusals, calls without a rule and calls for their
    effect on values that carry derivatives, and the array, numba and alias checks; a stage
    that stops at a refusal runs again without the statement holding it. Stopping the checks
    (reported with whatever was collected before): parsing, numba's nested gradients, a
    refusal at a node srcad made. The transforms run only on a function nothing was refused
    in, and stop at their first refusal."""
    clock = StageClock()
    with parsing_once():  # a helper read by several passes is parsed once
        parsed = parse_function(func)
        clock.mark("parse")
        refusals = Refusals(parsed.name, parsed.filename)
        with refusals.stopping():
            return _built(parsed, request, refusals, clock)


def _built(parsed, request: Request, refusals: Refusals, clock: StageClock) -> Compiled:
    norm = normalize(parsed, request.containers, refusals)
    specs = inline_text_arguments(norm, request.specs)  # a string argument: its literal
    specs = refuse_zero_dim_arrays(norm, specs)  # analysed as the float it should be
    arrays_of_literals(norm, _arg_types(norm, specs))  # np.mean((x, y))
    shape_list_rows(norm, _arg_types(norm, specs))
    build_from_rows(norm, _arg_types(norm, specs))  # np.vstack(hs)
    # a name bound to an array and then to a number is two names first: typed as one, its
    # array reads would be refused (`np.outer(h[1], x)` before `h = np.sum(...)`)
    split_retyped_names(norm, _arg_types(norm, specs))
    set_aside_untyped(norm, _arg_types(norm, specs))
    localize_rebound_array_arguments(norm, _arg_types(norm, specs))
    # `u = v` of double buffering, `prev = row`: copies where nothing observes the sharing
    copy_unshared_aliases(norm, _arg_types(norm, specs))
    # `y = np.exp(x); y[0] = 1.0`: the written array is a copy of the expression's value
    copy_written_results(norm, _arg_types(norm, specs))
    # `y[idx] += v`: the gather, the arithmetic, then element writes in order (NumPy's)
    lower_index_array_writes(norm, _arg_types(norm, specs))
    norm.body = without_refused(norm.body, functools.partial(
        _views_resolved, norm, _arg_types(norm, specs)), refusals,
        parsed)
    arrays_of_literals(norm, _arg_types(norm, specs))  # typed only now
    clock.mark("normalize")
    types = inferred_types(norm, _arg_types(norm, specs))
    if name_array_returns(norm, types):
        types = inferred_types(norm, _arg_types(norm, specs))
    if request.backend == "numba" and hoist_invariants(norm, types):
        types = inferred_types(norm, _arg_types(norm, specs))
    if request.backend == "numba" and number_attributes(norm, types):  # a float's x.ndim: 0
        types = inferred_types(norm, _arg_types(norm, specs))
    returned = _returned_type(norm, types)  # typed now: later passes rewrite the tree
    # `hs.append(h)`, then `h[:] = ...`: before `h *= c` is rebound as `h = h * c` below
    refuse_aliased_entries(norm, types)
    kinds = {p: s.kind for p, s in zip(norm.params, specs)}
    active_inputs = {p for p, k in kinds.items() if k == "active"
                     or (k == "duplicated" and not isinstance(types[p], Array))}
    duplicated = {p for p, k in kinds.items() if k == "duplicated" and isinstance(types[p], Array)}
    const_arrays = {p for p, s in zip(norm.params, specs)
                    if s.kind == "const" and isinstance(s.type, Array)}
    activity = analyse_activity(norm, types, active_inputs, duplicated, const_arrays,
                                _returns_float(norm, types))
    refuse_active_opaque_calls(norm, types, activity.varied)
    refuse_nested_returns(norm, types, activity.varied)
    rebind_in_place_updates(norm, types, activity.active)  # the same activity edges
    update_shared_arrays_in_place(norm, types, activity.active, request.mode == "forward")
    check_array_statements(norm, types, activity.active, request.mode == "forward")
    refuse_array_code(norm, types, activity.active, _array_code_unsupported(request),
                      numba_supports(norm) if _numba_arrays(request) else None)
    refuse_local_row_writes(norm, types, activity.active, _array_code_unsupported(request)
                            if request.mode == "forward" and not _numba_arrays(request) else None)
    if request.backend == "numba":
        refuse_numba_indexing(norm, types, activity.active, request.mode == "reverse")
    refuse_rule_backends(norm, activity.varied, request.backend, request.mode)
    written = written_arguments(norm, types)
    # numba: kernels of the nested gradients, compiled into the module of this code
    nested = NESTED["numba"](norm, types) if request.backend == "numba" else None
    refusals.raise_any()
    refusals.collect = False  # from here on (the transforms), a refusal raises at once
    clock.mark("analyses")
    tapes: tuple = ()
    counters: frozenset = frozenset()  # numba reverse mode: the tape counters (never < 0)
    # numba reverse mode: the counters restored by inverse steps, the tapes they are popped from
    retraced: tuple = (frozenset(), frozenset())
    scratch = 0
    bars: dict = {}  # reverse mode: v -> v_bar
    if request.backend not in ("python", "numba"):
        raise SrcadError(f"unknown backend {request.backend!r}", construct="backend",
                         hint="use 'python' or 'numba'")
    if request.mode == "reverse":
        name = norm.namer.fresh(f"{parsed.name}_reverse")
        dialect = ArrayTapes() if request.backend == "numba" else \
            PythonArrayTapes() if request.array_tapes else ListTapes()
        transform = ReverseTransform(norm, types, activity, kinds, name, dialect)
        transform.memory = request.memory
        transform.reassociated = request.backend == "numba" and "reassoc" in fastmath_flags()
        # memory=0: code run where nothing falls back (forward over reverse, numba kernels)
        transform.shapes_recorded = request.shapes_recorded or request.memory == 0
        code = transform.build()
        tree, taped, bars = code.tree, code.taped, transform.bar
        if request.value_unused and request.backend == "numba":
            drop_unused_value(tree, name, types.env)  # srcad/transform/reverse/unused_value.py
        if request.backend == "python":
            arrays, ints = row_view_types(types, transform.bar)
            rows = hoist_row_views(tree, arrays, ints, norm.namer)
            reuse_element_reads(tree, set(arrays) | rows, norm.namer)
            reuse_indices(tree, ints, norm.namer)
            tree.body = assign_after_element_reset(tree.body)
        if request.backend == "numba" or request.array_tapes:
            tapes = tuple(code.tapes)
        if request.backend == "numba":
            counters = dialect.counters()
            retraced = (transform.retraced_counters(), dialect.number_tapes())
    else:
        styles, suffix = tangent_styles(request.width, request.stacked, request.backend,
                                        norm.namer)
        name = norm.namer.fresh(f"{parsed.name}_{suffix}")
        forward = ForwardTransform(norm, types, activity, kinds, name, styles)
        tree, taped = forward.build(), []
        scratch = len(forward.scratch)
        tapes = (WORK,) if forward.uses_work else ()
        if isinstance(styles[0], Looped):
            for fn in (n for n in S.walk(tree) if isinstance(n, gast.FunctionDef)):
                fn.body = fuse_lane_loops(fn.body, styles[0].lane)
                lane_locals(fn, styles[0].lane)
    for fn in (n for n in S.walk(tree) if isinstance(n, gast.FunctionDef)
               and n.name == name):  # python: arrays only (a loop that ran zero times)
        typed_defaults(fn, norm.body, norm.params, types, scalars=request.backend == "numba")
        if request.backend == "python" and request.mode == "forward" and request.lift_loops:
            lift_parallel_loops(fn, norm.namer)
    if request.backend == "numba":
        tree, fused = numba_rewrites(nested.rename(tree), norm.namer, types, bars,
                                     functools.partial(_located, parsed),
                                     given_lengths(norm.params, specs),
                                     specialize=getattr(nested, "for_lengths", None),
                                     tuples=getattr(nested, "as_tuples", None),
                                     reassociated="reassoc" in fastmath_flags())
    clock.mark("transform")
    source = to_source(tree)
    if request.backend == "numba":
        assembly = assemble(tree, types, counters, fused, retraced)
    clock.mark("codegen")
    namespace = generated_namespace(parsed, norm, NESTED["runtime"])
    if request.backend == "numba":
        function = compile_assembled(assembly, parsed, request, name, namespace, fused, nested,
                                     tapes)
    else:
        function = compile_source(source, name, namespace, parsed.filename)
        if parsed.contexts:  # with np.errstate(...) in f: its body and derivative run inside
            function = inside_contexts(function, parsed)
    if request.mode == "reverse" and transform.shape_guards:  # a loop may change a shape
        function = shape_change_fallback(function, parsed, request, tapes, written)
    dependencies = list({(id(ns), n): (ns, n, obj) for ns, n, obj in norm.dependencies}.values())
    cells = list({id(cell): (cell, obj) for cell, obj in norm.cells}.values())
    read = [obj for _, _, obj in dependencies] + [obj for _, obj in cells]
    codes = list({id(g): (g, g.__code__) for g in [parsed.func] + read
                  if isinstance(g, pytypes.FunctionType)}.values())
    last = norm.body[-1]
    returns_value = isinstance(last, gast.Return) and last.value is not None and not (
        isinstance(last.value, gast.Constant) and last.value.value is None)
    tuple_return = len(last.value.elts) if S.is_tuple_return(last) else 0
    clock.mark("compile")
    # a str that notebooks display highlighted (srcad/display.py)
    return Compiled(function, GeneratedSource(source), name, request, taped, dependencies, cells,
                    tapes, written, scratch, returns_value=returns_value, returned=returned,
                    tuple_return=tuple_return, codes=codes, stage_seconds=clock.seconds)


def _array_code_unsupported(request) -> str | None:
    """Where whole-array derivative code is not generated (or not all of it) yet."""
    if request.backend == "numba":
        return "the numba backend" if _numba_arrays(request) else \
            "numba vector mode with lanes in arrays (batch='unrolled' compiles up to 16 " \
            "lanes)"
    if request.mode == "forward" and (request.stacked or request.width > UNROLL_MAX_WIDTH):
        return "vector mode with stacked lanes"
    return None


def _located(parsed, node) -> str:
    """'file.py:3: `2 ** -k`': where the user wrote `node` (a run-time refusal's start)."""
    line = parsed.line_of(node)
    text = parsed.in_user_words(f"`{S.unparse_expr(node)}`")
    return f"{parsed.filename}:{line or parsed.first_line}: {text}"


def _numba_arrays(request) -> bool:
    """numba, reverse mode or forward mode with one tangent or unrolled lanes
    (`batch="unrolled"`): compiles array code (what `numba_supports` accepts)."""
    return request.backend == "numba" and (request.mode == "reverse" or not request.stacked)


def _views_resolved(norm, arg_types, body) -> list:
    norm.body = body
    compose_sliced_elements(norm, arg_types)  # x[1:3][1]: x[2], before the views
    resolve_views(norm, arg_types)
    return norm.body


def _returned_type(norm, types):
    """The type of f's one returned value (None: a tuple, or nothing returned)."""
    last = norm.body[-1]
    if not isinstance(last, gast.Return) or last.value is None or S.is_tuple_return(last):
        return None
    return types.of(last.value)


def _returns_float(norm, types) -> bool:
    last = norm.body[-1]
    if S.is_tuple_return(last):
        return any(is_float_like(types.of(e)) for e in last.value.elts)
    return isinstance(last, gast.Return) and last.value is not None and \
        is_float_like(types.of(last.value))


def _arg_types(norm, specs) -> dict:
    """{parameter: type} under the parameters' current names (a pass may rename one)."""
    return {p: s.type for p, s in zip(norm.params, specs)}
