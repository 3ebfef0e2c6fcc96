"""Lists given another name, passed to the user's own functions and returned from them: resolved
before the lists are lowered (srcad/transform/normalize/lower.py runs this first).

A list is lowered to one variable per element (lists.py) or to a buffer and a counter
(conditional_lists.py) by looking at every use of its name in one function body. So that a
helper's uses are among them, a call of the user's own function (module-level, or a `def` or
lambda of the function) that is given a list (a name bound to a list, a list literal or
comprehension, as a positional or keyword argument) or that returns one is inlined here, from
the helper's source, before anything is lowered (again, while the inlined code passes a list
on); the later inlining (inline.py) takes the helper's other calls. The helper's parameter
becomes the caller's name for the list, as Python binds it to the same object: what the helper
appends or writes, the caller sees.

    def push(out, v):              ys = []
        out.append(v)              for i in range(len(x)):
                                       # inlined call push(ys, x[i] * x[i])
    ys = []                            push_v = x[i] * x[i]
    for i in range(len(x)):            ys.append(push_v)
        push(ys, x[i] * x[i])

Then one list with two names is given one name: `zs = ys`, with `zs` bound nowhere else and
`ys` bound once, before it in the same block, and `zs` used only after it in that block (so
that both name the same list wherever `zs` is read; `zs += [a]` extends it in place and binds
no other list), makes every `zs` a `ys` (what a helper returns arrives as such a binding: `fs =
feats_result`). A copy, `list(ys)`, `ys[:]` or `ys.copy()`, is a new list: `[v for v in ys]`,
lowered as comprehensions are.

A call left as it is (its helper defines functions or lambdas, declares globals, reads a global
the caller names otherwise, takes a default that is no constant, or the statement reads the
list outside a call that may change it, or the call sits in a comprehension, a `while` test or
a branch of `and`/`or`/`if-else`) keeps the list passed on, and the fence refuses it with its
line.
"""

from __future__ import annotations

import builtins

import gast

from srcad.errors import SrcadError
from srcad.frontend import syntax as S
from srcad.frontend.parse import parse_function
from srcad.transform.normalize.grown_lists import bindings_of, read_uses
from srcad.transform.normalize.inline import Inliner
from srcad.transform.normalize.list_reductions import numpy_reduction, reduction_kind
from srcad.transform.normalize.list_writes import repeated
from srcad.transform.normalize.lower import LIST_CALLS, LocalFunction
from srcad.transform.normalize.user_functions import is_user_function

# what a helper inlined from its source may not hold: it would be lowered as the caller's
_NOT_INLINED_EARLY = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef,
                      gast.Global, gast.Nonlocal, gast.Yield, gast.YieldFrom, gast.Await)


# how deep helpers passing a list on are inlined (a recursive one is left to the later
# inlining, which refuses recursion)
_ROUNDS = 8


class _Declined(Exception):
    """The call is left as it is (the later inlining or the fence takes it)."""


def inline_list_calls(parsed, body: list, namer, local_functions: dict) -> list:
    """`body` with the calls that pass or return lists inlined (of module-level functions
    and of the `local_functions` it defines), aliases of lists given one name and copies of
    lists written as comprehensions."""
    if parsed.generated:
        return body
    inliner = _EarlyInliner(parsed, namer, (), local_functions)
    for _ in range(_ROUNDS):  # a list a helper returned or passes on is one of the caller's
        inliner.inlined = False
        body = inliner.calls(body)
        if not inliner.inlined:
            break
    parsed.inlined_reads.extend(inliner.reads())
    lists = list_names(body, parsed)
    body = _copies_as_comprehensions(body, lists, parsed, namer)
    _merge_aliases(body, body, list_names(body, parsed))
    return body


def list_names(body, parsed) -> set:
    """The names `body` binds to lists: literals, comprehensions, `[e] * n`, `list(...)`, and
    other names of such lists and their copies (`ys[:]`, `ys.copy()`)."""
    out: set = set()
    while True:
        found = {n.targets[0].id for s in body for n in S.nodes(s)
                 if isinstance(n, gast.Assign) and len(n.targets) == 1
                 and isinstance(n.targets[0], gast.Name) and _is_list(n.value, out, parsed)}
        if found <= out:
            return out
        out |= found


