"""Inline calls to the user's own plain Python functions, so they are differentiated with the
caller (and get the same lean tapes), not treated as black boxes.

A call inside an expression is hoisted before its statement: the callee's body, with its
locals renamed `<callee>_<name>`, runs there and leaves its value in `<callee>_result`.
Arguments are bound as Python binds them (positional, keywords, the defaults the function
holds; a functools.partial adds its bound arguments). Array arguments passed by name are
aliased (the callee writes into the caller's array, as in Python); other arguments are bound by
assignment. Local functions (a nested `def`, an assigned `lambda`;
srcad/transform/normalize/lower.py) are inlined the same way. A call of a recursive
module-level helper is kept as a call of the recursion primitive
(srcad/transform/normalize/recursive_calls.py); a recursive local function is refused.
"""

from __future__ import annotations

import functools

import gast

from srcad.analysis.fence import check_syntax
from srcad.errors import SrcadError
from srcad.frontend import syntax as S
from srcad.frontend.constant_sequences import default_as_array
from srcad.frontend.lambdas import function_name
from srcad.frontend.parse import ParsedFunction, parse_function, resolve_callee
from srcad.frontend.refusals import STRICT, Refusals
from srcad.frontend.transformer import Transformer
from srcad.rules import lookup_call
from srcad.transform.names import Namer
from srcad.transform.normalize.contexts import helper_contexts
from srcad.transform.normalize.desugar import desugar
from srcad.transform.normalize.exits import always_assigns, structure_exits
from srcad.transform.normalize.function_arguments import Shield, function_arguments
from srcad.transform.normalize.function_reads import attribute_reads, closure_reads, global_reads
from srcad.transform.normalize.lower import LocalFunction, lower
from srcad.transform.normalize.nested_calls import rewrite_nested_calls
from srcad.transform.normalize.prepared_helpers import PreparedHelpers
from srcad.transform.normalize.recursive_calls import (
    kept_as_call,
    recursion_refused,
    recursive_call,
)
from srcad.transform.normalize.user_functions import is_user_function


def _set_lines(node, lineno, column):
    for sub in S.walk(node):
        if isinstance(sub, (gast.stmt, gast.expr)):
            sub.lineno = lineno
            sub.end_lineno = lineno
            sub.col_offset = column


