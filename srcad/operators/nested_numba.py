"""Nested gradients in numba code: the calls of srcad/operators/nested.py's primitive, compiled into
the numba module of the outer derivative.

On the python backend `srcad_nested_gradient(token, ...)` and its tangent and adjoint calls
run srcad's generated Python code of the inner function g. numba code cannot call Python, so
for backend='numba' each call site gets numba kernels of its own, written into the outer
function's module (`NumbaNested.helpers`) and jitted there:

* `srcad_nested_gradient_<token>(x, a1, ...)`: srcad's numba reverse code of g (every float
  argument boxed as a one-element array, as nested.py does);
* `srcad_nested_tangent_<token>_<k>` and `srcad_nested_adjoint_<token>_<k>`: the second
  derivatives the rule asks for, by reverse over forward (srcad/operators/reverse_over_forward.py):
  the numba reverse code of g's forward code, with the direction on operand k (tangent) or on x
  (adjoint); the adjoints of g's arguments are then H d.

The calls in the generated code are renamed to these kernels (`rename`); where the outer
code holds small arrays as numbers, a call whose operands' lengths it knows is renamed again,
to a kernel made for them (`for_lengths`, srcad/operators/nested_number_kernels.py). One call site
signature per token and function: the same inner gradient called with arguments of other
types in one function is refused.
"""

from __future__ import annotations

import functools

import gast

from srcad.analysis.types import FLOAT, Array
from srcad.build.codegen import to_source
from srcad.build.differentiate import _compiled
from srcad.build.engines import scalar_as_array
from srcad.build.pipeline import ArgSpec, Request
from srcad.errors import UnsupportedCallError
from srcad.frontend import syntax as S
from srcad.operators.nested_adjoint_runs import kernel_name as adjoint_run_kernel
from srcad.operators.nested_adjoint_runs import shared_adjoint_runs
from srcad.operators.nested_gradient_pairs import kernel_name as gradient_pair_kernel
from srcad.operators.nested_gradient_pairs import merged_gradient_pairs
from srcad.operators.nested_kernels import (
    HELPER_NAMES,
    HELPERS,
    INT_SPACE,
    SPACE,
    WORKSPACE_INIT,
    KernelWriter,
)
from srcad.operators.nested_number_kernels import number_kernel, returned_arrays
from srcad.operators.nested_number_kernels import suffix as length_suffix
from srcad.operators.nested_registry import REGISTRY, in_call_order
from srcad.operators.nested_registry import position as operand_position
from srcad.operators.nested_result_reuse import SUFFIX as INTO
from srcad.operators.nested_result_reuse import into_results
from srcad.operators.nested_scratch_results import SUFFIX as SCRATCH
from srcad.operators.nested_scratch_results import scratch_results
from srcad.operators.nested_tangent_sums import kernel_name as tangent_sum_kernel
from srcad.operators.nested_tangent_sums import merged_tangent_sums
from srcad.operators.reverse_over_forward import tangent_function
from srcad.runtime.runtime_names import NESTED_RUNTIME_NAMES as _RUNTIME
from srcad.transform.normalize.nested_calls import PRIMITIVE
from srcad.transform.numba_fusion import FusedLoop