def _is_list(value, lists, parsed) -> bool:
    if isinstance(value, (gast.List, gast.ListComp)) or repeated(value) is not None:
        return True
    if isinstance(value, gast.Name):
        return value.id in lists
    return _copied(value, lists, parsed) is not None or (
        isinstance(value, gast.Call) and _is_builtin(parsed, value.func, builtins.list))


def _is_builtin(parsed, func, obj) -> bool:
    try:
        return isinstance(func, gast.Name) and parsed.resolve(func.id) is obj
    except KeyError:
        return False


def _copied(value, lists, parsed):
    """The list name `ys` of `list(ys)`, `ys[:]` or `ys.copy()` (ys one of `lists`), else
    None."""
    if isinstance(value, gast.Call) and not value.keywords:
        if len(value.args) == 1 and _is_builtin(parsed, value.func, builtins.list):
            source = value.args[0]
        elif not value.args and isinstance(value.func, gast.Attribute) \
                and value.func.attr == "copy":
            source = value.func.value
        else:
            return None
    elif isinstance(value, gast.Subscript) and isinstance(value.slice, gast.Slice) \
            and value.slice.lower is None and value.slice.upper is None \
            and value.slice.step is None:
        source = value.value
    else:
        return None
    return source.id if isinstance(source, gast.Name) and source.id in lists else None


def _parsed(func):
    """The parsed source of the user's function `func` (a local one's too), else None."""
    if isinstance(func, LocalFunction):
        return func.parsed
    func = getattr(func, "func", func)  # functools.partial
    try:
        return parse_function(func)
    except (SrcadError, TypeError, OSError):
        return None


def _returns_list(func) -> bool:
    """Does the user's function `func` return a list (a literal, a comprehension or a name
    it binds to one)?"""
    parsed = _parsed(func)
    if parsed is None:
        return False
    tree = parsed.tree
    returns = [n.value for n in S.nodes(tree) if isinstance(n, gast.Return) and n.value]
    if not returns:
        return False
    lists = list_names(tree.body, parsed)
    return any(isinstance(v, (gast.List, gast.ListComp)) or repeated(v) is not None
               or isinstance(v, gast.Name) and v.id in lists for v in returns)


