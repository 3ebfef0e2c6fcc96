"""Sum-loop grammar (`generate(seed, nests=True)`, a fraction of the seeds chosen by a random
stream of their own): straight-line loops adding exp terms into float sums, for the numba
reverse mode's forward-order reverse loops and split loops
(srcad/transform/reverse/control_flow.py). A mixin of `generator.Generator`.
"""

from __future__ import annotations

import random
import re

from grammar_nests import NestState
from program import PRELUDE, Program
from scopes import Arr, FunctionContext, Helper, IntVar, Scope, helpers_of, indent

# With `nests`, this fraction of the seeds make sum-loop programs (Generator.sum_program). The
# choice has a random stream of its own, so every other seed keeps the program it had before
# sum_program existed.
SUM_FRACTION = 0.4
# Of the clean sum loops, this fraction keep only their sums, each adding one exp term.
PURE_FRACTION = 0.35


def sum_seed(seed: int) -> bool:
    return random.Random(f"sum loops {seed}").random() < SUM_FRACTION


class SumGrammar:
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

    def pure_sum_chance(self) -> bool:
        """Whether a clean sum loop keeps only its exp sums: a random stream of its own, so
        the seeds where it is not chosen keep the programs they had before it existed."""
        if getattr(self, "pure_sums_rng", None) is None:
            self.pure_sums_rng = random.Random(f"pure exp sums {self.seed}")
        return self.pure_sums_rng.random() < PURE_FRACTION

    def sum_nest(self, scope: Scope, ctx: FunctionContext, st: NestState, local, count):
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

    def sum_loop(self, scope: Scope, ctx: FunctionContext, st: NestState, outer, nd: list,
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
        if clean and carried is None and self.pure_sum_chance():
            # a body of nothing but exp sums (a log-sum-exp's denominator): the shape srcad's
            # numba primal computes with its vectorizable exp (transform/numba_exp_sums.py)
            leaves = list(base)
            defs.clear()
            pos_defs.clear()
            body = [f"{sq[0]} += {rng.choice(nd)} * {exp_call()}" if self.chance(0.3)
                    else f"{sq[0]} = {sq[0]} + {exp_call()}" for sq in sums]
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
