"""Statement grammar of the plain fuzz programs (`f(y, x, a[, n])`): assignments, element
writes, if/elif/else, for loops over ranges, arrays and enumerate, bounded while loops,
break/continue, early returns, helper calls and swaps; the module-level helpers and the whole
program. A mixin of `generator.Generator`.
"""

from __future__ import annotations

from grammar_nests import NEST_FRACTION
from grammar_sums import sum_seed
from program import PRELUDE, ArgKind, Program
from scopes import Arr, FunctionContext, Helper, IntVar, Scope, indent


class StatementGrammar:
    def block(self, scope: Scope, ctx: FunctionContext, depth: int, n: int) -> list[str]:
        lines = []
        for _ in range(n):
            if ctx.budget <= 0:
                break
            ctx.budget -= 1
            lines += self.statement(scope, ctx, depth)
        if not lines:
            lines = self.simple(scope, ctx)
        return lines

    def statement(self, scope: Scope, ctx: FunctionContext, depth: int) -> list[str]:
        rng = self.rng
        if self.shapes:  # (no draw without shapes: the programs stay as they were)
            lines = self.shape_statement(scope, ctx, depth)
            if lines:
                return lines
        weights = {"simple": 6, "elem": 4 if scope.arrays else 0, "if": 2 if depth > 0 else 0,
                   "for": 2 if depth > 0 else 0, "while": 1 if depth > 0 else 0,
                   "exit": 2 if ctx.loop_depth > 0 else 0, "return": 1,
                   "call": 2 if ctx.helpers and ctx.calls_left > 0 else 0,
                   "counter": 1 if any(iv.name.startswith("kc") for iv in scope.ints) else 0,
                   "swap": 1, "ifexp": 1}
        kind = rng.choices(list(weights), list(weights.values()))[0]
        if kind == "simple":
            return self.simple(scope, ctx)
        if kind == "elem":
            return self.element_write(scope, ctx)
        if kind == "if":
            return self.if_stmt(scope, ctx, depth)
        if kind == "for":
            return self.for_stmt(scope, ctx, depth)
        if kind == "while":
            return self.while_stmt(scope, ctx, depth)
        if kind == "exit":
            word = rng.choice(["break", "continue"])
            return [f"if {self.cond(scope, ctx)}:", f"    {word}"]
        if kind == "return":
            return [f"if {self.cond(scope, ctx)}:", f"    {self.return_stmt(scope, ctx)}"]
        if kind == "call":
            return self.call_stmt(scope, ctx)
        if kind == "counter":
            kc = [iv for iv in scope.ints if iv.name.startswith("kc")][0].name
            return [f"{kc} += 1"]
        if kind == "swap":
            if len(scope.floats) >= 2 and self.chance(0.5):
                a, b = rng.sample(scope.floats, 2)
                return [f"{a}, {b} = {b}, {a}"]
            if scope.arrays:
                arr = rng.choice(scope.arrays)
                e1, e2 = self.element(scope, arr), self.element(scope, arr)
                return [f"{e1}, {e2} = {e2}, {e1}"]
            return self.simple(scope, ctx)
        # ifexp
        value = (f"{self.fexpr(scope, ctx, 1, False)} if {self.cond(scope, ctx)} "
                 f"else {self.fexpr(scope, ctx, 1, False)}")
        return [f"{self.float_target(scope)} = {value}"]

    def float_target(self, scope: Scope, new_p: float = 0.4) -> str:
        locals_ = [v for v in scope.floats]
        if not locals_ or self.chance(new_p):
            name = self.fresh("t")
            scope.floats.append(name)
            return name
        return self.rng.choice(locals_)

    def simple(self, scope: Scope, ctx: FunctionContext) -> list[str]:
        rng = self.rng
        e = self.fexpr(scope, ctx, rng.randint(1, 3))
        existing = [v for v in scope.floats]
        if existing and self.chance(0.6):
            t = rng.choice(existing)
            op = rng.choice(["=", "+=", "-=", "*=", "=", "/="])
            if op == "*=":
                e = rng.choice([f"math.cos({e})", f"(0.9 + 0.1 * math.sin({e}))",
                                f"math.tanh({e})"])
            if op == "/=":
                e = f"(1.0 + ({e}) ** 2)"
            if op == "=" and self.chance(0.5):
                e = f"0.5 * {t} + {e}"
            return [f"{t} {op} {e}"]
        t = self.fresh("t")
        line = f"{t} = {e}"
        scope.floats.append(t)
        return [line]

    def element_write(self, scope: Scope, ctx: FunctionContext) -> list[str]:
        rng = self.rng
        arr = rng.choice(scope.arrays)
        target = self.element(scope, arr)
        e = self.fexpr(scope, ctx, rng.randint(1, 3))
        op = rng.choice(["=", "=", "+=", "-=", "*="])
        if op == "*=":
            e = rng.choice([f"math.cos({e})", f"(0.9 + 0.1 * math.sin({e}))", f"math.tanh({e})"])
        if op == "=" and self.chance(0.4):
            e = f"0.5 * {target} + {e}"
        return [f"{target} {op} {e}"]

    def if_stmt(self, scope: Scope, ctx: FunctionContext, depth: int) -> list[str]:
        rng = self.rng
        lines = [f"if {self.cond(scope, ctx)}:"]
        lines += indent(self.block(scope.child(), ctx, depth - 1, rng.randint(1, 3)))
        if self.chance(0.3):
            lines.append(f"elif {self.cond(scope, ctx)}:")
            lines += indent(self.block(scope.child(), ctx, depth - 1, rng.randint(1, 2)))
        if self.chance(0.6):
            lines.append("else:")
            lines += indent(self.block(scope.child(), ctx, depth - 1, rng.randint(1, 3)))
        return lines

    def ranges(self, scope: Scope, ctx: FunctionContext):
        """(range text, IntVar interval and arrays it indexes)."""
        rng = self.rng
        opts = []
        arrays1 = [a for a in scope.arrays]
        for arr in arrays1:
            L, le = arr.shape[0], arr.len_expr[0]
            hi = None if L is None else L - 1
            v = frozenset([arr.name])
            opts += [(f"range({le})", 0, hi, v), (f"range(1, {le})", 1, hi, v),
                     (f"range({le} - 1, -1, -1)", 0, hi, v), (f"range(0, {le}, 2)", 0, hi, v)]
        c = rng.randint(1, 4)
        opts.append((f"range({c})", 0, c - 1, frozenset()))
        c1 = rng.randint(0, 2)
        opts.append((f"range({c1}, {c1 + rng.randint(1, 3)})", c1, c1 + 2, frozenset()))
        for iv in scope.ints:
            if iv.lo is not None and iv.lo >= 0 and iv.hi is not None and iv.hi <= 5:
                opts.append((f"range({iv.name})", 0, max(iv.hi - 1, 0), frozenset()))
                opts.append((f"range({iv.name} + 1)", 0, iv.hi, frozenset()))
        return rng.choice(opts)

    def for_stmt(self, scope: Scope, ctx: FunctionContext, depth: int) -> list[str]:
        rng = self.rng
        body_scope = scope.child()
        ctx.loop_depth += 1
        r = rng.random()
        if r < 0.15 and scope.arrays:
            arr = rng.choice([a for a in scope.arrays if len(a.shape) == 1] or [None])
            if arr is not None:
                v = self.fresh("v")
                body_scope.floats.append(v)
                if self.chance(0.5):
                    head = f"for {v} in {arr.name}:"
                else:
                    j = self.fresh("j")
                    body_scope.ints.append(IntVar(j, 0, arr.shape[0] and arr.shape[0] - 1,
                                                  frozenset([arr.name])))
                    head = f"for {j}, {v} in enumerate({arr.name}):"
                lines = [head] + indent(self.block(body_scope, ctx, depth - 1,
                                                   rng.randint(1, 3)))
                ctx.loop_depth -= 1
                return lines
        text, lo, hi, valid = self.ranges(scope, ctx)
        if "reversed" in self.shapes:
            text = self.maybe_reversed(text)
        i = self.fresh("i")
        body_scope.ints.append(IntVar(i, lo, hi, valid))
        lines = [f"for {i} in {text}:"]
        lines += indent(self.block(body_scope, ctx, depth - 1, rng.randint(1, 4)))
        ctx.loop_depth -= 1
        return lines

    def while_stmt(self, scope: Scope, ctx: FunctionContext, depth: int) -> list[str]:
        rng = self.rng
        k = self.fresh("k")
        bound = rng.randint(1, 5)
        body_scope = scope.child()
        body_scope.ints.append(IntVar(k, 1, bound))
        ctx.loop_depth += 1
        if self.chance(0.3):
            body = self.block(body_scope, ctx, depth - 1, rng.randint(1, 3))
            # the bound is tested first, so `continue` in the body cannot skip it
            lines = [f"{k} = 0", "while True:", f"    {k} += 1",
                     f"    if {k} > {bound} or {self.cond(body_scope, ctx, 0)}:", "        break"]
            lines += indent(body)
        else:
            test = self.cond(scope, ctx, 0)
            body = self.block(body_scope, ctx, depth - 1, rng.randint(1, 3))
            lines = [f"{k} = 0", f"while {k} < {bound} and {test}:", f"    {k} += 1"]
            lines += indent(body)
        ctx.loop_depth -= 1
        scope.ints.append(IntVar(k, 0, bound))
        return lines

    def return_stmt(self, scope: Scope, ctx: FunctionContext) -> str:
        if ctx.returns == "none":
            return "return"
        if ctx.returns == "tuple":
            return (f"return {self.fexpr(scope, ctx, 2, False)}, "
                    f"{self.fexpr(scope, ctx, 2, False)}")
        return f"return {self.fexpr(scope, ctx, 2)}"

    def call_stmt(self, scope: Scope, ctx: FunctionContext) -> list[str]:
        rng = self.rng
        h = rng.choice(ctx.helpers)
        ctx.calls_left -= 1
        e = lambda: self.fexpr(scope, ctx, rng.randint(0, 2), calls=False)  # noqa: E731
        if h.kind == "scalar":
            if self.chance(0.3) and scope.floats:
                t = rng.choice(scope.floats)
                return [f"{t} += {h.name}({e()}, {e()})"]
            call = f"{h.name}({e()}, {e()})"
            return [f"{self.float_target(scope, 0.6)} = {call}"]
        if h.kind == "tuple":
            a1, a2 = e(), e()
            p, q = self.float_target(scope, 0.6), self.float_target(scope, 0.6)
            if p == q:
                q = self.fresh("t")
                scope.floats.append(q)
            return [f"{p}, {q} = {h.name}({a1}, {a2})"]
        arrays1 = [a for a in scope.arrays if len(a.shape) == 1]
        if not arrays1:
            return self.simple(scope, ctx)
        if h.kind == "array":
            call = f"{h.name}({rng.choice(arrays1).name}, {e()})"
        else:
            dst, src = rng.choice(arrays1), rng.choice(arrays1)
            call = f"{h.name}({dst.name}, {src.name}, {e()})"
        if self.chance(0.3):
            return [call]
        return [f"{self.float_target(scope, 0.6)} = {call}"]

    # -- functions -------------------------------------------------------------------------

    def helper(self, name: str, kind: str, helpers: list) -> str:
        rng = self.rng
        scope = Scope()
        returns = {"scalar": "float", "tuple": "tuple"}.get(kind, "float")
        ctx = FunctionContext(returns, list(helpers), False, budget=rng.randint(2, 7),
                              calls_left=1)
        if kind in ("scalar", "tuple"):
            params = ["u", "v"]
            scope.floats += ["u", "v"]
        elif kind == "array":
            params = ["arr", "t"]
            scope.floats.append("t")
            scope.arrays.append(Arr("arr", (None,), ("len(arr)",), (2,)))
        else:
            params = ["dst", "src", "t"]
            scope.floats.append("t")
            scope.arrays += [Arr("dst", (None,), ("len(dst)",), (2,)),
                             Arr("src", (None,), ("len(src)",), (2,))]
        lines = [f"def {name}({', '.join(params)}):"]
        body = []
        if kind in ("array", "array2"):
            # a loop over the array writing its elements, the typical helper
            target = scope.arrays[0]
            i = self.fresh("i")
            inner = scope.child()
            inner.ints.append(IntVar(i, 0, None, frozenset([target.name])))
            ctx.loop_depth += 1
            loop_body = [f"{target.name}[{i}] = {self.fexpr(inner, ctx, 2)}"]
            loop_body += self.block(inner, ctx, 1, rng.randint(0, 2))
            ctx.loop_depth -= 1
            body += [f"for {i} in range(len({target.name})):"] + indent(loop_body)
        body += self.block(scope, ctx, 2, rng.randint(1, 4))
        body.append(self.final_return(scope, ctx))
        return "\n".join(lines + indent(body))

    def final_return(self, scope: Scope, ctx: FunctionContext) -> str:
        if ctx.returns == "none":
            return ""
        return self.return_stmt(scope, ctx)

    def program(self) -> Program:
        if self.nests and sum_seed(self.seed):
            return self.sum_program()
        if self.nests and self.chance(NEST_FRACTION):
            return self.nest_program()
        rng = self.rng
        helpers = []
        texts = []
        for k in range(rng.choice([0, 1, 1, 2, 2, 3])):
            kind = rng.choice(["scalar", "scalar", "tuple", "array", "array2"])
            h = Helper(f"h{k}", kind)
            texts.append(self.helper(h.name, kind, helpers))
            helpers.append(h)
        nx, ny = rng.randint(2, 5), rng.randint(2, 5)
        args = [ArgKind("dup", "y", (ny,)), ArgKind("dup", "x", (nx,)), ArgKind("active", "a")]
        if self.chance(0.3):
            args.append(ArgKind("const_int", "n", value=rng.randint(1, 4)))
        if self.chance(0.15):  # scalar-only variant: f(x, a)
            args = [a for a in args if a.name != "y"]
        returns = "float" if (self.chance(0.6) or all(a.name != "y" for a in args)) else "none"
        scope = Scope(floats=["a"])
        arrays = {"x": nx, "y": ny}
        for arg in args:
            if arg.kind == "dup":
                scope.arrays.append(Arr(arg.name, (arrays[arg.name],), (f"len({arg.name})",),
                                        (arrays[arg.name],)))
            elif arg.kind == "const_int":
                scope.ints.append(IntVar("n", arg.value, arg.value))
        ctx = FunctionContext(returns, helpers, True, budget=rng.randint(4, 16),
                              calls_left=rng.randint(1, 3))
        body = []
        if self.chance(0.4):
            body.append("kc = 0")
            scope.ints.append(IntVar("kc", None, None))
        for _ in range(rng.choice([0, 0, 1, 1, 2])):
            z = self.fresh("z")
            src = rng.choice(["x", "y"]) if any(a.name == "y" for a in args) else "x"
            L = arrays[src]
            choice = rng.randint(0, 4)
            if choice == 0:
                body.append(f"{z} = np.zeros(len({src}))")
            elif choice == 1:
                body.append(f"{z} = {src}.copy()")
            elif choice == 2:
                body.append(f"{z} = np.zeros_like({src})")
            elif choice == 3:
                L = rng.randint(2, 4)
                body.append(f"{z} = np.ones({L})")
            if choice == 4:
                body.append(f"{z} = np.zeros((len({src}), 2))")
                scope.arrays.append(Arr(z, (L, 2), (f"len({src})", "2"), (L, 2)))
            else:
                scope.arrays.append(Arr(z, (L,), (f"len({z})",), (L,)))
        for _ in range(rng.randint(0, 2)):
            body += self.simple(scope, ctx)
        body += self.block(scope, ctx, 3, rng.randint(3, 8))
        final = self.final_return(scope, ctx)
        if final:
            body.append(final)
        params = ", ".join(a.name for a in args)
        texts.append("\n".join([f"def f({params}):"] + indent(body)))
        source = PRELUDE + "\n\n" + "\n\n\n".join(texts) + "\n"
        return Program(self.seed, source, "f", args, returns == "float")
