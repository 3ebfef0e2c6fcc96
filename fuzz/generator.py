"""Seeded random plain-loop programs for fuzzing srcad.

`generate(seed)` returns a `Program`: the SOURCE TEXT of a module (helper functions and an entry
function `f`) plus the kinds of `f`'s arguments. Everything is a pure function of the seed
(`random.Random(seed)`), so a seed reproduces a program exactly.

The grammar covers what srcad promises to differentiate: straight-line float arithmetic, math
calls with their domains respected (`math.log(1.0 + t * t)`, `math.sqrt(1.0 + t * t)`,
`math.exp(math.sin(t))`, ...), `if/elif/else` on data, `for` over `range` (1-3 arguments), over an
array and over `enumerate`, `while` loops with a counter bound and a data-dependent test,
`break`/`continue`, early `return`, reads and in-place writes of array elements (the input array
too, the same element many times, swaps), local arrays (`np.zeros`, `np.zeros_like`, `np.ones`,
`x.copy()`, 2-D `np.zeros((n, 2))`), conditional expressions, kinks (`abs`, `min`, `max`,
`math.fabs`), integer counters and index arithmetic, and calls between generated module-level
helpers (scalar, tuple-returning `a, b = h(...)`, array-writing, two-array with possible
aliasing), with early returns inside them.

Every index is in range by construction (loop intervals are tracked; otherwise `% len(a)`), every
`while` loop has a counter bound, and every variable is assigned on all paths before it is read.
Branch tests never compare floats for equality; the inputs are chosen later (`fuzz/run.py`) so
that no test value sits within 1e-3 of its threshold.

`instrument(source)` rewrites a program so that a plain run records, for every float comparison
and every kink, the margin to the non-differentiable point and the branch taken.
"""

from __future__ import annotations

import ast
import random
import re
from dataclasses import dataclass, field

import numpy as np

# --- the program ------------------------------------------------------------------------------


@dataclass
class ArgKind:
    """One argument of `f`: 'dup' (float array, Duplicated), 'active' (float, Active) or
    'const_int' (int, passed bare)."""

    kind: str
    name: str
    shape: tuple = ()
    value: int = 0


@dataclass
class Program:
    seed: int
    source: str  # the whole module, without the argument builder
    entry: str
    args: list[ArgKind]
    returns_float: bool
    nest: bool = False  # made by Generator.nest_program (or sum_program)
    sums: bool = False  # made by Generator.sum_program


def make_inputs(program: Program, rng: np.random.Generator):
    """Values for `f`'s arguments (plain values, no annotations)."""
    values = []
    for arg in program.args:
        if arg.kind == "dup":
            values.append(np.round(rng.uniform(-1.5, 1.5, arg.shape), 3) + 0.0)
        elif arg.kind == "active":
            values.append(float(np.round(rng.uniform(-1.5, 1.5), 3)))
        else:
            values.append(arg.value)
    return values


def module_text(program: Program, values, header: str = "") -> str:
    """A self-contained module: the program plus `args()` building the annotated arguments."""
    lines = []
    if header:
        lines += ['"""' + header.rstrip() + '\n"""', ""]
    body = program.source
    lines.append(body.rstrip())
    lines += ["", "", "def args():", "    return ("]
    for arg, value in zip(program.args, values):
        if arg.kind == "dup":
            lines.append(f"        Duplicated(np.array({_array_repr(value)}), "
                         f"np.zeros({tuple(np.shape(value))!r})),")
        elif arg.kind == "active":
            lines.append(f"        Active({float(value)!r}),")
        else:
            lines.append(f"        {value!r},")
    lines.append("    )")
    return "\n".join(lines) + "\n"


def _array_repr(value) -> str:
    value = np.asarray(value)
    if value.ndim == 0:
        return repr(float(value))
    return "[" + ", ".join(_array_repr(v) for v in value) + "]"


PRELUDE = ("import math\n\nimport numpy as np\n\n"
           "from srcad import Active, Duplicated  # noqa: F401\n")

# --- scopes -----------------------------------------------------------------------------------


@dataclass
class Arr:
    name: str
    shape: tuple  # concrete sizes, or None per dimension when unknown (helper parameters)
    len_expr: tuple  # how the code names each size
    min_shape: tuple


@dataclass
class IntVar:
    name: str
    lo: int | None  # a concrete interval, when known
    hi: int | None
    valid_for: frozenset = frozenset()  # arrays it indexes safely along axis 0


@dataclass
class Scope:
    floats: list = field(default_factory=list)
    ints: list = field(default_factory=list)
    arrays: list = field(default_factory=list)

    def child(self) -> Scope:
        return Scope(list(self.floats), list(self.ints), list(self.arrays))


@dataclass
class Helper:
    name: str
    kind: str  # scalar | tuple | array | array2


@dataclass
class FunctionContext:
    returns: str  # float | none | tuple
    helpers: list
    is_main: bool
    loop_depth: int = 0
    budget: int = 30  # statements left in this function
    calls_left: int = 3


CMP_OPS = ["<", ">", "<=", ">="]


# With `nests`, this fraction of the programs are loop nests (Generator.nest_program).
NEST_FRACTION = 0.85

# With `nests`, this fraction of the seeds make sum-loop programs (Generator.sum_program). The
# choice has a random stream of its own, so every other seed keeps the program it had before
# sum_program existed.
SUM_FRACTION = 0.4


def _sum_seed(seed: int) -> bool:
    return random.Random(f"sum loops {seed}").random() < SUM_FRACTION


@dataclass
class _NestState:
    """What the loop nests of one program share."""

    acc: str  # the accumulator f returns
    nx: int  # len(x), len(c), len(y) (None: no y), the int arguments m and n (None: absent)
    nc: int
    ny: int | None
    mval: int | None
    nval: int | None
    half: str | None = None  # K = len(x) // 2, when assigned
    matrix: str | None = None  # a local (len(x), 2) array
    invariants: list = field(default_factory=list)  # floats assigned before the nests
    carried: list = field(default_factory=list)  # scalars to carry across inner iterations
    late: list = field(default_factory=list)  # set before the nest, for an inner assignment
    read_after: list = field(default_factory=list)  # ... and then read after the nest
    index_after: list = field(default_factory=list)  # inner indices read after the nest


