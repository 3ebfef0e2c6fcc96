"""Functions passed to a function of the user's (`apply(cube, x)`, `apply(lambda t: t ** 3,
x)`, `apply(square, x)` with `square` at module level), substituted for the parameter they
are bound to when the callee is inlined (srcad/transform/normalize/inline.py): the callee's
`fn(v)` inlines the function passed, and passing `fn` on to another function of the user's
passes it again.

A module-level function is the object the parameter names in the inlined body. A local
function of the caller (a nested `def`, a lambda) reads the caller's variables by their
names, which the callee's own names must not capture: it is inlined in the callee with each
of its free names replaced by a placeholder no code uses (`a_of_caller`), the local functions
it calls passed so too, and once the callee's names are made the caller's, the placeholders
are the names again. What the function passed reads is what Python's closure reads: the
caller's variables as they are when it is called (the callee cannot rebind them).
"""

from __future__ import annotations

import dataclasses

import gast

from srcad.frontend import syntax as S
from srcad.rules import lookup_call
from srcad.transform.normalize.lower import LocalFunction
from srcad.transform.normalize.user_functions import is_user_function


def function_arguments(inliner, bound: list, callee_tree) -> dict:
    """parameter -> the function its argument names (bound as `[(parameter, argument)]`):
    a local function of the caller, a function of the user's or one with a derivative rule
    (`np.sin`, `math.exp`) the name resolves to; not for a parameter the callee rebinds."""
    rebound = {n.id for n in S.walk(callee_tree) if isinstance(n, gast.Name)
               and isinstance(n.ctx, (gast.Store, gast.Del))}
    out = {}
    for param, arg in bound:
        if param in rebound:
            continue
        if isinstance(arg, gast.Name) and arg.id in inliner.local_functions:
            out[param] = inliner.local_functions[arg.id]
        elif isinstance(arg, gast.Attribute) or isinstance(arg, gast.Name) and (
                arg.id in inliner.extra or arg.id not in inliner.bound):
            obj = inliner.callee(arg)  # a module attribute (`np.sin`) or a global
            if is_user_function(obj, inliner.stack[0]) or callable(obj) \
                    and lookup_call(obj) is not None:
                out[param] = obj
    return out


class Shield:
    """The caller's local functions passed to one inlined call, each with its free names
    replaced by placeholders: `visible` holds the local functions the callee may call by a
    placeholder, `objects` what a placeholder of a global or closure name holds (the inliner
    resolves calls by it), `back` each other placeholder's name in the caller. A global the
    callee reads the same (no local of its name, the same object in its module) keeps its
    name."""

    def __init__(self, caller, callee_namer, callee):
        self.caller, self.callee_namer = caller, callee_namer  # the caller's Inliner
        self.callee = callee  # the ParsedFunction called
        self.callee_binds = {n.id for n in S.walk(callee.tree) if isinstance(n, gast.Name)
                             and not isinstance(n.ctx, gast.Load)}
        self.visible: dict = {}
        self.objects: dict = {}
        self.back: dict = {}
        self._shielded: dict = {}  # id(local function) -> its shielded copy

    def shielded(self, function: LocalFunction) -> LocalFunction:
        known = self._shielded.get(id(function))
        if known is not None:
            return known
        tree = S.clone(function.parsed.tree)
        copy = LocalFunction(dataclasses.replace(function.parsed, tree=tree),
                             function.__name__)
        self._shielded[id(function)] = copy  # before its callees: a recursion finds it
        mapping = {}
        for name_ in sorted(free_names(tree)):
            obj = None if name_ not in self.caller.extra and name_ in self.caller.bound \
                else self.caller.callee(S.name(name_))  # a global (or closure) value
            if name_ not in self.caller.local_functions and self._same_for_callee(name_, obj):
                continue  # read by its name: the inliner resolves it, no local captures it
            mapping[name_] = self._placeholder(name_)
            if name_ in self.caller.local_functions:
                self.visible[mapping[name_]] = self.shielded(self.caller.local_functions[name_])
                continue
            self.back[mapping[name_]] = name_
            if obj is not None:
                self.objects[mapping[name_]] = obj
        renamer = S.Renamer(mapping)
        tree.body = [renamer.visit(stmt) for stmt in tree.body]
        return copy

    def _same_for_callee(self, name_: str, obj) -> bool:
        """Does the global `name_` (holding `obj`) mean the same in the callee: it binds no
        local of that name, and its module holds the same object or none by that name?"""
        if obj is None or name_ in self.callee_binds:
            return False
        try:
            return self.callee.resolve(name_) is obj
        except KeyError:
            return True

    def _placeholder(self, name_: str) -> str:
        """A name neither the caller nor the callee uses."""
        while True:
            candidate = self.caller.namer.fresh(f"{name_}_of_caller")
            if candidate not in self.callee_namer.taken:
                self.callee_namer.reserve(candidate)
                return candidate

    def restore(self, stmts: list) -> list:
        """`stmts` with each placeholder the caller's name again."""
        if not self.back:
            return stmts
        renamer = S.Renamer(self.back)
        return [renamer.visit(stmt) for stmt in stmts]


def free_names(tree: gast.FunctionDef) -> set:
    """Names `tree`'s body reads that neither its parameters nor its body bind."""
    args = tree.args
    own = {a.id for a in args.args + args.kwonlyargs}
    loaded = set()
    for stmt in tree.body:
        for node in S.walk(stmt):
            if isinstance(node, gast.Name):
                (loaded if isinstance(node.ctx, gast.Load) else own).add(node.id)
            elif isinstance(node, gast.FunctionDef):
                own.add(node.name)
    return loaded - own