class _EarlyInliner(Inliner):
    """The inliner taking a helper's source as it is written (its own list calls inlined
    first), for the calls that pass or return lists; declines any call whose inlined code
    would read a name the caller binds to another object."""

    def __init__(self, parsed, namer, stack, local_functions):
        super().__init__(parsed, namer, stack, local_functions=local_functions)
        self.known = len(self.dependencies), len(self.cells)
        self.inlined = False  # has a call been inlined (its code may pass the list on)?

    def reads(self) -> list:
        """(namespace, name, object) and (cell, object) the inlined helpers read."""
        return self.dependencies[self.known[0]:] + self.cells[self.known[1]:]

    def _inlined_body(self, callee, cparsed, cnamer, passed, passed_objects):
        if passed or passed_objects or any(isinstance(n, _NOT_INLINED_EARLY)
                                           for s in cparsed.tree.body for n in S.nodes(s)):
            raise _Declined  # functions passed to it are substituted by the later inlining
        body = S.clone(cparsed.tree.body)
        if body and S.is_comment(body[0]):
            body = body[1:]  # docstring
        # a local function sees its siblings (they are its closure); a module-level one not
        inner = _EarlyInliner(cparsed, cnamer, self.stack + (callee,),
                              self.local_functions if isinstance(callee, LocalFunction) else {})
        return inner.calls(body), inner

    def inline_early(self, callee, call):
        aliases = len(self.extra)
        try:
            body, result = self.inline_call(callee, call)
        except SrcadError:
            raise _Declined from None  # said again by the later inlining, with its context
        if len(self.extra) != aliases:
            raise _Declined  # a name the caller reads as another object
        return body, result

    # -- statements --------------------------------------------------------------------------
    def calls(self, stmts: list, lists=None) -> list:
        """`stmts` with their list calls inlined; `lists`: the names the function binds to
        lists (of `stmts` when None)."""
        out = []
        lists = list_names(stmts, self.parsed) if lists is None else lists
        for stmt in stmts:
            for field in ("body", "orelse"):
                if isinstance(stmt, (gast.For, gast.While, gast.If)):
                    setattr(stmt, field, self.calls(getattr(stmt, field), lists))
            out.extend(self._statement(stmt, lists))
        return out

    def _statement(self, stmt, lists) -> list:
        fields = [f for f in ("value", "test", "iter") if getattr(stmt, f, None) is not None
                  and not (isinstance(stmt, gast.While) and f == "test")]
        found = [n for f in fields for n in _always_evaluated_calls(getattr(stmt, f))
                 if self._passes_lists(n, lists)]
        targets = [t for f in ("targets", "target") if hasattr(stmt, f)
                   for t in (getattr(stmt, f) if f == "targets" else [getattr(stmt, f)])]
        if not found or any(isinstance(n, gast.Call) and is_user_function(
                self.callee(n.func), self.stack[0]) for t in targets for n in S.nodes(t)):
            return [stmt]  # a call in a target: the later inlining keeps the order
        whole = isinstance(stmt, (gast.Expr, gast.Assign, gast.Return)) and stmt.value in found
        for call in found:  # a list read beside a call that may change it (or its alias)
            outside = _mentions(stmt, lists) - _mentions(call, lists)
            if outside and not whole and not _only_reads(self.callee(call.func), call, lists):
                return [stmt]
        new, pre = S.clone(stmt), []
        try:
            for f in fields:
                setattr(new, f, _Hoister(self, lists, pre).visit(getattr(new, f)))
        except _Declined:
            return [stmt]
        if isinstance(new, gast.Expr) and isinstance(new.value, gast.Name):
            return pre  # `push(ys, v)`: its value unused
        return pre + [new]

    def _passes_lists(self, call, lists) -> bool:
        """Does `call` call the user's function with a list, or one returning a list, or a
        local function reading the caller's lists?"""
        obj = self.callee(call.func)
        if not is_user_function(obj, self.stack[0]):
            return False
        if isinstance(obj, LocalFunction) and _mentions(obj.parsed.tree, lists):
            return True
        return any(isinstance(a, (gast.List, gast.ListComp)) or repeated(a) is not None
                   or isinstance(a, gast.Name) and a.id in lists
                   for a in _arguments(call)) or _returns_list(obj)


def _only_reads(func, call, lists) -> bool:
    """Does the user's function `func` only read (index, loop over, give to len/sum/max/min
    or NumPy) the lists (names among `lists`) that `call` gives it?"""
    cparsed = _parsed(func)
    if cparsed is None:
        return False
    args = cparsed.tree.args
    positional = [a.id for a in args.args]
    if isinstance(func, LocalFunction) and _mentions(cparsed.tree.body, lists - set(
            positional + [a.id for a in args.kwonlyargs])):
        return False  # the caller's lists, read from its closure
    given = list(zip(positional, call.args)) + [
        (cparsed.renamed.get(k.arg, k.arg), k.value) for k in call.keywords]
    body = cparsed.tree.body
    for param, arg in given:
        if not (isinstance(arg, gast.Name) and arg.id in lists):
            continue
        read = read_uses(body, param, cparsed) | {
            id(n.iter) for s in body for n in S.nodes(s) if isinstance(n, gast.comprehension)} \
            | {id(a) for s in body for n in S.nodes(s) if isinstance(n, gast.Call)
               and (reduction_kind(cparsed, n.func) or numpy_reduction(cparsed, n.func))
               for a in n.args}
        if any(isinstance(n, gast.Name) and n.id == param and id(n) not in read
               for s in body for n in S.nodes(s)):
            return False
    return True


def _mentions(tree, names) -> int:
    """How many times `tree` (a node or a list of them) names one of `names`."""
    trees = tree if isinstance(tree, list) else [tree]
    return sum(1 for t in trees for n in S.nodes(t) if isinstance(n, gast.Name)
               and n.id in names)


def _arguments(call) -> list:
    return list(call.args) + [k.value for k in call.keywords]