# Arithmetic forms both expression grammars share: kind -> form of an operand generator `e`
# (each call of `e` draws a new operand, left to right).
_ARITHMETIC = {
    "add": lambda e: f"{e()} + {e()}",
    "sub": lambda e: f"{e()} - ({e()})",
    "mul": lambda e: f"({e()}) * ({e()})",
    "neg": lambda e: f"-({e()})",
}


class Generator:
    def __init__(self, seed: int, nests: bool = False):
        self.seed = seed
        self.rng = random.Random(seed)
        self.counter = 0
        self.nests = nests  # loop nests for srcad/transform/hoist.py (see nest_program)
        self.y_read = True  # sum_program: do its clean sum loops read y (else they write it)

    # -- helpers ---------------------------------------------------------------------------

    def fresh(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    def const(self) -> str:
        return repr(self.rng.choice([0.5, 0.25, 0.75, 1.5, 2.0, 0.3, 0.1, 1.2, 0.9, 3.0, 0.6]))

    # -- expressions -----------------------------------------------------------------------

    def fexpr(self, scope: Scope, ctx: FunctionContext, depth: int, calls: bool = True) -> str:
        rng = self.rng
        if depth <= 0 or self.chance(0.25):
            return self.leaf(scope)
        d = depth - 1
        kinds = ["add", "add", "sub", "mul", "mul", "div", "neg", "unary", "unary", "unary",
                 "square", "kink", "ifexp", "mixint", "call"]
        kind = rng.choice(kinds)
        e = lambda: self.fexpr(scope, ctx, d, calls)  # noqa: E731
        if kind in _ARITHMETIC:
            return _ARITHMETIC[kind](e)
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
            return rng.choice([
                f"math.sin({a})", f"math.cos({a})", f"math.tanh({a})", f"math.atan({a})",
                f"math.exp({self.bounded(a)})", f"math.log(1.0 + ({a}) * ({a}))",
                f"math.sqrt(1.0 + ({a}) * ({a}))", f"math.log1p(({a}) ** 2)",
                f"math.erf({a})", f"np.sin({a})", f"np.tanh({a})", f"np.exp({self.bounded(a)})",
                f"math.hypot({a}, 1.0)", f"math.atan2({a}, 2.0 + math.cos({a}))",
                f"math.cosh(math.sin({a}))", f"math.expm1(math.tanh({a}))",
            ])
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

    # -- statements ------------------------------------------------------------------------

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

    # -- loop nests (srcad/transform/hoist.py) ---------------------------------------------

    def _nest_start(self, helpers, nx, nc, ny, mval, nval, budget, calls, half):
        """What every nest program starts with: its arguments and scope, the accumulator,
        sometimes `K = len(x) // 2` (chance `half`) and up to two loop-invariant floats."""
        rng = self.rng
        args, scope = _nest_signature(nx, nc, ny, mval, nval)
        ctx = FunctionContext("float", helpers, True, budget=rng.randint(*budget),
                              calls_left=rng.randint(0, calls))
        st = _NestState(acc=self.fresh("acc"), nx=nx, nc=nc, ny=ny, mval=mval, nval=nval)
        body = [f"{st.acc} = 0.0"]
        scope.floats.append(st.acc)
        if self.chance(half):
            st.half = self.fresh("K")
            body.append(f"{st.half} = len(x) // 2")
            scope.ints.append(IntVar(st.half, nx // 2, nx // 2))
        for _ in range(rng.choice([0, 1, 1, 2])):
            b = self.fresh("b")
            body.append(f"{b} = {self.fexpr(scope, ctx, rng.randint(0, 2), calls=False)}")
            scope.floats.append(b)
            st.invariants.append(b)
        return args, scope, ctx, st, body

    def nest_program(self) -> Program:
        """`f(x, c, [y,] a[, m][, n])` whose body holds one or two top-level loop nests

            for i in range(<len(c), n, ...>):      # n: an int argument, possibly 0
                ...                                  # names assigned before the inner loop
                for k in range(<len(x), m, K, ...>): # m: an int argument, possibly 0
                    t = <value of k alone>           # x[k], x[m + k], exp/sqrt/log, k-only
                    acc += c[i] * t / (x[k] * x[k] + 1.0)   # divisors, ...
                ...

        The inner bodies mix values of k alone (what hoist.py moves out of the nest) with
        values of the outer index, and the variations the pass must refuse or handle: ifs and
        conditional expressions, element writes in the outer loop (to arrays the inner loop
        reads too), loop-carried scalars (read before their assignment in the inner body),
        sibling inner loops reusing names, inner values and indices read after the nest,
        break/continue in the outer loop, empty loops, invariants rebound, helper calls."""
        rng = self.rng
        helpers, texts = [], []
        for hk in range(rng.choice([0, 0, 1, 1, 2])):
            kind = rng.choice(["scalar", "scalar", "scalar", "tuple"])
            h = Helper(f"h{hk}", kind)
            texts.append(self.helper(h.name, kind, helpers))
            helpers.append(h)
        mval = rng.choice([0, 1, 2, 2, 3, 3, 4]) if self.chance(0.45) else None
        nval = rng.choice([0, 0, 1, 2, 3, 4]) if self.chance(0.4) else None
        nx = max(2 * mval, 2) + rng.randint(0, 1) if mval is not None else rng.randint(2, 6)
        nc = max(nval or 0, rng.randint(1, 4))
        ny = rng.randint(2, 4) if self.chance(0.35) else None
        args, scope, ctx, st, body = self._nest_start(helpers, nx, nc, ny, mval, nval,
                                                      budget=(4, 10), calls=3, half=0.4)
        if self.chance(0.35):  # a scalar carried across inner iterations
            s = self.fresh("s")
            body.append(f"{s} = {rng.choice(['0.0', '1.0', 'a', '0.5 * a'])}")
            st.carried.append(s)
        if self.chance(0.35):  # assigned in an inner loop, read after the nest
            t = self.fresh("t")
            body.append(f"{t} = 0.0")
            st.late.append(t)
        if self.chance(0.2):  # a local matrix the inner loop reads by rows
            st.matrix, i = self.fresh("z"), self.fresh("i")
            body += [f"{st.matrix} = np.zeros((len(x), 2))", f"for {i} in range(len(x)):",
                     f"    {st.matrix}[{i}, 0] = 0.5 * x[{i}] + a",
                     f"    {st.matrix}[{i}, 1] = math.cos(x[{i}])"]
            scope.arrays.append(Arr(st.matrix, (nx, 2), ("len(x)", "2"), (nx, 2)))
        if self.chance(0.3):
            body += self.simple(scope, ctx)
        for _ in range(rng.choice([1, 1, 1, 2])):
            body += self.nest(scope, ctx, st)
        if self.chance(0.3):
            body += self.block(scope, ctx, 1, rng.randint(1, 2))
        tail = [f"{rng.choice(['0.5', '0.3', '1.5'])} * {t}" for t in st.read_after]
        tail += [f"0.1 * {k}" for k in st.index_after]
        if st.carried and self.chance(0.3):  # read after the nest as well
            tail.append(f"0.2 * {st.carried[0]}")
        if self.chance(0.4):
            tail.append(self.fexpr(scope, ctx, 1, calls=False))
        body.append(f"return {' + '.join([st.acc] + tail)}")
        params = ", ".join(a.name for a in args)
        texts.append("\n".join([f"def f({params}):"] + indent(body)))
        source = PRELUDE + "\n\n" + "\n\n\n".join(texts) + "\n"
        return Program(self.seed, source, "f", args, True, nest=True)

    def nest(self, scope: Scope, ctx: FunctionContext, st: _NestState) -> list[str]:
        """One top-level loop nest (see nest_program)."""
        rng = self.rng
        oscope = scope.child()
        lines = []
        heads = ["len", "len", "const"] + (["n", "n", "n"] if st.nval is not None else []) \
            + (["from1"] if st.nc >= 2 else []) + ["iter"]
        head = rng.choice(heads)
        i = self.fresh("i")
        if head == "iter":
            v = self.fresh("v")
            oscope.floats.append(v)
            lines.append(f"for {v} in c:")
            nd = [v]
        elif head == "const":
            r = rng.randint(1, 3)
            oscope.ints.append(IntVar(i, 0, r - 1))
            lines.append(f"for {i} in range({r}):")
            nd = [f"c[{i} % len(c)]"]
        else:
            text, lo, hi = {"len": ("range(len(c))", 0, st.nc - 1),
                            "from1": ("range(1, len(c))", 1, st.nc - 1),
                            "n": ("range(n)", 0, max((st.nval or 0) - 1, 0))}[head]
            oscope.ints.append(IntVar(i, lo, hi, frozenset(["c"])))
            lines.append(f"for {i} in {text}:")
            nd = [f"c[{i}]"] + ([f"c[{i} - 1]"] if head == "from1" else [])
        nd.append(f"math.tanh({st.acc})")
        if self.chance(0.3):
            nd.append("a")
        accs = [st.acc]
        ctx.loop_depth += 1
        pre, post = [], []
        if self.chance(0.5):  # assigned in the outer body before the inner loop
            w = self.fresh("w")
            pre.append(f"{w} = {rng.choice(nd)} * {self.const()} + "
                       f"{self.fexpr(oscope, ctx, 1, calls=False)}")
            oscope.floats.append(w)
            nd.append(w)
        if self.chance(0.3):  # an accumulator of the outer loop
            u = self.fresh("u")
            pre.append(f"{u} = 0.0")
            oscope.floats.append(u)
            accs.append(u)
            post.append(f"{st.acc} += {u} * {rng.choice(nd)}")
        if st.invariants and self.chance(0.12):  # an invariant rebound in the outer loop
            b = rng.choice(st.invariants)
            (pre if self.chance(0.5) else post).append(f"{b} = 0.5 * {b} + 0.1 * {nd[0]}")
        if self.chance(0.2):
            pre += self.simple(oscope, ctx)
        if self.chance(0.07):
            pre += [f"if {self.cond(oscope, ctx, 0)}:", f"    {rng.choice(['break', 'continue'])}"]
        if self.chance(0.06):
            pre += self.element_write(oscope, ctx)
        index = self.fresh("k")
        if self.chance(0.2):  # the inner index read after the nest
            lines.insert(0, f"{index} = 0")
            st.index_after.append(index)
        inner, defs = self.inner_loop(oscope, ctx, st, index, nd, accs, [])
        body = pre + inner
        if self.chance(0.3):  # a sibling inner loop, often with the same names
            if self.chance(0.3):
                body += self.simple(oscope, ctx)
            same = index if self.chance(0.7) else self.fresh("k")
            reuse = list(defs) if self.chance(0.6) else []
            more, _ = self.inner_loop(oscope, ctx, st, same, nd, accs, reuse)
            body += more
        body += post
        if self.chance(0.18):  # the outer loop writes an array element the inner loop may read
            arr = rng.choice(["x", "c"] + (["y"] if st.ny else []))
            idx = f"{i} % len({arr})" if head != "iter" else "0"
            body.append(f"{arr}[{idx}] = 0.5 * {arr}[{idx}] + 0.1 * {rng.choice(nd)}")
        if self.chance(0.08):
            body += [f"if {st.acc} > {rng.choice(['0.5', '1.0', '2.0', '-0.5'])}:", "    break"]
        if self.chance(0.15):
            body += self.simple(oscope, ctx)
        ctx.loop_depth -= 1
        return lines + indent(body)

    def inner_loop(self, oscope: Scope, ctx: FunctionContext, st: _NestState, k: str,
                   nd: list, accs: list, reuse: list):
        """`for k in range(stop):` and its body; also the names assigned there once."""
        rng = self.rng
        stops = [("len(x)", st.nx, "x")]
        if st.mval is not None:
            stops += [("m", st.mval, None)] * 2
        if st.half is not None:
            stops += [(st.half, st.nx // 2, None)] * 2
        stops += [("len(c)", st.nc, "c")]
        if st.ny:
            stops.append(("len(y)", st.ny, "y"))
        r = rng.randint(1, min(3, st.nx))
        stops.append((str(r), r, None))
        stop, trips, over = rng.choice(stops)
        kscope = oscope.child()
        kscope.ints.append(IntVar(k, 0, max(trips - 1, 0), frozenset([over] if over else [])))
        if over in ("c", "y"):
            elems = [f"{over}[{k}]", f"{over}[len({over}) - 1 - {k}]"]
        else:
            elems = [f"x[{k}]", f"x[len(x) - 1 - {k}]"]
            if stop in ("m", st.half):
                elems.append(f"x[{stop} + {k}]")
            if st.matrix:
                elems += [f"{st.matrix}[{k}, 0]", f"{st.matrix}[{k}][1]"]
        leaves = elems * 2 + [f"0.1 * {k}", f"({k} + 0.5)"] + ["a"] + st.invariants
        defs, body = [], []
        carried = st.carried.pop() if st.carried and self.chance(0.6) else None
        count = rng.randint(2, 5)
        at = rng.randint(0, count - 1)
        if carried:  # read before it is assigned: its value crosses iterations
            body.append(f"{rng.choice(accs)} += {carried} * {rng.choice(nd)}")
        kinds = {"def": 3, "acc": 4, "if": 1, "ifexp": 1, "write": 0.4 if st.ny else 0,
                 "call": 0.8 if ctx.calls_left > 0 and any(
                     h.kind == "scalar" for h in ctx.helpers) else 0,
                 "filler": 0.6}
        for j in range(count):
            if carried and j == at:
                body.append(f"{carried} = {self.kexpr(leaves, rng.randint(0, 2))}")
                defs.append(carried)
                leaves = leaves + [carried] * 2
                if self.chance(0.7):
                    body.append(f"{rng.choice(accs)} += {rng.choice(nd)} * "
                                f"{self.kunary(carried)}")
                continue
            kind = rng.choices(list(kinds), list(kinds.values()))[0]
            target = rng.choice(accs)
            if kind == "def":
                if reuse and self.chance(0.7):
                    name = reuse.pop(0)
                elif st.late and self.chance(0.6):
                    name = st.late.pop()
                    st.read_after.append(name)
                else:
                    name = self.fresh("t")
                body.append(f"{name} = {self.kexpr(leaves, rng.randint(0, 2))}")
                defs.append(name)
                leaves = leaves + [name] * 2
                if name not in kscope.floats:
                    kscope.floats.append(name)
            elif kind == "acc":
                body.append(self.kaccum(target, leaves, nd))
            elif kind == "if":
                body.append(f"if {self.kcond(leaves, nd, k)}:")
                body += indent([self.kaccum(target, leaves, nd)])
                if self.chance(0.5):
                    body += ["else:"] + indent([self.kaccum(rng.choice(accs), leaves, nd)])
            elif kind == "ifexp":
                a, b = self.kexpr(leaves, 1), self.kexpr(leaves, 1)
                body.append(f"{target} += {rng.choice(nd)} * ({a} if "
                            f"{self.kcond(leaves, nd, k)} else {b})")
            elif kind == "write":
                body.append(f"y[{k} % len(y)] += 0.1 * {rng.choice(nd)} * "
                            f"{self.kexpr(leaves, 1)}")
            elif kind == "call":
                ctx.calls_left -= 1
                h = rng.choice([h for h in ctx.helpers if h.kind == "scalar"])
                if self.chance(0.5):
                    name = self.fresh("t")
                    body.append(f"{name} = {h.name}({self.kexpr(leaves, 1)}, "
                                f"{self.kexpr(leaves, 0)})")
                    leaves = leaves + [name]
                    kscope.floats.append(name)
                else:
                    body.append(f"{target} += {h.name}({self.kexpr(leaves, 1)}, "
                                f"{rng.choice(nd)})")
            else:
                body += self.simple(kscope, ctx)
        return [f"for {k} in range({stop}):"] + indent(body), defs

    def kexpr(self, leaves: list, depth: int) -> str:
        """A float expression of the given leaves (values of the inner index alone)."""
        rng = self.rng
        if depth <= 0 or self.chance(0.3):
            return rng.choice(leaves)
        e = lambda: self.kexpr(leaves, depth - 1)  # noqa: E731
        kind = rng.choice(["add", "sub", "mul", "div", "div", "unary", "unary", "neg",
                           "square"])
        if kind in _ARITHMETIC:
            return _ARITHMETIC[kind](e)
        if kind == "div":
            return f"({e()}) / {self.kpos(e())}"
        if kind == "square":
            return f"math.tanh({e()}) ** 2"
        return self.kunary(e())

    def kpos(self, a: str) -> str:
        """A positive divisor (or argument of log and sqrt) made of `a`."""
        return self.rng.choice([f"(({a}) * ({a}) + 1.0)", f"(1.5 + ({a}) ** 2)",
                                f"(2.0 + math.sin({a}))", f"math.exp({self.bounded(a)})",
                                f"(1.0 + math.exp({self.bounded(a)}))", f"(({a}) ** 2 + 0.5)"])

    def kunary(self, a: str) -> str:
        rng = self.rng
        return rng.choice([f"math.exp({self.bounded(a)})", f"math.sqrt({self.kpos(a)})",
                           f"math.log({self.kpos(a)})", f"math.sin({a})", f"math.cos({a})",
                           f"math.tanh({a})", f"math.atan({a})", f"np.exp({self.bounded(a)})",
                           f"1.0 / {self.kpos(a)}", f"math.sqrt(2.0 * math.pi * {self.kpos(a)})"])

    def kaccum(self, target: str, leaves: list, nd: list) -> str:
        """An update of an accumulator mixing values of k alone and of the outer index."""
        rng = self.rng
        ke, n = self.kexpr(leaves, rng.randint(0, 2)), rng.choice(nd)
        return rng.choice([
            f"{target} += {n} * {ke}",
            f"{target} += {n} / {self.kpos(ke)}",
            f"{target} += {ke} / {self.kpos(self.kexpr(leaves, 1))}",
            f"{target} -= {n} * {self.kunary(ke)}",
            f"{target} = 0.5 * {target} + {n} * {ke}",
            f"{target} += {n} * {rng.choice(nd)} * {self.kunary(ke)} / "
            f"{self.kpos(self.kexpr(leaves, 1))}",
            f"{target} += {self.kunary(f'{n} - {ke}')}",
            f"{target} += {n} * math.exp(-({n} - {ke}) ** 2 / {self.kpos(rng.choice(leaves))})",
        ])

    def kcond(self, leaves: list, nd: list, k: str) -> str:
        rng = self.rng
        r = rng.random()
        if r < 0.4:
            return f"{self.kexpr(leaves, 1)} > {rng.choice(['0.0', '0.5', '-0.3'])}"
        if r < 0.7:
            return f"{rng.choice(nd)} {rng.choice(CMP_OPS)} {self.kexpr(leaves, 0)}"
        return rng.choice([f"{k} % 2 == 0", f"{k} > 0", f"{k} < 2"])

    # -- sum loops (srcad/transform/reverse_flow.py: forward-order reverse loops, split loops) --

    def sum_program(self) -> Program:
        """`f(x, c, [y,] a[, m][, n])` around one or two straight-line loops

            for k in range(<len(x), m, i, len(x) - i, 2 * i + 1, cnt * 3 + 2, ...>):
                e = math.exp(<a value of k>)         # also -30 v**2, 4 tanh(v) - 690, ...
                t = <math calls of k's values>
                q += w * e / sd                      # float sums (`+=`, `-=`)
                acc -= c[i] * math.exp(...)
                z[k] = e * t                         # element writes

        at top level or inside an outer loop (`q = 0.0` before, `acc += math.log(0.01 + q)`
        after), with array lengths and bounds both below and at/above 8 (the trip count from
        which srcad's numba backend runs such a loop split in two, exp vectorized; decided at run
        time: `range(len(x) - i)` takes both sides in one call). Some loops carry a value from one
        iteration to the next (a scalar read before it is set, a sum read by another statement,
        a running product, an element written for a later iteration) and must keep their order
        and not be split. Ordinary loop nests (`nest`) sometimes join them."""
        rng = self.rng
        helpers, texts = [], []
        if self.chance(0.25):
            helpers.append(Helper("h0", "scalar"))
            texts.append(self.helper("h0", "scalar", []))
        long = self.chance(0.6)
        nx = rng.randint(8, 14) if long else rng.randint(2, 7)
        mval = rng.choice([0, 2, 5, 7, 8, 9, 11]) if self.chance(0.4) else None
        if mval is not None:
            nx = max(nx, mval)
        nval = rng.choice([0, 1, 2, 3]) if self.chance(0.3) else None
        nc = max(nval or 0, rng.randint(1, 4) if self.chance(0.75) else rng.randint(8, 10))
        ny = rng.choice([2, 3, 5, 8, 10]) if self.chance(0.45) else None
        self.y_read = self.chance(0.5)  # clean sum loops read y, or else write it
        args, scope, ctx, st, body = self._nest_start(helpers, nx, nc, ny, mval, nval,
                                                      budget=(3, 8), calls=2, half=0.3)
        count = None
        if self.chance(0.2):  # a trip count from the data: how many c[j] pass a test
            count, j = self.fresh("cnt"), self.fresh("j")
            body += [f"{count} = 0", f"for {j} in range(len(c)):",
                     f"    if c[{j}] > {rng.choice(['0.0', '-0.5', '0.3'])}:",
                     f"        {count} += 1"]
        local = None
        if self.chance(0.35):  # a local array the sum loops write
            local = self.fresh("z")
            body.append(f"{local} = np.zeros(len(x))")
            scope.arrays.append(Arr(local, (nx,), (f"len({local})",), (nx,)))
        if self.chance(0.2):  # for an ordinary nest
            s = self.fresh("s")
            body.append(f"{s} = {rng.choice(['0.0', 'a'])}")
            st.carried.append(s)
        tail = []
        for _ in range(rng.choice([1, 1, 2, 2, 3])):
            r = rng.random()
            if r < 0.12:
                mval = st.mval  # nest reads x[m + k]: only when 2 m <= len(x)
                st.mval = mval if mval is None or 2 * mval <= nx else None
                body += self.nest(scope, ctx, st)
                st.mval = mval
            elif r < 0.5:
                before, loop, after, reads = self.sum_loop(scope, ctx, st, None, ["a"] +
                                                           st.invariants, local, count, True)
                body += before + loop + after
                tail += reads
            else:
                body += self.sum_nest(scope, ctx, st, local, count)
        if self.chance(0.15):
            body += self.block(scope, ctx, 1, rng.randint(1, 2))
        tail += [f"{rng.choice(['0.5', '0.3', '1.5'])} * {t}" for t in st.read_after]
        tail += [f"0.1 * {k}" for k in st.index_after]
        if local and self.chance(0.6):
            tail.append(f"0.5 * {local}[{rng.randint(0, nx - 1)}]")
        body.append(f"return {' + '.join([st.acc] + tail)}")
        params = ", ".join(a.name for a in args)
        texts.append("\n".join([f"def f({params}):"] + indent(body)))
        source = PRELUDE + "\n\n" + "\n\n\n".join(texts) + "\n"
        return Program(self.seed, source, "f", args, True, nest=True, sums=True)

    def sum_nest(self, scope: Scope, ctx: FunctionContext, st: _NestState, local, count):
        """An outer loop around one or two sum loops (`sum_loop`)."""
        rng = self.rng
        oscope = scope.child()
        heads = ["len", "len", "const", "iter"] + (["n", "n"] if st.nval is not None else [])
        head = rng.choice(heads)
        outer = None
        if head == "iter":
            v = self.fresh("v")
            oscope.floats.append(v)
            lines, nd = [f"for {v} in c:"], [v]
        else:
            i = self.fresh("i")
            text, lo, hi = {"len": ("range(len(c))", 0, st.nc - 1),
                            "const": (f"range({rng.randint(1, 3)})", 0, None),
                            "n": ("range(n)", 0, max((st.nval or 0) - 1, 0))}[head]
            if head == "const":
                hi = int(text[6:-1]) - 1
            outer = IntVar(i, lo, hi, frozenset(["c"]) if head == "len" else frozenset())
            oscope.ints.append(outer)
            lines = [f"for {i} in {text}:"]
            nd = [f"c[{i}]" if head == "len" else f"c[{i} % len(c)]"]
        if self.chance(0.3):
            nd.append("a")
        if self.chance(0.12):  # the sums' own total read in the inner body: not a sum there
            nd.append(f"math.tanh({st.acc})")
        pre, post = [], []
        if self.chance(0.5):
            w = self.fresh("w")
            pre.append(f"{w} = {rng.choice(nd)} * {self.const()} + "
                       f"{self.fexpr(oscope, ctx, 1, calls=False)}")
            oscope.floats.append(w)
            nd.append(w)
        ctx.loop_depth += 1
        before, loop, after, reads = self.sum_loop(oscope, ctx, st, outer, nd, local, count)
        # sums set before the nest accumulate over the outer iterations, the others restart
        hoist = [] if self.chance(0.6) else before
        body = pre + [s for s in before if s not in hoist] + loop + after
        if self.chance(0.2):  # a sibling sum loop
            before2, loop2, after2, reads2 = self.sum_loop(oscope, ctx, st, outer, nd, local,
                                                           count)
            body += before2 + loop2 + after2
            if reads2:
                body.append(f"{st.acc} += {' + '.join(reads2)}")
        if reads:
            post.append(f"{st.acc} += {' + '.join(reads)}")
        if self.chance(0.15):
            post += self.simple(oscope, ctx)
        if self.chance(0.06):
            post += [f"if {st.acc} > {rng.choice(['1.0', '2.0'])}:", "    break"]
        ctx.loop_depth -= 1
        return hoist + lines + indent(body + post)

    def sum_loop(self, scope: Scope, ctx: FunctionContext, st: _NestState, outer, nd: list,
                 local, count, top: bool = False):
        """(statements before, the loop, statements after, terms for the return value): a
        `for` loop whose straight-line body computes exp(...) of its index's values and adds
        into float sums. Most loops are clean (each sum added into once, arrays either read or
        written, no value carried), the shape srcad splits; the others carry a value across
        iterations, add twice into a sum, write an array they read or keep a value for after
        the loop."""
        rng = self.rng
        nx, k = st.nx, self.fresh("k")
        opts = [("range(len(x))", 0, nx - 1, True)] * 3 + [
            ("range(1, len(x))", 1, nx - 1, True),
            ("range(len(x) - 1, -1, -1)", 0, nx - 1, True),
            ("range(0, len(x), 2)", 0, nx - 1, True)]
        if st.mval is not None:
            opts += [("range(m)", 0, max(st.mval - 1, 0), True)] * 2
            opts.append(("range(m, len(x))", st.mval, nx - 1, True))
        if st.half is not None:
            opts.append((f"range({st.half})", 0, max(nx // 2 - 1, 0), True))
        if st.ny is not None:
            opts.append(("range(len(y))", 0, st.ny - 1, False))
        if st.nc >= 8:
            opts.append(("range(len(c))", 0, st.nc - 1, False))
        if outer is not None and outer.hi is not None and outer.hi <= nx - 1:
            i = outer.name  # bounds that move with the outer index (both sides of 8 in one call)
            opts += [(f"range({i}, len(x))", outer.lo, nx - 1, True),
                     (f"range(len(x) - {i})", 0, nx - 1 - outer.lo, True)] * 2
        if outer is not None and outer.hi is not None:
            r = rng.randint(1, 4)
            opts.append((f"range(2 * {outer.name} + {r})", 0, 2 * outer.hi + r - 1, False))
        if count is not None:
            opts += [(f"range({count} * 3 + 2)", 0, 3 * st.nc + 1, False)] * 2
        text, lo, hi, direct = rng.choice(opts)
        clean = self.chance(0.6)
        kscope = scope.child()
        kscope.ints.append(IntVar(k, lo, hi, frozenset(["x"] + ([local] if local else []))
                                  if direct else frozenset()))

        def at(arr, shift=0):
            if direct and arr in ("x", local) and shift == 0:
                return f"{arr}[{rng.choice([k, k, f'len({arr}) - 1 - {k}'])}]"
            return f"{arr}[({k} + {shift}) % len({arr})]" if shift else f"{arr}[{k} % len({arr})]"

        def kdep(v):
            """`v`, made to depend on the loop index when it does not."""
            return v if re.search(rf"\b{k}\b", v) or any(
                re.search(rf"\b{d}\b", v) for d in defs) else f"{v} + {at('x')}"

        safe = [at("x"), at("x"), at("c"), "a", f"0.1 * {k}"]  # small values: exp(v) is finite
        leaves = [at("x"), at("x"), at("x", 1), at("c"), f"0.1 * {k}", f"({k} + 0.5)", "a"] \
            + list(nd) + st.invariants
        if st.ny and (self.y_read or not clean):  # else srcad could not read them back
            leaves.append(at("y"))
        if local and not clean:
            leaves.append(at(local))
        before, after, reads = [], [], []
        sums = []  # [name, all terms positive]
        for _ in range(rng.choice([1, 1, 2, 2, 3])):
            if self.chance(0.3) and not any(s[0] == st.acc for s in sums):
                sums.append([st.acc, False])
            else:
                q = self.fresh("q")
                before.append(f"{q} = {rng.choice(['0.0', '0.0', '0.0', 'a', '0.5 * a'])}")
                sums.append([q, before[-1].endswith("0.0")])
        pos_defs, exps, defs = [], [], []
        body = []
        carried = None
        if not clean and self.chance(0.6):
            carried = rng.choice(["scalar", "sum", "product", "element", "self"])
        s = None
        if carried in ("scalar", "product"):
            s = self.fresh("s")
            before.append(f"{s} = {rng.choice(['0.0', '1.0', 'a', '0.5 * a'])}")
            if carried == "scalar":  # read before it is set: the previous iteration's value
                sq = rng.choice(sums)
                sq[1] = False
                body.append(f"{sq[0]} += {s} * {rng.choice(leaves)}")
            leaves = leaves + [s]
        base = list(leaves)

        def exp_call():
            v = kdep(self.kexpr(leaves, rng.randint(0, 2)))
            form = rng.choice(["bounded", "bounded", "gauss", "gauss", "steep", "plain",
                               "plain", "low", "high", "tiny"])
            # (np.exp raises on underflow under the fuzzer's np.errstate: no tiny results)
            fn = "np.exp" if form in ("bounded", "plain") and self.chance(0.2) else "math.exp"
            if form == "bounded":
                return f"{fn}({self.bounded(v)})"
            if form == "gauss":
                sd = rng.choice(pos_defs) if pos_defs and self.chance(0.5) else \
                    f"(0.5 + {rng.choice(safe)} ** 2)"
                return f"{fn}(-({v} - {rng.choice(nd)}) ** 2 / (2.0 * {sd} * {sd}))"
            if form == "steep":  # large negative arguments
                return f"{fn}(-30.0 * ({v}) * ({v}))"
            if form == "plain":
                return f"{fn}({kdep(rng.choice(safe))})" if self.chance(0.6) else \
                    f"{fn}({kdep(rng.choice(safe))} * {rng.choice(safe)})"
            if form == "low":
                return f"{fn}(25.0 * math.tanh({v}) - 25.0)"
            if form == "high":  # large positive arguments, the value scaled back
                return f"1e-13 * {fn}(30.0 + math.sin({v}))"
            return f"1e298 * {fn}(4.0 * math.tanh({v}) - 690.0)"  # near the smallest normal

        def term():
            """(a value to add, is it positive)."""
            r = rng.random()
            unused = [e for e in exps if not any(re.search(rf"\b{e}\b", line) for line in body
                                                 if not line.startswith(f"{e} = "))]
            if unused and self.chance(0.8):
                r = 0.0  # an exp computed earlier in the body, not read yet
            if exps and r < 0.45:
                e = rng.choice(unused or exps)
                return rng.choice([(e, True), (f"{e} * {self.kpos(rng.choice(leaves))}", True),
                                   (f"{e} / {self.kpos(self.kexpr(leaves, 1))}", True),
                                   (f"{rng.choice(nd)} * {e}", False),
                                   (f"{e} * {rng.choice(defs or leaves)}", False)])
            if r < 0.75:
                if pos_defs and self.chance(0.4):  # a density: w * exp(-(x - mu)^2 / 2 sd^2) / sd
                    sd = rng.choice(pos_defs)
                    return (f"{rng.choice(nd)} * math.exp(-({rng.choice(safe)} - "
                            f"{rng.choice(nd)}) ** 2 / (2.0 * {sd} * {sd})) / {sd}", False)
                return rng.choice([(exp_call(), True), (f"{rng.choice(nd)} * {exp_call()}", False)])
            if defs and r < 0.9:
                return rng.choice(defs), False
            return self.kexpr(leaves, rng.randint(0, 2)), False

        def add(sq):
            value, positive = term()
            op = "+=" if self.chance(0.75) else "-="
            if op == "-=" or not positive:
                sq[1] = False
            body.append(f"{sq[0]} {op} {value}")

        added = set()
        writes = ([local] if local else []) + (["y"] if st.ny and not self.y_read else [])
        if not clean:  # (writes to x make srcad tape every read of x in earlier loops)
            writes += (["x"] if self.chance(0.35) else []) + (["y"] if st.ny else [])
        helpers = helpers_of(ctx)
        for j in range(rng.randint(3, 7)):
            kind = rng.choices(["exp", "def", "pos", "sum", "write", "call", "int", "filler"],
                               [3, 2, 1, 4, 1.2 if writes else 0,
                                0.3 if ctx.calls_left > 0 and helpers else 0, 0.4,
                                0 if clean else 0.5])[0]
            if kind == "int":  # an int of the index (int slots of the record), read as index
                jv = self.fresh("j")
                arr = rng.choice(["x", "c"])
                body.append(f"{jv} = ({k} * {rng.randint(2, 7)} + {rng.randint(0, 3)}) "
                            f"% len({arr})")
                leaves = leaves + [f"{arr}[{jv}]"]
                continue
            if kind == "exp" or (j == 0 and not exps):
                e = self.fresh("e")
                body.append(f"{e} = {exp_call()}")
                exps.append(e)
                defs.append(e)
            elif kind == "def":
                t = self.fresh("t")
                body.append(f"{t} = {self.kexpr(leaves, rng.randint(1, 2))}")
                defs.append(t)
                leaves = leaves + [t]
            elif kind == "pos":
                t = self.fresh("sd")
                body.append(f"{t} = " + rng.choice([
                    f"0.5 + {rng.choice(safe)} ** 2", self.kpos(rng.choice(safe)),
                    f"math.sqrt({self.kpos(rng.choice(leaves))})"]))
                pos_defs.append(t)
                defs.append(t)
            elif kind == "sum":
                free = [sq for sq in sums if sq[0] not in added]
                if clean and not free:
                    continue
                sq = rng.choice(free or sums)
                added.add(sq[0])
                add(sq)
            elif kind == "write":
                arr = rng.choice(writes)
                value = rng.choice(defs) if defs else self.kexpr(leaves, 1)
                if arr == "x":
                    if direct:
                        body.append(f"x[{k}] = 0.5 * x[{k}] + 0.1 * math.tanh({value})")
                    continue
                if arr == local and direct:
                    op = rng.choice(["=", "=", "+="] if not clean else ["="])
                    body.append(f"{local}[{k}] {op} {value} * {rng.choice(leaves)}")
                else:
                    body.append(f"{at(arr)} = 0.5 * {at(arr)} + 0.1 * {value}"
                                if not clean else f"{at(arr)} = 0.1 * {value}")
            elif kind == "call":
                ctx.calls_left -= 1
                t = self.fresh("t")
                h = rng.choice(helpers)
                body.append(f"{t} = {h.name}({self.kexpr(leaves, 1)}, {rng.choice(leaves)})")
                defs.append(t)
            else:
                body += self.simple(kscope, ctx)
        for sq in sums:  # every sum is added into at least once
            if sq[0] not in added:
                add(sq)

        def earlier(p):
            """What a statement inserted at body[p] may read: no name set later in the body
            (on the first iteration it would be unbound)."""
            set_before = {m.group(1) for line in body[:p] if (m := re.match(r"(\w+) = ", line))}
            return base + [d for d in defs if d in set_before]

        if carried == "scalar":
            at_ = rng.randint(1, len(body))
            body.insert(at_, f"{s} = {self.kexpr(earlier(at_), 1)}")
        elif carried == "product":
            at_ = rng.randint(0, len(body))
            body.insert(at_, f"{s} = {s} * {rng.choice(['0.9', '0.5'])} + 0.1 * "
                             f"{self.kunary(rng.choice(earlier(at_)))}")
            reads.append(f"0.2 * {s}")
        elif carried == "sum":  # a sum read by another statement of the body
            sq = rng.choice(sums)
            sq[1] = False
            body.insert(rng.randint(0, len(body)),
                        f"{rng.choice([sq[0] for sq in sums])} += 0.1 * math.tanh({sq[0]})")
        elif carried == "self":  # a sum whose addend reads the sum itself
            sq = rng.choice(sums)
            sq[1] = False
            at_ = rng.randint(0, len(body))
            body.insert(at_, f"{sq[0]} {rng.choice(['+=', '-='])} 0.05 * {sq[0]} * "
                             f"{self.kunary(rng.choice(earlier(at_)))}")
        elif carried == "element":  # written for a later iteration, read before that
            arr = local or rng.choice(["x", "c"])
            first = rng.randint(0, len(body))
            sq = rng.choice(sums)
            sq[1] = False
            body.insert(first, f"{sq[0]} += 0.3 * {arr}[({k} + 1) % len({arr})]")
            second = rng.randint(first + 1, len(body))
            body.insert(second, f"{arr}[{k} % len({arr})] = 0.5 * {arr}[{k} % len({arr})] + "
                                f"0.1 * math.tanh({rng.choice(earlier(second))})")
        if defs and not clean and self.chance(0.4):  # the last value, read after the loop
            t = rng.choice(defs)
            before.append(f"{t} = 0.0")
            reads.append(f"0.5 * {t}")
        for name, positive in sums:
            if name == st.acc:
                continue
            use = rng.choice(["times", "log", "log", "neg", "return"] if positive else
                             ["times", "log1", "neg", "return"])
            if use == "return" and not top:
                use = "times"  # an outer loop's local: not in scope at the return
            if use == "return":
                st.read_after.append(name)
            elif use == "log":
                after.append(f"{st.acc} += {rng.choice(nd)} * math.log(0.01 + {name})")
            elif use == "log1":
                after.append(f"{st.acc} += math.log(1.0 + {name} * {name})")
            elif use == "neg":
                after.append(f"{st.acc} -= 0.5 * {name}")
            else:
                after.append(f"{st.acc} += {name} * {rng.choice(nd)}")
        return before, [f"for {k} in {text}:"] + indent(body), after, reads

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
        if self.nests and _sum_seed(self.seed):
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


def helpers_of(ctx: FunctionContext) -> list:
    return [h for h in ctx.helpers if h.kind == "scalar"]


def indent(lines: list[str]) -> list[str]:
    return ["    " + line if line else line for line in lines]


def _nest_signature(nx, nc, ny, mval, nval):
    """(arguments, scope) of a nest program: arrays x, c (and y), the Active float a, and the
    int constants m and n when given."""
    args = [ArgKind("dup", "x", (nx,)), ArgKind("dup", "c", (nc,))]
    if ny is not None:
        args.append(ArgKind("dup", "y", (ny,)))
    args.append(ArgKind("active", "a"))
    scope = Scope(floats=["a"])
    for arg in args:
        if arg.kind == "dup":
            scope.arrays.append(Arr(arg.name, arg.shape, (f"len({arg.name})",), arg.shape))
    if mval is not None:
        args.append(ArgKind("const_int", "m", value=mval))
        scope.ints.append(IntVar("m", mval, mval))
    if nval is not None:
        args.append(ArgKind("const_int", "n", value=nval))
        scope.ints.append(IntVar("n", nval, nval))
    return args, scope


def generate(seed: int, nests: bool = False) -> Program:
    """The program of `seed`; with `nests`, most programs are loop nests (`nest_program`)."""
    return Generator(seed, nests).program()


def rate_programs(argv, description, count):
    """(options, (seed, program) for each seed): the command line the rate scripts share
    (hoist_rate.py, split_rate.py): --count, --seed, --nests, --show."""
    import argparse

    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--count", type=int, default=count)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--nests", action="store_true")
    parser.add_argument("--show", type=int, default=0)
    opts = parser.parse_args(argv)
    seeds = range(opts.seed, opts.seed + opts.count)
    return opts, ((seed, generate(seed, nests=opts.nests)) for seed in seeds)


# --- instrumentation: margins to non-differentiable points ------------------------------------

INSTRUMENT_PRELUDE = '''
_MARGINS = []
_DIFFS = []
_TRACE = []


def _is_int(v):
    return isinstance(v, (int, bool)) and not isinstance(v, float)


def _cmp(a, b, op):
    r = {"<": a < b, ">": a > b, "<=": a <= b, ">=": a >= b, "==": a == b, "!=": a != b}[op]
    if not (_is_int(a) and _is_int(b)):
        _MARGINS.append(abs(a - b) / max(1.0, abs(a), abs(b)))
        _DIFFS.append(a - b)
        _TRACE.append(r)
    return r


def _k_abs(a):
    _MARGINS.append(abs(a) / max(1.0, abs(a)))
    _DIFFS.append(a)
    _TRACE.append(a >= 0)
    return abs(a)


def _k_min(a, b):
    _cmp(a, b, "<")
    return min(a, b)


def _k_max(a, b):
    _cmp(a, b, ">")
    return max(a, b)
'''

_OPS = {ast.Lt: "<", ast.Gt: ">", ast.LtE: "<=", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!="}


class _Instrument(ast.NodeTransformer):
    def visit_Compare(self, node):
        self.generic_visit(node)
        if len(node.ops) != 1 or type(node.ops[0]) not in _OPS:
            return node
        return ast.Call(ast.Name("_cmp", ast.Load()),
                        [node.left, node.comparators[0], ast.Constant(_OPS[type(node.ops[0])])],
                        [])

    def visit_Call(self, node):
        self.generic_visit(node)
        f = node.func
        name = None
        if isinstance(f, ast.Name) and f.id in ("abs", "min", "max"):
            name = f.id
        elif isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and \
                f.value.id in ("math", "np") and f.attr in ("fabs", "abs", "absolute"):
            name = "abs"
        if name is None or len(node.args) != (1 if name == "abs" else 2):
            return node
        node.func = ast.Name(f"_k_{name}", ast.Load())
        return node


def instrument(source: str) -> str:
    """The program with comparisons and kinks recording their margins (in `_MARGINS`) and the
    branch taken (in `_TRACE`); for plain runs only, never for srcad."""
    tree = ast.parse(source)
    tree = ast.fix_missing_locations(_Instrument().visit(tree))
    return INSTRUMENT_PRELUDE + "\n" + ast.unparse(tree) + "\n"
