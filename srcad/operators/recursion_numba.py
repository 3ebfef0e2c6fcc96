"""Recursive helpers in numba code: the calls of srcad/operators/recursion.py's primitive,
compiled as self-recursive (or mutually recursive) numba functions in the module of the outer
code.

On the python backend `srcad_recursive_call(token, ...)` and its tangent and adjoint calls run
srcad's generated Python code of the helper, activation by activation. numba code cannot call
Python, so for backend='numba' each helper gets numba functions of its own, keyed by the
helper, the types of its operands and the operands that carry derivatives (`Key`), and
written into the outer function's module (`NumbaRecursion.helpers`), jitted there:

* `srcad_recursive_call_<i>(a0, ..., an)`: the helper's primal (srcad's numba code of it with
  every argument constant; its own recursive calls are again `srcad_recursive_call_<i>`);
* `srcad_recursive_gradient_<i>(a0, ..., an)`: the tuple of the helper's gradients in the
  operands that carry derivatives, from srcad's numba reverse code of the helper (floats boxed
  as one-element arrays, int arrays copied: the helper may write into them). Inside it the
  helper's recursive calls are again these functions: the reverse sweep of an activation asks
  each child for its gradients, once per child call (`_grouped`), and the child runs its own
  forward and adjoint sweeps: joint reversal, a tape per activation, as on the python backend;
* one operand's adjoint (g * grad_k) or tangent (the sum of grad_k * t) is an expression of
  the gradient kernel, written where the rule's call stood (`_Calls`): no kernel of its own,
  since numba types a cycle of recursive functions from one whose return does not depend on
  the recursive call, and a kernel returning grad_k * g would (the cycle would be untyped).

numba's on-disk cache crashes loading code that calls a recursive function, so code with
these kernels is compiled in memory, once per process (`cacheable`).

numba types a recursive function from its return paths that do not recurse (a helper always
has one: the recursion ends), so no signature is given. The kernels a helper's code calls are
generated once per process and key; a kernel whose code reads a rebound global, or a helper
given other code, is generated again (`_Kernels.current`). Second derivatives through a
recursive helper are refused on numba (`srcad_recursive_hvp`).
"""

from __future__ import annotations

import itertools
import re
import threading
from dataclasses import dataclass, field

import gast

from srcad.analysis.types import FLOAT
from srcad.errors import SecondOrderRefusal, UnsupportedCallError
from srcad.frontend import syntax as S
from srcad.operators.recursion_kernels import Key, derivative, primal, with_globals
from srcad.runtime.runtime_names import RECURSION_RUNTIME_NAMES

CALL, TANGENT, ADJOINT, HVP = RECURSION_RUNTIME_NAMES
_KERNEL_NAME = re.compile(r"\bsrcad_recursive_(?:call|gradient|tangent|adjoint|primal|"
                          r"reverse)_(\d+)")
_LOCK = threading.RLock()
_KERNELS: dict = {}  # Key -> _Kernels
_BY_ID: dict = {}  # id -> Key
_ids = itertools.count(1)
_BUILDING = threading.local()  # the keys whose kernels this thread is generating


@dataclass
class _Kernels:
    number: int
    text: str = ""
    compiled: list = field(default_factory=list)

    def current(self) -> bool:
        return bool(self.text) and all(c.is_current() for c in self.compiled)


