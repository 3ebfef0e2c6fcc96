"""Lower Python conveniences to the core the fence admits; runs before the fence.

* `sum(e for v in xs if c)`, `sum([...])` and `max(...)`/`min(...)` of one generator or list
  comprehension become loops that accumulate into a fresh variable, placed before the statement
  that uses them (nested generators become nested loops; the comprehension's variables are
  renamed, so they never clobber the function's own);
* `for ... else` and `while ... else` become the loop plus `if not <broke>:` (a flag set at
  each `break` of that loop);
* a list comprehension over a range with constant bounds, assigned to a name, becomes the list
  literal it builds,
  lists of known length become one variable per element, and lists grown by one append per
  loop iteration become arrays (srcad/transform/normalize/lists.py), as do lists appended to
  under conditions, filtered comprehensions included
  (srcad/transform/normalize/conditional_lists.py);
* a nested `def` and a `name = lambda ...` at the top of the body, and a lambda called where
  it is written (`(lambda y: y * y)(x)`, where the statement always evaluates it), are taken
  out of it and handed to the inliner, which inlines their calls like those of module-level
  helpers (their free names read the enclosing function's variables at the call, as Python's
  closures do).

What this pass cannot lower stays as written, and the fence refuses it with its own message
(a comprehension inside `and`/`or`/`x if c else y` or a `while` condition, for instance).
"""

from __future__ import annotations

import builtins

import gast

from srcad.analysis.fence import EMPTY_REDUCTION
from srcad.frontend import syntax as S
from srcad.frontend.parse import ParsedFunction
from srcad.transform.names import Namer
from srcad.transform.normalize.conditional_lists import grow_conditional_lists
from srcad.transform.normalize.constant_blocks import run_constant_blocks
from srcad.transform.normalize.contexts import strip_contexts
from srcad.transform.normalize.function_values import (
    arms_as_ifs,
    define_in_blocks,
    local_names,
    name_passed_lambdas,
    user_callable,
)
from srcad.transform.normalize.list_appends import appends_to_literals
from srcad.transform.normalize.list_arms import literals_in_arms_as_appends
from srcad.transform.normalize.list_hoists import hoisted
from srcad.transform.normalize.list_reductions import fold_literal_reductions
from srcad.transform.normalize.list_shifts import shifted
from srcad.transform.normalize.list_writes import extends_as_appends
from srcad.transform.normalize.lists import grow_lists_into_arrays, split_fixed_lists
from srcad.transform.normalize.literal_arguments import lists_as_tuples
from srcad.transform.normalize.local_records import local_records

_COMPREHENSIONS = (gast.GeneratorExp, gast.ListComp)

# The pass inlining the calls that pass or return lists (list_calls.inline_list_calls). It
# inlines with inline.py's Inliner, which lowers each body it inlines: list_calls.py sits
# above this module and registers the pass here at import (stage.py imports it).
LIST_CALLS: dict = {}


class LocalFunction:
    """A function defined inside the differentiated one (`def` or `lambda`), inlined at its
    calls; `parsed` shares the enclosing function's file, lines and namespace."""

    def __init__(self, parsed: ParsedFunction, name: str):
        self.parsed = parsed
        self.__name__ = name

    @property
    def defaults(self) -> dict:
        """Parameter -> default value (constants only; the fence refuses others)."""
        args = self.parsed.tree.args
        positional = args.args[len(args.args) - len(args.defaults):]
        out = {p.id: d.value for p, d in zip(positional, args.defaults)}
        out.update({p.id: d.value for p, d in zip(args.kwonlyargs, args.kw_defaults)
                    if d is not None})
        return out


