"""Loop-nest grammar (`generate(seed, nests=True)`): programs `f(x, c, [y,] a[, m][, n])` made
of one or two loop nests for the numba backend's hoisting (srcad/transform/normalize/hoist.py), with
inner bodies mixing values of the inner index alone with values of the outer one, and the
cases the pass must refuse or handle. A mixin of `generator.Generator`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from program import PRELUDE, ArgKind, Program
from scopes import ARITHMETIC, CMP_OPS, Arr, FunctionContext, Helper, IntVar, Scope, indent

# With `nests`, this fraction of the programs are loop nests (Generator.nest_program).
NEST_FRACTION = 0.85


@dataclass
class NestState:
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


def nest_signature(nx, nc, ny, mval, nval):
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


class NestGrammar:
    def _nest_start(self, helpers, nx, nc, ny, mval, nval, budget, calls, half):
        """What every nest program starts with: its arguments and scope, the accumulator,
        sometimes `K = len(x) // 2` (chance `half`) and up to two loop-invariant floats."""
        rng = self.rng
        args, scope = nest_signature(nx, nc, ny, mval, nval)
        ctx = FunctionContext("float", helpers, True, budget=rng.randint(*budget),
                              calls_left=rng.randint(0, calls))
        st = NestState(acc=self.fresh("acc"), nx=nx, nc=nc, ny=ny, mval=mval, nval=nval)
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

    def nest(self, scope: Scope, ctx: FunctionContext, st: NestState) -> list[str]:
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

    def inner_loop(self, oscope: Scope, ctx: FunctionContext, st: NestState, k: str,
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
        if kind in ARITHMETIC:
            return ARITHMETIC[kind](e)
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