class NumbaRecursion:
    """The numba kernels of every recursive helper call in `norm`'s body (types from
    `types`), made when the generated tree is renamed (the operands carrying derivatives are
    read from the tangent and adjoint calls the transforms wrote)."""

    def __init__(self, norm, types, helpers_of):
        self.norm = norm
        self.helpers_of = helpers_of  # token -> srcad/operators/recursion.py's RecursiveHelper
        self.sites: dict[int, tuple] = {}  # token -> operand types
        self.nodes: dict[int, object] = {}  # token -> its first call (for a refusal's line)
        self.variants: dict[int, dict] = {}  # token -> {operand types: a call}
        for stmt in norm.body:
            for node in gast.walk(stmt):
                if self._kind(node) == CALL:
                    self._add_site(node, types)
        self.names: set = {"srcad_jit"}
        self.helpers = ""

    def __bool__(self) -> bool:
        return bool(self.sites)

    @property
    def cacheable(self) -> bool:
        """numba crashes loading cached code that calls a recursive function (the recursive
        call's symbol is left unresolved): such code is compiled in memory, once per
        process."""
        return not self.sites

    def _kind(self, node):
        """Which of the primitive's runtime functions the call `node` calls, or None (the
        inliner may have renamed the primal's name: resolved through the namespace)."""
        if not (isinstance(node, gast.Call) and isinstance(node.func, gast.Name)):
            return None
        if node.func.id in RECURSION_RUNTIME_NAMES:
            return node.func.id
        try:
            obj = self.norm.resolve(node.func.id)
        except KeyError:
            return None
        name = getattr(obj, "__name__", None)
        return name if name in RECURSION_RUNTIME_NAMES and \
            getattr(obj, "__module__", "") == "srcad.operators.recursion" else None

    def _add_site(self, node, types):
        token = node.args[0].value
        operand_types = tuple(types.of(a) for a in node.args[1:])
        self.sites.setdefault(token, operand_types)
        self.nodes.setdefault(token, node)
        self.variants.setdefault(token, {}).setdefault(operand_types, node)

    def _one_type_each(self, token) -> None:
        """Refuse a helper called with operands of other types in one function (its kernels
        are made for one)."""
        if len(self.variants[token]) > 1:
            raise self.norm.parsed.error(
                list(self.variants[token].values())[1], "recursion", "backend='numba': the "
                "same recursive helper is called with arguments of different types",
                kind=UnsupportedCallError, hint="call it with arguments of one type each, or "
                "use backend='python'")

    def rename(self, tree):
        """`tree` with the primitive's calls calling the kernels; the kernels made."""
        if not self.sites:
            return tree
        if _building():  # the code of the helper being generated: how its names resolve
            _building()[-1].resolve = self.norm.resolve
        active: dict[int, set] = {token: set() for token in self.sites}
        for node in gast.walk(tree):
            kind = self._kind(node)
            if kind == HVP:
                raise self.norm.parsed.error(
                    self.nodes[node.args[0].value], "recursion", "backend='numba': a second "
                    "derivative through a recursive helper is not supported on the numba "
                    "backend", kind=SecondOrderRefusal, hint="differentiate through it once "
                    "on numba (grad, jacfwd, jacrev)")
            if kind in (TANGENT, ADJOINT):
                active[node.args[0].value].add(node.args[1].value)
        if not _building():  # a helper called on constants only runs as it is, before the code
            for token in [t for t in self.sites if not active[t]]:
                del self.sites[token]
        for token in self.sites:
            self._one_type_each(token)
        keys = {token: Key(token, self.sites[token], tuple(sorted(active[token])))
                for token in self.sites}
        _grouped(tree, self, keys)
        tree = _Calls(self, keys).visit(tree)
        numbers = {int(m) for m in _KERNEL_NAME.findall(gast.dump(tree))}
        for number in sorted(numbers):
            self._make(_BY_ID[number])
        self.helpers, dependencies = _closure(numbers)
        # with the kernels of a helper this thread is still generating (no text yet)
        self.names |= set(_FULL_NAME.findall(self.helpers)) | {
            n.id for n in gast.walk(tree) if isinstance(n, gast.Name)
            and _FULL_NAME.fullmatch(n.id)}
        self.norm.dependencies.extend(dependencies)
        return tree

    def _make(self, key: Key) -> None:
        """Generate `key`'s kernels, unless current or being generated by this thread (a
        recursive helper's code calls its own kernels). Generated without holding `_LOCK`:
        generating asks srcad's cache, whose lock another thread may hold while it waits
        for `_LOCK` (a compilation in the background beside one that waits). Two threads
        may generate the same kernels at once; they write the same text."""
        building = _building()
        with _LOCK:
            kernels = _KERNELS[key]
            if kernels.current() or any(b.key == key for b in building):
                return
        building.append(_Building(key))
        try:
            helper = self.helpers_of(key.token)
            writer = primal if key.active is None else derivative
            text, compiled = writer(helper, key, kernels.number)
            text = with_globals(text, building[-1].resolve, helper.helper, kernels.number)
        finally:
            building.pop()
        with _LOCK:
            if not kernels.current():
                kernels.text, kernels.compiled = text, compiled


@dataclass
class _Building:
    """A key whose kernels this thread is generating, and how the names of the helper's
    generated code resolve (set when that code is renamed)."""

    key: Key
    resolve: object = None


def _building() -> list:
    """The keys this thread is generating the kernels of (`_Building`), the innermost
    last."""
    stack = getattr(_BUILDING, "stack", None)
    if stack is None:
        stack = _BUILDING.stack = []
    return stack


_FULL_NAME = re.compile(r"\bsrcad_recursive_(?:call|gradient|tangent|adjoint|primal|reverse)"
                        r"_\d+(?:_\d+)?\b")


def _number(key: Key) -> int:
    with _LOCK:
        kernels = _KERNELS.get(key)
        if kernels is None:
            kernels = _KERNELS[key] = _Kernels(next(_ids))
            _BY_ID[kernels.number] = key
        return kernels.number