class Lowering:
    def __init__(self, parsed: ParsedFunction, namer: Namer):
        self.parsed = parsed
        self.namer = namer
        self.local_functions: dict[str, LocalFunction] = {}

    def _is_builtin(self, node, obj) -> bool:
        if not isinstance(node, gast.Name) or node.id in self.local_functions:
            return False
        try:
            return self.parsed.resolve(node.id) is obj
        except KeyError:
            return False

    # -- statements --------------------------------------------------------------------------
    def block(self, stmts: list, top: bool = False) -> list:
        out = []
        for stmt in stmts:
            out.extend(self.stmt(stmt, top))
        return out

    def stmt(self, stmt, top: bool = False) -> list:
        if top and self._local_function(stmt):
            return []
        if isinstance(stmt, (gast.For, gast.While)) and stmt.orelse:
            return self.block(self._loop_else(stmt))
        if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 \
                and isinstance(stmt.targets[0], gast.Name) \
                and isinstance(stmt.value, gast.ListComp):
            # `ys = [e for i in range(3)]`: the list literal `[e0, e1, e2]` it builds (a list of
            # known length, which srcad/transform/normalize/lists.py splits)
            unrolled = _unrolled(stmt.value, self)
            if unrolled is not None:
                stmt.value = gast.copy_location(unrolled, stmt.value)
        pre: list = []
        fields = ("value", "iter", "targets", "target") if isinstance(stmt, gast.While) \
            else ("value", "test", "iter", "targets", "target")
        for field in fields:
            if getattr(stmt, field, None) is not None:
                setattr(stmt, field, _Hoister(self, pre).visit_field(getattr(stmt, field)))
        for field in ("body", "orelse"):
            if isinstance(getattr(stmt, field, None), list):
                setattr(stmt, field, self.block(getattr(stmt, field)))
        return pre + [stmt]

    def comprehensions_as_appends(self, body) -> list:
        """`ys = [e for v in seq if c]` in the body or a block nested in it, over a range or
        an array variable (several `for`s: nested loops) and not unrolled (srcad/transform/
        lists.py splits those over constant ranges): `ys = []` and a loop appending once per
        element, the list grown by append that grow_lists_into_arrays makes an array (the
        comprehension's variables renamed: they stay its own); with `if`s (appending when
        they hold), over `zip`, `enumerate`, `reversed`, with several `for`s or in a nested
        block, the list conditional_lists.py makes an array."""
        out = []
        for stmt in body:
            for field in ("body", "orelse"):
                if isinstance(stmt, (gast.For, gast.While, gast.If)):
                    setattr(stmt, field, self.comprehensions_as_appends(getattr(stmt, field)))
            loop = self._as_loop(stmt) if isinstance(stmt, gast.Assign) \
                and len(stmt.targets) == 1 and isinstance(stmt.targets[0], gast.Name) \
                and isinstance(stmt.value, gast.ListComp) \
                and _unrolled(S.clone(stmt.value), self) is None else None
            if loop is None:  # other sequences: refused by the fence, with the line
                out.append(stmt)
                continue
            for new in (S.assign(S.name(stmt.targets[0].id), gast.List(elts=[],
                                                                       ctx=gast.Load())), loop):
                for node in gast.walk(new):
                    if isinstance(node, (gast.stmt, gast.expr)) and not hasattr(node, "lineno"):
                        gast.copy_location(node, stmt)
                out.append(new)
        return out

    def _as_loop(self, stmt):
        """The loop nest appending the elements of `ys = [e for ...]` to `ys`, or None."""
        generators, element = self._renamed(stmt.value)
        inner = [gast.Expr(value=gast.Call(func=gast.Attribute(
            value=S.name(stmt.targets[0].id), attr="append", ctx=gast.Load()),
            args=[element], keywords=[]))]
        for gen in reversed(generators):
            for cond in reversed(gen.ifs):  # `if c`: appended when c holds (conditional_lists)
                inner = [gast.If(test=cond, body=inner, orelse=[])]
            it, body_ = gen.iter, []
            if isinstance(it, gast.Name):  # `for v in x`: `for k in range(len(x))`, v = x[k]
                index = self.namer.fresh(f"{it.id}_index")
                body_.append(gast.Assign(targets=[gen.target], value=gast.Subscript(
                    value=S.name(it.id), slice=S.name(index), ctx=gast.Load())))
                it, gen.target = S.call("range", S.call("len", S.name(it.id))), \
                    S.name(index, store=True)
            elif not (isinstance(it, gast.Call) and (
                    self._is_builtin(it.func, builtins.range) or any(
                        self._is_builtin(it.func, fn)  # conditional_lists.py's loops
                        for fn in (builtins.zip, builtins.enumerate, builtins.reversed)))):
                return None
            inner = [gast.For(target=gen.target, iter=it, body=body_ + inner, orelse=[],
                              type_comment=None)]
        return inner[0]

    def _local_function(self, stmt) -> bool:
        if isinstance(stmt, gast.FunctionDef) and not stmt.decorator_list:
            tree = stmt
        elif (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1
              and isinstance(stmt.targets[0], gast.Name) and isinstance(stmt.value, gast.Lambda)):
            tree = S.lambda_as_def(stmt.value, stmt.targets[0].id, stmt)
        else:
            return False
        return self.define_local(tree)

    def called_lambda(self, call):
        """`(lambda y: ...)(x)`: the lambda made a local function, called by its new name
        (`called_lambda(x)`); left as it is when the fence must refuse it."""
        name_ = self.namer.fresh("called_lambda")
        if self.define_local(S.lambda_as_def(call.func, name_, call)):
            call.func = gast.copy_location(S.name(name_), call.func)

    def define_local(self, tree) -> bool:
        """Make `tree` (a `def`) a local function; False when the fence must refuse it."""
        defaults = tree.args.defaults + [d for d in tree.args.kw_defaults if d is not None]
        if tree.args.vararg or tree.args.kwarg or \
                not all(isinstance(d, gast.Constant) for d in defaults):
            return False  # the fence refuses it: inlining binds constant defaults only
        if tree.name in self.local_functions:
            return False  # defined twice: the fence refuses the second definition
        parsed = ParsedFunction(self.parsed.func, tree, self.parsed.filename,
                                self.parsed.first_line, self.parsed.source_lines,
                                self.parsed.namespace, spellings=self.parsed.spellings,
                                renamed=self.parsed.renamed)
        self.local_functions[tree.name] = LocalFunction(parsed, tree.name)
        return True

    def _loop_else(self, loop) -> list:
        orelse, loop.orelse = loop.orelse, []
        breaks = _own_breaks(loop.body)
        if not breaks:
            return [loop] + orelse
        flag = self.namer.fresh("broke")
        _SetFlagAtBreak(flag).visit_block(loop.body)
        test = gast.UnaryOp(op=gast.Not(), operand=S.name(flag))
        after = gast.copy_location(gast.If(test=test, body=orelse, orelse=[]), loop)
        return [gast.copy_location(S.assign(S.name(flag), S.const(False)), loop), loop, after]

    # -- comprehensions ----------------------------------------------------------------------
    def reduction(self, call, pre: list):
        """The variable holding `sum/max/min(<comprehension>)`, its loops appended to `pre`;
        None when `call` is not such a reduction."""
        kind = next((k for k, fn in (("sum", builtins.sum), ("max", builtins.max),
                                     ("min", builtins.min)) if self._is_builtin(call.func, fn)),
                    None)
        if kind is None or call.keywords or not call.args \
                or not isinstance(call.args[0], _COMPREHENSIONS):
            return None
        if len(call.args) > (2 if kind == "sum" else 1):
            return None
        comp = call.args[0]
        acc = self.namer.fresh(f"{kind}_of")
        self.parsed.expressions[acc] = S.clone(call)  # messages quote what the user wrote
        generators, element = self._renamed(comp)
        if kind == "sum":
            start = call.args[1] if len(call.args) > 1 else S.const(0)
            setup = [S.assign(S.name(acc), start)]
            inner = [S.assign(S.name(acc), gast.BinOp(left=S.name(acc), op=gast.Add(),
                                                      right=element))]
        else:
            started = self.namer.fresh(f"{acc}_started")
            item = self.namer.fresh(f"{acc}_item")
            setup = [S.assign(S.name(started), S.const(False)), S.assign(S.name(acc), S.const(0))]
            keep = S.parse_stmts(f"if {started}:\n    {acc} = {kind}({acc}, {item})\n"
                                 f"else:\n    {acc} = {item}\n    {started} = True\n")
            inner = [S.assign(S.name(item), element)] + keep
            # Python raises on an empty sequence; 0 would be a silently wrong value
            empty = S.parse_stmts(f"if not {started}:\n"
                                  f"    raise ValueError({EMPTY_REDUCTION[kind]!r})\n")
        for gen in reversed(generators):
            for cond in reversed(gen.ifs):
                inner = [gast.If(test=cond, body=inner, orelse=[])]
            inner = [gast.For(target=gen.target, iter=gen.iter, body=inner, orelse=[],
                              type_comment=None)]
        stmts = setup + inner + (empty if kind != "sum" else [])
        for s in stmts:
            for node in gast.walk(s):
                if isinstance(node, (gast.stmt, gast.expr)) and not hasattr(node, "lineno"):
                    gast.copy_location(node, call)
        pre.extend(self.block(stmts))
        return S.name(acc)

    def _renamed(self, comp):
        """The comprehension's generators and element with its variables renamed fresh."""
        generators = [S.clone(g) for g in comp.generators]
        element = S.clone(comp.elt)
        for k, gen in enumerate(generators):
            for target in (n for n in gast.walk(gen.target) if isinstance(n, gast.Name)):
                fresh = self.namer.fresh(target.id)
                self.parsed.spellings.setdefault(fresh, target.id)  # messages say `c`
                renamer = _ScopedRenamer(target.id, fresh)
                target.id = fresh
                gen.ifs = [renamer.visit(c) for c in gen.ifs]
                for later in generators[k + 1:]:
                    later.iter = renamer.visit(later.iter)
                    later.ifs = [renamer.visit(c) for c in later.ifs]
                element = renamer.visit(element)
        return generators, element


