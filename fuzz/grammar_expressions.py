"""Expression grammar of the fuzz programs: float expressions (arithmetic, math calls with
their domains respected, kinks, conditional expressions, helper calls), leaves, array elements
with indices in range by construction, and branch tests. A mixin of `generator.Generator`.
"""

from __future__ import annotations

from scopes import ARITHMETIC, CMP_OPS, Arr, FunctionContext, Scope


class ExpressionGrammar:
    def fexpr(self, scope: Scope, ctx: FunctionContext, depth: int, calls: bool = True) -> str:
        rng = self.rng
        if depth <= 0 or self.chance(0.25):
            return self.leaf(scope)
        d = depth - 1
        kinds = ["add", "add", "sub", "mul", "mul", "div", "neg", "unary", "unary", "unary",
                 "square", "kink", "ifexp", "mixint", "call"]
        kind = rng.choice(kinds)
        e = lambda: self.fexpr(scope, ctx, d, calls)  # noqa: E731
        if kind in ARITHMETIC:
            return ARITHMETIC[kind](e)
        if kind == "div":
            b = e()
            den = rng.choice([f"(1.5 + ({b}) * ({b}))", f"(2.0 + math.sin({b}))",
                              f"(1.0 + math.exp({self.bounded(b)}))", f"({b} * {b} + 0.5)"])
            return f"({e()}) / {den}"
        if kind == "square":
            return rng.choice([f"({e()}) ** 2", f"math.pow({e()}, 2.0)",
                               f"(0.5 + ({e()}) ** 2) ** 0.5"])
        if kind == "unary":
            a = e()
            return self.math_call(rng.choice([
                f"math.sin({a})", f"math.cos({a})", f"math.tanh({a})", f"math.atan({a})",
                f"math.exp({self.bounded(a)})", f"math.log(1.0 + ({a}) * ({a}))",
                f"math.sqrt(1.0 + ({a}) * ({a}))", f"math.log1p(({a}) ** 2)",
                f"math.erf({a})", f"np.sin({a})", f"np.tanh({a})", f"np.exp({self.bounded(a)})",
                f"math.hypot({a}, 1.0)", f"math.atan2({a}, 2.0 + math.cos({a}))",
                f"math.cosh(math.sin({a}))", f"math.expm1(math.tanh({a}))",
            ]), a)
        if kind == "kink":
            return rng.choice([f"abs({e()})", f"min({e()}, {e()})", f"max({e()}, {e()})",
                               f"math.fabs({e()})"])
        if kind == "ifexp":
            a, b = self.fexpr(scope, ctx, d, False), self.fexpr(scope, ctx, d, False)
            return f"({a} if {self.cond(scope, ctx, 1)} else {b})"
        if kind == "mixint" and scope.ints:
            iv = rng.choice(scope.ints).name
            return rng.choice([f"{iv} * ({e()})", f"float({iv}) * 0.5 + {e()}",
                               f"({e()}) / ({iv} + 1.0)"])
        if kind == "call" and calls and ctx.calls_left > 0:
            scalars = [h for h in ctx.helpers if h.kind == "scalar"]
            if scalars:
                ctx.calls_left -= 1
                h = rng.choice(scalars)
                return f"{h.name}({e()}, {e()})"
        return self.leaf(scope)

    def bounded(self, a: str) -> str:
        return self.rng.choice([f"math.sin({a})", f"math.tanh({a})", f"-({a}) * ({a})",
                                f"math.cos({a})"])

    def leaf(self, scope: Scope, allow_const: bool = True) -> str:
        rng = self.rng
        options = []
        if scope.floats:
            options += ["float"] * 4
        if scope.arrays:
            options += ["elem"] * 4
        if allow_const or not options:
            options.append("const")
        if scope.ints:
            options.append("int")
        kind = rng.choice(options)
        if kind == "float":
            return rng.choice(scope.floats)
        if kind == "elem":
            arr = rng.choice(scope.arrays)
            return self.element(scope, arr)
        if kind == "int":
            iv = rng.choice(scope.ints).name
            return rng.choice([f"float({iv})", f"0.1 * {iv}", f"({iv} + 0.5)"])
        return self.const()

    def element(self, scope: Scope, arr: Arr) -> str:
        idx = ", ".join(self.index(scope, arr, d) for d in range(len(arr.shape)))
        if len(arr.shape) == 2 and self.chance(0.3):
            i, j = idx.split(", ")
            return f"{arr.name}[{i}][{j}]"
        return f"{arr.name}[{idx}]"

    def index(self, scope: Scope, arr: Arr, dim: int) -> str:
        rng = self.rng
        size, minsize, lexpr = arr.shape[dim], arr.min_shape[dim], arr.len_expr[dim]
        opts = [str(rng.randint(-minsize, minsize - 1))]
        for iv in scope.ints:
            direct = (dim == 0 and arr.name in iv.valid_for) or (
                size is not None and iv.lo is not None and iv.hi is not None
                and -size <= iv.lo and iv.hi <= size - 1)
            if direct:
                opts += [iv.name] * 3
                if iv.lo is not None and iv.lo >= 0 or (dim == 0 and arr.name in iv.valid_for):
                    opts.append(f"{lexpr} - 1 - {iv.name}")
            opts.append(f"({iv.name} + {rng.randint(0, 3)}) % {lexpr}")
        return rng.choice(opts)

    def cond(self, scope: Scope, ctx: FunctionContext, depth: int = 2) -> str:
        rng = self.rng
        r = rng.random()
        if r < 0.2 and scope.ints:
            iv = rng.choice(scope.ints).name
            return rng.choice([f"{iv} % 2 == 0", f"{iv} > {rng.randint(0, 2)}",
                               f"{iv} < {rng.randint(1, 3)}", f"{iv} % 3 != 1"])
        if r < 0.3 and depth > 0:
            op = rng.choice(["and", "or"])
            return f"{self.cond(scope, ctx, 0)} {op} {self.cond(scope, ctx, 0)}"
        if r < 0.35 and depth > 0:
            return f"not {self.cond(scope, ctx, 0)}"
        lhs = self.fexpr(scope, ctx, rng.randint(0, 2), calls=False)
        if not any(ch.isalpha() for ch in lhs.replace("math.", "").replace("np.", "")):
            lhs = self.leaf(scope, allow_const=False)
        rhs = (self.fexpr(scope, ctx, 1, calls=False) if self.chance(0.4)
               else rng.choice(["0.0", "0.5", "-0.3", "1.0", "0.2", "-1.0"]))
        return f"{lhs} {rng.choice(CMP_OPS)} {rhs}"