def _closure(numbers) -> tuple:
    """The text of the kernels `numbers` name and of every kernel theirs call, and the
    globals their code read (the outer code is rebuilt when one is rebound)."""
    seen, pending, texts, dependencies = set(), sorted(numbers), [], []
    while pending:
        number = pending.pop()
        if number in seen:
            continue
        seen.add(number)
        kernels = _KERNELS[_BY_ID[number]]
        if kernels.text:
            texts.append(kernels.text)
            for compiled in kernels.compiled:
                dependencies += compiled.dependencies
        pending += [int(m) for m in _KERNEL_NAME.findall(kernels.text)]
    return "\n\n".join(texts), dependencies


def _grouped(tree, recursion, keys) -> None:
    """Each statement `v += srcad_recursive_adjoint(t, k, x, a0, ..., an, g)` asks for one
    operand's adjoint of one call; the reverse sweep writes those of one call in a row.
    Rewritten into one call of the gradient kernel, bound to a name, and a statement per
    operand `v += gradients[j] * g`: the child's reverse sweep runs once per call, not once
    per operand (which would multiply the work at every level of the recursion)."""
    for node in gast.walk(tree):
        for attribute in ("body", "orelse", "finalbody"):
            body = getattr(node, attribute, None)
            if isinstance(body, list) and body and isinstance(body[0], gast.stmt):
                setattr(node, attribute, _grouped_body(body, recursion, keys))


def _grouped_body(body, recursion, keys) -> list:
    out, last = [], None  # last: (signature, gradients name, written names)
    for stmt in body:
        call = stmt.value if isinstance(stmt, gast.AugAssign) and \
            isinstance(stmt.op, gast.Add) else None
        if call is None or recursion._kind(call) != ADJOINT:
            out.append(stmt)
            last = None
            continue
        token, k = call.args[0].value, call.args[1].value
        operands, seed = call.args[3:-1], call.args[-1]
        signature = (token, gast.dump(gast.Tuple(elts=list(operands) + [seed],
                                                 ctx=gast.Load())))
        read = {n.id for n in gast.walk(call) if isinstance(n, gast.Name)}
        written = {n.id for n in gast.walk(stmt.target) if isinstance(n, gast.Name)}
        if last is None or last[0] != signature or last[2] & read:
            name = recursion.norm.namer.fresh("recursive_gradients")
            number = _number(keys[token])
            out.append(gast.Assign(targets=[S.name(name, gast.Store())], value=gast.Call(
                func=S.name(f"srcad_recursive_gradient_{number}"), args=list(operands),
                keywords=[]), type_comment=None))
            last = (signature, name, set())
        position = keys[token].active.index(k)
        stmt.value = gast.BinOp(left=gast.Subscript(value=S.name(last[1]),
                                                    slice=S.const(position), ctx=gast.Load()),
                                op=gast.Mult(), right=seed)
        last[2].update(written)
        out.append(stmt)
    return out


class _Calls(gast.NodeTransformer):
    """The primitive's calls rewritten into calls of the kernels: the primal's into
    `srcad_recursive_call_<i>(a0, ..., an)`; one operand's tangent (`srcad_recursive_tangent(t,
    k, a0, ..., an, w)`: the sum of grad_k * w) or adjoint (`srcad_recursive_adjoint(t, k, x,
    a0, ..., an, g)`: grad_k * g) into an expression of the gradient kernel. No kernel of its
    own for these: numba types a recursive cycle from a function whose return does not
    depend on the recursive call (the gradient kernel), not from one returning its value."""

    def __init__(self, recursion, keys):
        self.recursion, self.keys = recursion, keys

    def visit_Call(self, node):
        self.generic_visit(node)
        kind = self.recursion._kind(node)
        if kind == CALL and node.args[0].value in self.recursion.sites:
            token = node.args[0].value
            primal = Key(token, self.recursion.sites[token], None)
            return gast.copy_location(gast.Call(
                func=S.name(f"srcad_recursive_call_{_number(primal)}"), args=node.args[1:],
                keywords=[]), node)
        if kind not in (TANGENT, ADJOINT):
            return node
        key = self.keys[node.args[0].value]
        k = node.args[1].value
        operands = node.args[2:-1] if kind == TANGENT else node.args[3:-1]
        gradient = gast.Subscript(value=gast.Call(
            func=S.name(f"srcad_recursive_gradient_{_number(key)}"), args=list(operands),
            keywords=[]), slice=S.const(key.active.index(k)), ctx=gast.Load())
        product = gast.BinOp(left=gradient, op=gast.Mult(), right=node.args[-1])
        if kind == TANGENT and key.types[k] != FLOAT:
            product = gast.Call(func=gast.Attribute(value=S.name("np"), attr="sum",
                                                    ctx=gast.Load()), args=[product],
                                keywords=[])
        return gast.copy_location(product, node)