class _Hoister(S.AlwaysEvaluated):
    """Replaces reductions over comprehensions in one statement's expressions; leaves the
    branches of conditional expressions alone (hoisting would evaluate them unconditionally)."""

    def __init__(self, lowering: Lowering, pre: list):
        self.lowering = lowering
        self.pre = pre

    def visit_field(self, value):
        if isinstance(value, list):
            return [self.visit(v) for v in value]
        return self.visit(value)

    def visit_Call(self, node):
        reduced = self.lowering.reduction(node, self.pre)
        if reduced is not None:
            return reduced
        if isinstance(node.func, gast.Lambda):
            self.lowering.called_lambda(node)
        name_passed_lambdas(self.lowering, node)
        return self.generic_visit(node)


_UNROLL_MAX = 64


def _unrolled(comp, lowering):
    if len(comp.generators) != 1 or comp.generators[0].ifs:
        return None
    gen = comp.generators[0]
    it = gen.iter
    if not (isinstance(gen.target, gast.Name) and isinstance(it, gast.Call)
            and lowering._is_builtin(it.func, builtins.range) and not it.keywords
            and all(isinstance(a, gast.Constant) and type(a.value) is int for a in it.args)
            and 1 <= len(it.args) <= 3):
        return None
    if any(isinstance(n, (gast.ListComp, gast.GeneratorExp, gast.SetComp, gast.DictComp,
                          gast.Lambda)) for n in gast.walk(comp.elt)):
        return None
    values = list(range(*(a.value for a in it.args)))
    if len(values) > _UNROLL_MAX:
        return None
    elts = [S.substitute(comp.elt, {gen.target.id: S.const(v)}) for v in values]
    return gast.List(elts=elts, ctx=gast.Load())