class NumbaNested:
    """The numba kernels of every nested gradient call in `norm`'s body (types from `types`)."""

    def __init__(self, norm, types):
        self.norm = norm
        # the float arrays' ranks (results reused in loops: nested_result_reuse.py)
        self.ranks = {v: t.ndim for v, t in types.env.items()
                      if isinstance(t, Array) and t.is_float and v not in types.mixed}
        self.sites: dict[int, tuple] = {}  # token -> operand types
        for stmt in norm.body:
            for node in gast.walk(stmt):
                if isinstance(node, gast.Call) and isinstance(node.func, gast.Name) \
                        and _resolves_to(norm, node.func.id, PRIMITIVE["function"]):
                    self._add_site(node, types)
        # defined in the module (compiler.compile_numba, the kernels' workspace helpers)
        self.names: set = {"srcad_jit", "srcad_inlined_jit"} | HELPER_NAMES
        self._adjoint_runs: dict = {}  # token -> the writer of a kernel of several adjoints
        self._tangent_sums: dict = {}  # token -> the writer of a kernel of several tangents
        self._gradient_pairs: dict = {}  # token -> the writer of a gradient-and-tangent kernel
        self._into: dict = {}  # gradient kernel -> the writer of its `_into` variant
        self._pairs_into: dict = {}  # token -> the writer of a pair kernel's `_into` variant
        self._writers: dict = {}  # kernel name -> (name, scratch) -> its source
        self._sources: dict = {}  # every kernel written -> (its writer, scratch)
        self._bodies: dict = {}  # g's derivative code by name (gast FunctionDefs)
        self._for_lengths: dict = {}  # (kernel, lengths) -> the kernel made for them, or None
        self._tuples: dict = {}  # a kernel made for lengths -> its variant returning tuples
        # the fused loop nests g's code calls (srcad/transform/numba_fusion.py), each renamed
        # after its kernel: the outer code's own may have the same names, other loops
        self.fused: dict = {}
        texts = [self._kernels(token, operand_types)
                 for token, operand_types in self.sites.items()]
        self.helpers = "\n\n".join([HELPERS, *texts] if texts else [])

    def __bool__(self) -> bool:
        return bool(self.sites)

    def _add_site(self, node, types):
        token = node.args[0].value
        operand_types = tuple(types.of(a) for a in node.args[1:])
        if self.sites.get(token, operand_types) != operand_types:
            raise self.norm.parsed.error(
                node, "nested gradient", "backend='numba': the same nested gradient is called "
                "with arguments of different types", kind=UnsupportedCallError,
                hint="call it with arguments of one type each, or use backend='python'")
        self.sites[token] = operand_types

    def _kernels(self, token, operand_types) -> str:
        nested = REGISTRY[token]
        g, argnum = nested.g, nested.argnum
        types = in_call_order(nested, list(operand_types))
        floats = tuple(i for i, t in enumerate(types) if t == FLOAT)
        boxed = [Array(1, True) if i in floats else t for i, t in enumerate(types)]
        differentiated = [i for i, t in enumerate(boxed) if isinstance(t, Array) and t.is_float]
        if argnum not in differentiated:
            raise UnsupportedCallError(f"srcad.grad: argument {argnum} of {g.__name__} is not "
                                       "a float or a float array")
        target = scalar_as_array(g, len(types), floats) if floats else g
        specs = tuple(ArgSpec("duplicated" if i in differentiated else "const", t)
                      for i, t in enumerate(boxed))
        # memory=0: loops taped whole (this code is inlined into a kernel: no budget fallback)
        reverse = _compiled(target, Request("reverse", specs, backend="numba", memory=0))
        forward = _compiled(target, Request("forward", specs, backend="python", lift_loops=False))
        origin = g.__code__.co_filename
        tangent = tangent_function(forward, origin)
        second_specs = []
        for i, t in enumerate(boxed):
            # the direction's adjoint is g's gradient (nested_gradient_pairs.py)
            second_specs += [ArgSpec("duplicated", t), ArgSpec("duplicated", t)] \
                if i in differentiated else [ArgSpec("const", t)]
        second = _compiled(tangent, Request("reverse", tuple(second_specs), backend="numba",
                                            memory=0))
        prefix = f"srcad_nested_{token}"
        texts = [_renamed(reverse, f"{prefix}_reverse", self.fused),
                 _renamed(second, f"{prefix}_second", self.fused)]
        for text in texts:  # inlined into the kernels made for lengths
            body = gast.parse(text).body[0]
            self._bodies[body.name] = body
        vectors = [i for i, t in enumerate(boxed) if isinstance(t, Array) and t.ndim == 1
                   and i not in floats]
        kernel = KernelWriter(len(types), floats, differentiated, argnum, vectors)
        operands = [f"o{k}" for k in range(len(types))]
        self.names |= {f"{prefix}_reverse", f"{prefix}_second"}

        def seconds(directed, reads, gradient=False, into=False):
            return lambda name, scratch: kernel.second(
                name, operands, f"{prefix}_second", second.tapes, directed, reads,
                gradient=gradient, scratch=scratch, into=into)

        writers = {f"srcad_nested_gradient_{token}": lambda name, scratch: kernel.gradient(
            name, operands, f"{prefix}_reverse", reverse.tapes, scratch=scratch)}
        if argnum not in floats:  # an array gradient: written into `out` (`rename`)
            self._into[f"srcad_nested_gradient_{token}"] = lambda name, scratch: \
                kernel.gradient(name, operands, f"{prefix}_reverse", reverse.tapes, into=True)
        for k in range(len(types)):
            position = operand_position(nested, k)
            if position in differentiated:
                writers[f"srcad_nested_tangent_{token}_{k}"] = seconds([position], argnum)
                writers[f"srcad_nested_adjoint_{token}_{k}"] = seconds([argnum], position)
        for name, writer in writers.items():
            self._writers[name] = writer
            self._sources[name] = (writer, False)
            self.names.add(name)
            texts.append(writer(name, False))
        positions = functools.partial(map, functools.partial(operand_position, nested))
        self._adjoint_runs[token] = lambda ks: seconds([argnum], list(positions(ks)))
        self._tangent_sums[token] = lambda ks: seconds(list(positions(ks)), argnum)
        self._gradient_pairs[token] = lambda ks: seconds(list(positions(ks)), argnum, True)
        if argnum not in floats:
            self._pairs_into[token] = lambda ks: seconds(list(positions(ks)), argnum, True,
                                                         into=True)
        return "\n\n".join(texts)

    def rename(self, tree):
        """`tree` with the runtime calls `srcad_nested_*(token, [k,] ...)` calling the
        kernels (the token and k are literals the transforms copied)."""
        for node in gast.walk(tree):
            if not (isinstance(node, gast.Call) and isinstance(node.func, gast.Name)
                    and node.func.id in _RUNTIME):
                continue
            literal = 1 if node.func.id == "srcad_nested_gradient" else 2
            head, node.args = node.args[:literal], node.args[literal:]
            suffix = "_".join(str(a.value) for a in head)
            node.func = S.name(f"{node.func.id}_{suffix}")
        for token, ks in shared_adjoint_runs(tree):  # one second-order pass a run
            self._write(adjoint_run_kernel(token, ks), self._adjoint_runs[token](ks))
        for token, ks in merged_tangent_sums(tree):  # one second-order pass a sum
            self._write(tangent_sum_kernel(token, ks), self._tangent_sums[token](ks))
        for token, ks in merged_gradient_pairs(tree):  # the gradient with its tangent
            self._write(gradient_pair_kernel(token, ks), self._gradient_pairs[token](ks))
            if token in self._pairs_into:
                self._into[gradient_pair_kernel(token, ks)] = self._pairs_into[token](ks)
        for name in scratch_results(tree, set(self._writers)):  # results used at once
            self._write(name + SCRATCH, self._writers[name], scratch=True)
        for name in into_results(tree, set(self._into), self.ranks):  # results kept in loops
            if name + INTO not in self.names:  # fresh results (not scratch), written into
                self.helpers += "\n\n" + self._into[name](name + INTO, False)
                self.names.add(name + INTO)
                self._sources[name + INTO] = (self._into[name], False)
        _pass_workspace(tree, self.names - HELPER_NAMES)
        return tree

    def for_lengths(self, name, lengths):
        """The name of the kernel `name` made for operands of `lengths` (after the workspace;
        an int, or "s" for a number), written on first use; None where it would not be all
        numbers (srcad/operators/nested_number_kernels.py)."""
        key = (name, tuple(lengths))
        if name not in self._sources:
            return None
        if key not in self._for_lengths:
            writer, scratch = self._sources[name]
            special = name + length_suffix(lengths)
            text = number_kernel(writer(name, scratch), special, lengths, self._bodies)
            self._for_lengths[key] = None if text is None else special
            if text is not None:
                self.helpers += "\n\n" + text
                self.names.add(special)
        return self._for_lengths[key]

    def as_tuples(self, special):
        """(name, positions) of the variant of the kernel `special` (made by `for_lengths`)
        returning its arrays as tuples of numbers, written on first use, and the positions of
        its results that are arrays (all: a kernel returning one array); None where it has
        none."""
        made = self._tuples.get(special, False)
        if made is False:
            key = next((k for k, v in self._for_lengths.items() if v == special), None)
            made = None
            if key is not None:
                writer, scratch = self._sources[key[0]]
                variant = special + "_numbers"
                text = number_kernel(writer(key[0], scratch), variant, key[1], self._bodies,
                                     tuples=True)
                arrays = () if text is None else returned_arrays(text)
                if arrays:
                    self.helpers += "\n\n" + text
                    self.names.add(variant)
                    made = (variant, arrays)
            self._tuples[special] = made
        return made

    def _write(self, name, writer, scratch=False):
        """Write the kernel `name` by `writer(name, scratch)` (once)."""
        if name not in self.names:
            self.helpers += "\n\n" + writer(name, scratch)
            self.names.add(name)
            self._sources[name] = (writer, scratch)
            if not scratch:
                self._writers[name] = writer


