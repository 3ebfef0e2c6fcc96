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

The calls in the generated code are renamed to these kernels (`rename`). One call site
signature per token and function: the same inner gradient called with arguments of other
types in one function is refused.
"""

from __future__ import annotations

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
from srcad.operators.nested_registry import REGISTRY, in_call_order
from srcad.operators.nested_registry import position as operand_position
from srcad.operators.reverse_over_forward import tangent_function
from srcad.runtime.runtime_names import NESTED_RUNTIME_NAMES as _RUNTIME
from srcad.transform.normalize.nested_calls import PRIMITIVE
from srcad.transform.tapes import INT_TAPE


class NumbaNested:
    """The numba kernels of every nested gradient call in `norm`'s body (types from `types`)."""

    def __init__(self, norm, types):
        self.norm = norm
        self.sites: dict[int, tuple] = {}  # token -> operand types
        for stmt in norm.body:
            for node in gast.walk(stmt):
                if isinstance(node, gast.Call) and isinstance(node.func, gast.Name) \
                        and _resolves_to(norm, node.func.id, PRIMITIVE["function"]):
                    self._add_site(node, types)
        self.names: set = {"srcad_jit"}  # defined in the module (compiler.compile_numba)
        self._adjoint_runs: dict = {}  # token -> the writer of a kernel of several adjoints
        texts = [self._kernels(token, operand_types)
                 for token, operand_types in self.sites.items()]
        self.helpers = "\n\n".join(texts)

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
        forward = _compiled(target, Request("forward", specs, backend="python"))
        origin = g.__code__.co_filename
        tangent = tangent_function(forward, origin)
        second_specs = []
        for i, t in enumerate(boxed):
            second_specs += [ArgSpec("duplicated", t), ArgSpec("const", t)] \
                if i in differentiated else [ArgSpec("const", t)]
        second = _compiled(tangent, Request("reverse", tuple(second_specs), backend="numba",
                                            memory=0))
        prefix = f"srcad_nested_{token}"
        texts = [_renamed(reverse, f"{prefix}_reverse"), _renamed(second, f"{prefix}_second")]
        kernel = _KernelWriter(len(types), floats, differentiated, argnum)
        operands = [f"o{k}" for k in range(len(types))]
        texts.append(kernel.gradient(f"srcad_nested_gradient_{token}", operands,
                                     f"{prefix}_reverse", reverse.tapes))
        self.names.add(f"srcad_nested_gradient_{token}")
        for k in range(len(types)):
            position = operand_position(nested, k)
            if position not in differentiated:
                continue
            texts.append(kernel.second(f"srcad_nested_tangent_{token}_{k}", operands,
                                       f"{prefix}_second", second.tapes, position, argnum))
            texts.append(kernel.second(f"srcad_nested_adjoint_{token}_{k}", operands,
                                       f"{prefix}_second", second.tapes, argnum, position))
            self.names |= {f"srcad_nested_tangent_{token}_{k}",
                           f"srcad_nested_adjoint_{token}_{k}"}
        self.names |= {f"{prefix}_reverse", f"{prefix}_second"}
        self._adjoint_runs[token] = lambda name, ks: kernel.seconds(
            name, operands, f"{prefix}_second", second.tapes, argnum,
            [operand_position(nested, k) for k in ks])
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
        written = set()
        for token, ks in shared_adjoint_runs(tree):  # one second-order pass a run
            name = adjoint_run_kernel(token, ks)
            if name not in written and name not in self.names:
                self.helpers += "\n\n" + self._adjoint_runs[token](name, ks)
                self.names.add(name)
            written.add(name)
        return tree


def _resolves_to(norm, name, obj) -> bool:
    try:
        return norm.resolve(name) is obj
    except KeyError:
        return False


def _renamed(compiled, name) -> str:
    """The numba source of `compiled`, its function named `name`, jitted in the module."""
    tree = gast.parse(str(compiled.source))
    tree.body[0].name = name
    return "@srcad_jit\n" + to_source(tree).strip()


class _KernelWriter:
    """Writes the kernels' source: box the float arguments of g, allocate the adjoints and the
    tapes, call the derivative code, return one adjoint (unboxed)."""

    def __init__(self, count, floats, differentiated, argnum):
        self.count, self.floats = count, floats
        self.differentiated, self.argnum = differentiated, argnum

    def _prologue(self, operands):
        lines = []
        for i, o in enumerate(operands):
            if i in self.floats:
                lines += [f"    a{i} = np.empty(1)", f"    a{i}[0] = {o}"]
            else:
                lines.append(f"    a{i} = {o}")
            if i in self.differentiated:
                lines.append(f"    a{i}_bar = np.zeros_like(a{i})")
        return lines

    @staticmethod
    def _tapes(tapes):
        return ["np.empty(64, dtype=np.int64)" if t == INT_TAPE else "np.empty(64)"
                for t in tapes]

    def _result(self, position):
        return f"a{position}_bar[0]" if position in self.floats else f"a{position}_bar"

    def gradient(self, name, operands, reverse, tapes):
        order = self._call_order(operands)
        lines = [f"@srcad_jit\ndef {name}({', '.join(operands)}):"] + self._prologue(order)
        args = []
        for i in range(self.count):
            args += [f"a{i}", f"a{i}_bar"] if i in self.differentiated else [f"a{i}"]
        args += ["1.0"] + self._tapes(tapes)
        lines += [f"    {reverse}({', '.join(args)})", f"    return {self._result(self.argnum)}"]
        return "\n".join(lines)

    def second(self, name, operands, second, tapes, directed, read):
        """The adjoints H d of g's arguments for the direction d (the last operand) on
        argument `directed`; returns argument `read`'s."""
        order = self._call_order(operands)
        lines = [f"@srcad_jit\ndef {name}({', '.join(operands)}, d):"] + self._prologue(order)
        args = []
        for i in range(self.count):
            if i not in self.differentiated:
                args.append(f"a{i}")
                continue
            if i == directed and i in self.floats:
                lines += [f"    a{i}_dot = np.empty(1)", f"    a{i}_dot[0] = d"]
            elif i == directed:
                lines.append(f"    a{i}_dot = d")
            else:
                lines.append(f"    a{i}_dot = np.zeros_like(a{i})")
            args += [f"a{i}", f"a{i}_bar", f"a{i}_dot"]
        args += ["1.0"] + self._tapes(tapes)
        lines += [f"    {second}({', '.join(args)})", f"    return {self._result(read)}"]
        return "\n".join(lines)

    def seconds(self, name, operands, second, tapes, directed, reads):
        """`second`'s kernel returning the adjoints of every argument in `reads` (one pass)."""
        one = self.second(name, operands, second, tapes, directed, reads[0]).splitlines()
        results = ", ".join(self._result(read) for read in reads)
        return "\n".join(one[:-1] + [f"    return ({results},)"])

    def _call_order(self, operands):
        """g's argument expressions from the kernel's operands (x first)."""
        x, *rest = operands
        return rest[:self.argnum] + [x] + rest[self.argnum:]