class _ScopedRenamer(S.Renamer):
    """Renames `old` to `new`, except inside a nested comprehension that binds `old` again."""

    def __init__(self, old, new):
        super().__init__({old: new})
        self.old = old

    def _comprehension(self, node):
        if any(isinstance(n, gast.Name) and n.id == self.old
               for g in node.generators for n in gast.walk(g.target)):
            node.generators[0].iter = self.visit(node.generators[0].iter)
            return node
        return self.generic_visit(node)

    visit_GeneratorExp = visit_ListComp = visit_SetComp = visit_DictComp = _comprehension


def _own_breaks(body) -> bool:
    """Does `body` break out of the loop it belongs to (not of a nested loop)?"""
    for stmt in body:
        if isinstance(stmt, gast.Break):
            return True
        if isinstance(stmt, gast.If) and (_own_breaks(stmt.body) or _own_breaks(stmt.orelse)):
            return True
    return False


class _SetFlagAtBreak:
    def __init__(self, flag):
        self.flag = flag

    def visit_block(self, body):
        out = []
        for stmt in body:
            if isinstance(stmt, gast.Break):
                out.append(gast.copy_location(S.assign(S.name(self.flag), S.const(True)), stmt))
            elif isinstance(stmt, gast.If):
                stmt.body = self.visit_block(stmt.body)
                stmt.orelse = self.visit_block(stmt.orelse)
            out.append(stmt)
        body[:] = out
        return body


def lower(parsed: ParsedFunction, body: list, namer: Namer) -> tuple[list, dict]:
    """(the lowered body, the local functions it defined: name -> LocalFunction)."""
    body = strip_contexts(parsed, body)  # with np.errstate(...): the body, run inside it
    body = local_records(parsed, body, namer)  # s = State(a, b); s.h: a variable per field
    body = run_constant_blocks(parsed, body, namer)  # try on constants, rng = ...: as is
    body = lists_as_tuples(parsed, body)  # np.mean([x, y]): NumPy reads a tuple the same
    lowering = Lowering(parsed, namer)
    params = [a.id for a in parsed.tree.args.args + parsed.tree.args.kwonlyargs]
    defined = local_names(body)
    body = arms_as_ifs(body, lambda func: user_callable(parsed, func, defined))
    # the local functions first (those defined in blocks or more than once: function_values.py);
    # a list passed to one is inlined before the lists are lowered
    body = define_in_blocks(lowering, body)
    body = [s for s in body if not lowering._local_function(s)]
    body = LIST_CALLS["inline"](parsed, body, namer, lowering.local_functions)
    body = fold_literal_reductions(parsed, body)
    # before the comprehensions become loops: `ys.extend(e for ...)` is one too
    body = shifted(hoisted(body, namer, params, lowering._as_loop), namer, params)
    body = extends_as_appends(lowering.comprehensions_as_appends(body), namer, params)
    body = appends_to_literals(body)
    body = literals_in_arms_as_appends(body)
    body = grow_conditional_lists(parsed, grow_lists_into_arrays(parsed, body, namer), namer)
    body = lowering.block(body, top=True)
    return split_fixed_lists(parsed, body, namer, params), lowering.local_functions