def _pass_workspace(tree, kernels) -> None:
    """Every call of a kernel in `kernels` passes the workspace of the function it is in,
    created at the top of that function (srcad/operators/nested_kernels.py)."""
    for function in [n for n in gast.walk(tree) if isinstance(n, gast.FunctionDef)]:
        calls = [n for n in _walk_own(function) if isinstance(n, gast.Call)
                 and isinstance(n.func, gast.Name) and n.func.id in kernels]
        for call in calls:
            call.args[:0] = [S.name(SPACE), S.name(INT_SPACE)]
        if calls:
            first = 1 if _is_docstring(function.body[0]) else 0
            function.body[first:first] = S.located(S.parse_stmts(WORKSPACE_INIT),
                                                   function.body[first])


def _is_docstring(statement) -> bool:
    return isinstance(statement, gast.Expr) and isinstance(statement.value, gast.Constant) \
        and isinstance(statement.value.value, str)


def _walk_own(function):
    """The nodes of `function`'s body, not those of functions defined inside it."""
    todo = list(function.body)
    while todo:
        node = todo.pop()
        yield node
        if not isinstance(node, (gast.FunctionDef, gast.Lambda)):
            todo.extend(gast.iter_child_nodes(node))


def _resolves_to(norm, name, obj) -> bool:
    try:
        return norm.resolve(name) is obj
    except KeyError:
        return False


def _renamed(compiled, name, fused: dict | None = None) -> str:
    """The numba source of `compiled`, its function named `name`, jitted in the module and
    compiled into each kernel calling it (numba's `inline='always'`: a call of g's code from
    a kernel costed ~80 ns of its ~200, passing the views and boxes it carves). The fused
    loop nests it calls are named `<name>_<their name>` and added to `fused`."""
    tree = gast.parse(str(compiled.source))
    tree.body[0].name = name
    function = getattr(compiled, "function", None)
    module = getattr(getattr(function, "py_func", function), "__globals__", {})
    fused = {} if fused is None else fused
    for node in gast.walk(tree):
        if isinstance(node, gast.Name) and FusedLoop.of(module.get(node.id)) is not None:
            fused[f"{name}_{node.id}"] = FusedLoop.of(module[node.id])
            node.id = f"{name}_{node.id}"
    return "@srcad_inlined_jit\n" + to_source(tree).strip()