class Inliner:
    """Inlines into one top-level function; `extra` collects names the inlined code needs that
    the top-level function's namespace binds differently."""

    def __init__(self, parsed: ParsedFunction, namer: Namer, stack=(), extra=None,
                 local_functions=None, refusals: Refusals = STRICT):
        self.parsed = parsed
        self.namer = namer
        self.stack = stack + (parsed.func,)
        self.extra = {} if extra is None else extra
        self.local_functions = local_functions or {}  # name -> LocalFunction
        # (namespace dict, name, object) for every global the inlined code read: the cache
        # checks them on each call, so rebinding a helper or a constant is never stale
        self.dependencies: list = global_reads(parsed) + [
            r for r in parsed.inlined_reads if len(r) == 3]
        self.cells: list = closure_reads(parsed) + [  # (cell, object) likewise for closures
            r for r in parsed.inlined_reads if len(r) == 2]
        self.bound = {n.id for n in S.walk(parsed.tree) if isinstance(n, gast.Name)
                      and isinstance(n.ctx, (gast.Store, gast.Param, gast.Del))}
        # a statement whose inlining is refused (in the helper or at its call) is recorded
        # in `refusals` and kept as it is, listed in `refused` to be set aside
        self.refusals, self.refused = refusals, []
        self.prepared = PreparedHelpers()  # the helpers' bodies, prepared once per build

    def callee(self, func_expr):
        """What a call's function expression names: a local function, or the object it
        resolves to (srcad's own decorators seen through: they call the function unchanged)."""
        if isinstance(func_expr, gast.Name) and func_expr.id in self.local_functions:
            return self.local_functions[func_expr.id]
        obj = resolve_callee(self.parsed, func_expr, self.extra)
        if lookup_call(obj) is not None:  # a function with a rule (srcad.custom_jvp): called
            return obj
        return getattr(obj, "__srcad_wrapped__", obj)

    # -- statements --------------------------------------------------------------------------
    def block(self, stmts: list) -> list:
        out = []
        for stmt in stmts:
            try:
                out.extend(self.stmt(stmt))
            except SrcadError as err:
                self.refusals.add(err)  # raises when it does not collect
                self.refused.append(stmt)
                out.append(stmt)
        return out

    def stmt(self, stmt) -> list:
        pre: list = []
        if isinstance(stmt, gast.While):
            self._refuse_calls_in(stmt.test, "while condition")
        elif isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Call):
            obj = self.callee(stmt.value.func)
            if is_user_function(obj, self.stack[0]):
                self._hoist_args(stmt.value, pre)
                body, result = self.inline_call(obj, stmt.value)
                if isinstance(result, gast.Call):  # a recursive helper's call, kept
                    body = [gast.copy_location(gast.Expr(value=result), stmt)]
                return pre + body
        for field in ("value", "test", "iter", "targets", "target"):
            if hasattr(stmt, field):
                setattr(stmt, field, self._hoist(getattr(stmt, field), pre, stmt))
        for field in ("body", "orelse"):
            if hasattr(stmt, field) and isinstance(getattr(stmt, field), list):
                setattr(stmt, field, self.block(getattr(stmt, field)))
        return pre + [stmt]

    def _refuse_calls_in(self, expr, where):
        for node in S.walk(expr):
            if isinstance(node, gast.Call):
                obj = self.callee(node.func)
                if is_user_function(obj, self.stack[0]):
                    raise self.parsed.error(node, f"call in {where}", f"calls to "
                                            f"{obj.__name__} are not allowed in a {where}",
                                            hint="assign the call to a variable first")

    def _hoist(self, expr, pre, stmt):
        if expr is None or isinstance(expr, list) and not expr:
            return expr
        if isinstance(expr, list):
            return [self._hoist(e, pre, stmt) for e in expr]
        for node in S.walk(expr):
            if isinstance(node, (gast.IfExp, gast.BoolOp)):
                self._refuse_calls_in(node, "conditional expression (and/or/if-else)")
        hoister = _Hoister(self, pre)
        return hoister.visit(expr)

    def _hoist_args(self, call, pre):
        call.args = [self._hoist(a, pre, None) for a in call.args]
        for k in call.keywords:
            k.value = self._hoist(k.value, pre, None)

    # -- one call ----------------------------------------------------------------------------
    def inline_call(self, callee, call) -> tuple[list, gast.AST]:
        if isinstance(callee, functools.partial):
            return self.inline_call(callee.func, self._partial_call(callee, call))
        if kept_as_call(callee, self.stack, is_user_function):  # called, not inlined
            cparsed = parse_function(callee)
            _, bound = self._bind(callee, cparsed, call)
            return [], recursive_call(self.parsed, callee, call, bound, cparsed)
        if callee in self.stack:
            raise recursion_refused(self.parsed, self.stack, callee, call)
        self.dependencies.extend(attribute_reads(self.parsed, call.func, self.extra))
        local = isinstance(callee, LocalFunction)
        cparsed = callee.parsed if local else parse_function(callee)
        params, bound = self._bind(callee, cparsed, call)
        cnamer = Namer.for_tree(cparsed.tree)
        # functions passed: substituted for their parameters (function_arguments.py)
        functions = function_arguments(self, bound, cparsed.tree)
        shield = Shield(self, cnamer, cparsed)
        passed = {p: shield.shielded(f) for p, f in functions.items()
                  if isinstance(f, LocalFunction)}
        bound = [(p, self._value(functions[p], f"{function_name(callee)}_{p}")
                  if p in functions else a) for p, a in bound if p not in passed]
        try:
            body, inner = self._inlined_body(callee, cparsed, cnamer, {
                **passed, **shield.visible}, {**shield.objects, **{
                    p: f for p, f in functions.items() if p not in passed}})
        except SrcadError as err:  # in the callee's code: said to be called from here
            raise err.called_from(callee.__name__, self.parsed.name, self.parsed.filename,
                                  self.parsed.line_of(call)) from None
        self.dependencies.extend(inner.dependencies)
        self.cells.extend(inner.cells)
        for taken in cnamer.taken:
            self.namer.reserve(taken)

        prefix = function_name(callee)
        tuple_size = self._tuple_returns(body)
        odd = [r for s in body for r in S.walk(s) if isinstance(r, gast.Return)
               and not (S.is_tuple_return(r) and len(r.value.elts) == tuple_size)]
        if tuple_size and odd:  # `a, b = f(x)` of a float, or None, raises in Python
            raise cparsed.error(odd[0], "return", f"{prefix} returns {tuple_size} values on "
                                "one path and not on this one", hint="return the same number "
                                "of values on every path").called_from(
                callee.__name__, self.parsed.name, self.parsed.filename, self.parsed.line_of(call))
        if tuple_size:
            results = [self.namer.fresh(f"{prefix}_result_{k}") for k in range(tuple_size)]
            body = self._split_tuple_returns(body, results)
            result_expr = gast.Tuple(elts=[S.name(r) for r in results], ctx=gast.Load())
            result_name = None
        else:
            results = []
            result_name = self.namer.fresh(f"{prefix}_result")
            self.parsed.expressions[result_name] = S.clone(call)  # messages quote the call
            result_expr = S.name(result_name)
        flag = self.namer.fresh(f"{prefix}_returned")
        generated = {result_name, flag, *results}  # caller-side names: never renamed
        body, _ = structure_exits(body, result_name, flag)
        if result_name is not None and not always_assigns(body, result_name):
            body.insert(0, S.assign(S.name(result_name), S.const(None)))  # a path returns None

        # Rename the callee's locals; alias array-like arguments passed by name.
        stored = set().union(*(S.stored_names(s) for s in body)) if body else set()
        rebound = {n.id for s in body for n in S.walk(s)
                   if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}
        mapping, binds = {}, []
        for param, arg in bound:
            if isinstance(arg, gast.Name) and param not in rebound:
                mapping[param] = arg.id
            else:
                fresh = self.namer.fresh(f"{prefix}_{param}")
                mapping[param] = fresh
                binds.append(S.assign(S.name(fresh), arg))
        if isinstance(callee, LocalFunction):  # `y[i] = v` of the caller's array `y`: its own
            stored -= {n for n in stored - rebound - set(params) if n in self.bound}
        for local in sorted(stored - set(params) - generated):
            mapping.setdefault(local, self.namer.fresh(f"{prefix}_{local}"))
        free = {n.id for s in body for n in S.walk(s) if isinstance(n, gast.Name)}
        free -= set(mapping) | stored | set(params) | set(shield.back)  # the caller's names
        for fname in sorted(free):
            if fname in inner.extra:
                obj = inner.extra[fname]
            else:
                try:
                    obj = cparsed.resolve(fname)
                except KeyError:
                    continue
            # aliased when the caller reads another object by that name, or binds the name
            # (its local would capture a module-level callee's global; a local function's
            # free names are the caller's own locals)
            mine = resolve_callee(self.parsed, S.name(fname), self.extra)
            if mine is not obj or (not local and fname in self.bound):
                alias = self.namer.fresh(f"{fname}_{prefix}")
                mapping[fname] = alias
                self.extra[alias] = obj
        self.parsed.spell_inlined(mapping, dict(bound), cparsed, function_name(callee))
        renamer = S.Renamer(mapping)
        body = shield.restore([renamer.visit(s) for s in body])
        for buffer, list_name in cnamer.list_buffers.items():  # rows once types are known
            self.namer.list_buffers[mapping.get(buffer, buffer)] = list_name
        text = f"inlined call {S.unparse_expr(call)}"
        out = [S.comment(text)] + binds + body
        for s in out:
            _set_lines(s, getattr(call, "lineno", None), getattr(call, "col_offset", 0))
        return out, result_expr

    def _inlined_body(self, callee, cparsed, cnamer, passed: dict,
                      passed_objects: dict) -> tuple[list, Inliner]:
        """The callee's body checked, desugared, its calls inlined (by the Inliner returned);
        `passed`: the local functions passed to it (by parameter and placeholder),
        `passed_objects` the functions of the user's passed by parameter."""
        local = isinstance(callee, LocalFunction)

        def prepare():
            body = S.clone(cparsed.tree.body)
            if body and S.is_comment(body[0]):
                body = body[1:]  # docstring
            body, own_locals = lower(cparsed, body, cnamer)
            # a local function sees its siblings (they are its closure); a module-level one not
            visible = {**(self.local_functions if local else {}), **own_locals, **passed}
            body = rewrite_nested_calls(cparsed, body, cnamer, visible)
            # a local function writing its caller's array: inlined, the caller's own write
            check_syntax(cparsed, body, visible, top_level=False,
                         enclosing=self.bound if local else ())
            return desugar(cparsed, body, cnamer, unpack_calls=False), own_locals

        body, own_locals = prepare() if local or passed or passed_objects else \
            self.prepared.prepared(callee, cparsed, cnamer, prepare)  # once per build
        visible = {**(self.local_functions if local else {}), **own_locals, **passed}
        # a local function reads what its caller reads (a function passed: by placeholders)
        extra = {**(self.extra if local else {}), **passed_objects}
        inner = Inliner(cparsed, cnamer, self.stack + (callee,), extra=extra,
                        local_functions=visible)
        inner.prepared = self.prepared
        body = desugar(cparsed, inner.block(body), cnamer)
        # a helper's np.errstate: the call's, made in the helper's namespace
        self.parsed.contexts.extend(helper_contexts(self.parsed, cparsed))
        return body, inner

    def _bind(self, callee, cparsed, call) -> tuple[list, list]:
        """(parameter names, [(parameter, argument expression)]) as Python binds the call:
        positional arguments, then keywords, then the defaults (their values as the function
        holds them, evaluated when it was defined)."""
        args = cparsed.tree.args
        positional = [a.id for a in args.args]
        params = positional + [a.id for a in args.kwonlyargs]
        name_ = function_name(callee)
        starred = args.vararg.id if args.vararg is not None else None
        if len(call.args) > len(positional) and starred is None:
            raise self.parsed.error(call, "call", f"{name_} takes {len(positional)} positional "
                                    f"arguments, {len(call.args)} given")
        given = dict(zip(positional, call.args))  # a helper's `*args`: the fence refuses it
        renamed = cparsed.renamed  # keywords name the parameters as the user spells them
        for keyword in call.keywords:
            param = renamed.get(keyword.arg, keyword.arg)
            if param not in params or param in given:
                problem = "an unexpected" if param not in params else "a repeated"
                raise self.parsed.error(call, "call", f"{name_} gets {problem} argument "
                                        f"`{keyword.arg}`")
            given[param] = keyword.value
        defaults = callee.defaults if isinstance(callee, LocalFunction) else {
            **dict(zip(positional[len(positional) - len(callee.__defaults__ or ()):],
                       callee.__defaults__ or ())),
            **{renamed.get(k, k): v for k, v in (callee.__kwdefaults__ or {}).items()}}
        missing = [p for p in params if p not in given and p not in defaults]
        if missing:
            raise self.parsed.error(call, "call", f"{name_} is missing the argument "
                                    f"`{cparsed.spellings.get(missing[0], missing[0])}`",
                                    hint="pass every argument that has no default")
        spelled = {p: cparsed.spellings.get(p, p) for p in params}
        bound = [(p, given[p] if p in given else self._value(  # `cs=(1.0, 2.0)`: its array
            default_as_array(callee, spelled[p], defaults[p]), f"{name_}_{p}",
            (spelled[p], name_))) for p in params]
        return params, bound

    def _value(self, value, base, spelled=None):
        """An expression for a value computed outside the function (a default, an argument
        bound by functools.partial): a constant, or a name bound to the object itself.
        `spelled`: (the parameter, the function) messages name that name by."""
        if value is None or type(value) in (bool, int, float):
            return S.const(value)
        alias = self.namer.fresh(f"{base}_default")
        self.extra[alias] = value
        if spelled is not None:  # `poly_cs_default` is poly's `cs`
            self.parsed.spellings[alias], self.parsed.helper_locals[alias] = spelled
        return S.name(alias)

    def _partial_call(self, partial, call):
        """The call of `partial.func` that calling `partial` makes."""
        func = getattr(partial.func, "__name__", "function")
        code = getattr(partial.func, "__code__", None)  # a bound number tuple: its array
        names = code.co_varnames[:code.co_argcount] if code is not None else ()
        args = [self._value(default_as_array(partial.func, names[k], v) if k < len(names)
                            else v, f"{func}_bound") for k, v in enumerate(partial.args)]
        args += list(call.args)
        keywords = [gast.keyword(arg=k, value=self._value(
            default_as_array(partial.func, k, v), f"{func}_{k}", (k, func)))
            for k, v in partial.keywords.items()]
        keywords = [k for k in keywords if k.arg not in {c.arg for c in call.keywords}]
        new = gast.Call(func=call.func, args=args, keywords=keywords + list(call.keywords))
        return gast.copy_location(new, call)

    @staticmethod
    def _tuple_returns(body) -> int:
        sizes = {len(n.value.elts) for s in body for n in S.walk(s)
                 if isinstance(n, gast.Return) and isinstance(n.value, gast.Tuple)}
        return sizes.pop() if len(sizes) == 1 else 0

    @staticmethod
    def _split_tuple_returns(body, results):
        class Split(gast.NodeTransformer):
            def visit_Return(self, node):
                assigns = [S.assign(S.name(r), v) for r, v in zip(results, node.value.elts)]
                return assigns + [gast.Return(value=None)]
        out = []
        for stmt in body:
            new = Split().visit(stmt)
            out.extend(new if isinstance(new, list) else [new])
        return out


class _Hoister(Transformer):
    def __init__(self, inliner: Inliner, pre: list):
        self.inliner = inliner
        self.pre = pre

    def visit_Call(self, node):
        self.generic_visit(node)  # inner calls first, left to right
        obj = self.inliner.callee(node.func)
        if not is_user_function(obj, self.inliner.stack[0]):
            return node
        body, result = self.inliner.inline_call(obj, node)
        self.pre.extend(body)
        return result