def _always_evaluated_calls(expr) -> list:
    """The calls in `expr` that run whenever it is evaluated once (not in a comprehension, a
    lambda or a branch of `and`/`or`/`if-else`)."""
    out = []

    class Finder(S.AlwaysEvaluated):
        def visit_Call(self, node):
            self.generic_visit(node)
            out.append(node)
            return node

        def _comprehension(self, node):
            return node

        visit_ListComp = visit_GeneratorExp = visit_SetComp = visit_DictComp = _comprehension

    Finder().visit(expr)
    return out


class _Hoister(S.AlwaysEvaluated):
    """Inlines the list calls of one statement's expression before it, and binds the other
    calls of the user's functions there too, in the order Python makes them."""

    def __init__(self, inliner: _EarlyInliner, lists, pre: list):
        self.inliner, self.lists, self.pre = inliner, lists, pre

    def _comprehension(self, node):
        return node

    visit_ListComp = visit_GeneratorExp = visit_SetComp = visit_DictComp = _comprehension

    def visit_Call(self, node):
        self.generic_visit(node)  # inner calls first, left to right
        obj = self.inliner.callee(node.func)
        if not is_user_function(obj, self.inliner.stack[0]):
            return node
        if not self.inliner._passes_lists(node, self.lists):
            value = self.inliner.namer.fresh("call_value")
            self.pre.append(gast.copy_location(S.assign(S.name(value), node), node))
            return S.name(value)
        body, result = self.inliner.inline_early(obj, node)
        self.inliner.inlined = True
        self.pre.extend(body)
        return result


def _copies_as_comprehensions(stmts, lists, parsed, namer) -> list:
    """`zs = list(ys)`, `ys[:]`, `ys.copy()` of a list `ys`: `zs = [v for v in ys]`."""
    for stmt in stmts:
        for field in ("body", "orelse"):
            if isinstance(stmt, (gast.For, gast.While, gast.If)):
                _copies_as_comprehensions(getattr(stmt, field), lists, parsed, namer)
        if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 \
                and isinstance(stmt.targets[0], gast.Name):
            source = _copied(stmt.value, lists, parsed)
            if source is not None:
                element = namer.fresh(f"{source}_element")
                copy = S.parse_expr(f"[{element} for {element} in {source}]")
                stmt.value = S.relocated(copy, stmt.value)
    return stmts



def _rebindings(body, name_) -> int:
    """How many statements bind `name_` to another object: `ys += [a]` extends the list in
    place (list_writes.py makes it appends), it is none of them."""
    extends = sum(1 for s in body for n in S.nodes(s) if isinstance(n, gast.AugAssign)
                  and isinstance(n.op, gast.Add) and isinstance(n.target, gast.Name)
                  and n.target.id == name_ and isinstance(n.value, gast.List))
    return bindings_of(body, name_) - extends


def _merge_aliases(block, body, lists) -> None:
    """`zs = ys` of a list `ys` (as the module docstring says when): one name for both."""
    for stmt in block:
        for field in ("body", "orelse"):
            if isinstance(stmt, (gast.For, gast.While, gast.If)):
                _merge_aliases(getattr(stmt, field), body, lists)
    j = 0
    while j < len(block):
        stmt = block[j]
        j += 1
        if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1
                and isinstance(stmt.targets[0], gast.Name) and isinstance(stmt.value, gast.Name)
                and stmt.value.id in lists and stmt.value.id != stmt.targets[0].id):
            continue
        alias, source = stmt.targets[0].id, stmt.value.id
        made = next((k for k in range(j - 1) if isinstance(block[k], gast.Assign)
                     and any(isinstance(t, gast.Name) and t.id == source
                             for t in block[k].targets)), None)
        if made is None or _rebindings(body, alias) != 1 or _rebindings(body, source) != 1 \
                or _mentions(body, {alias}) != _mentions(block[j - 1:], {alias}):
            continue
        del block[j - 1]
        j -= 1
        if _mentions(body, {source}) == _mentions([block[made]], {source}):
            S.rename(block[made], source, alias)  # the list's only other name: the alias
        else:
            for k in range(j, len(block)):
                block[k] = S.rename(block[k], alias, source)


LIST_CALLS["inline"] = inline_list_calls  # lower() runs it (lower.py: LIST_CALLS)
