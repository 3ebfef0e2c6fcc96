"""Programs passing functions around (`run.py --functions`, `generate(seed, functions=True)`):
`f(x, p, a, c)` with `x`, `p` Duplicated float vectors and `a`, `c` floats. Three to five
blocks, each adding to a float `s`:

* a name bound to one of two lambdas by a conditional expression, then called;
* a lambda called in place in an arm of `A if test else B`, and a call of a module-level
  helper in an arm (run only when that arm is taken);
* a lambda, a nested `def` and a module-level function passed to helpers that call them
  (`apply`, `twice`, `both`), a nested def passed on through two helpers;
* a nested `def` inside a loop reading the loop variable, and a name defined by a lambda or
  a `def` in the arms of an `if` inside a loop;
* `p += e`, `p -= e`, `p *= e`, `p /= e` on the argument `p` (its caller's array written in
  place), also through an alias `q = p` or a view `p[1:]`.

* from seed 1000 on (`WRITES_FROM`), from a stream of its own (`functions writes {seed}`), so
  the seeds below keep their programs: a nested `def` writing an array of f's (`w[i] = v`,
  `w[i] += v`), called in a loop or twice.

The return value reads `s` and `p`. Every expression is smooth, tests compare against
constants (fuzz/run.py keeps the inputs away from them), so `check_grads` applies. A pure
function of the seed; other programs are unchanged.
"""

from __future__ import annotations

import random

from program import PRELUDE, ArgKind, Program

HELPERS = """

def apply(fn, v):
    return fn(v)


def twice(fn, v):
    return fn(fn(v))


def both(fn, gn, v):
    return fn(v) + 0.5 * gn(v)


def passed_on(fn, v):
    return twice(fn, v) * 0.5


def sq(t):
    return t * t


def soft(t):
    return math.log(1.0 + t * t)
"""


def _k(rng) -> str:
    return repr(round(rng.choice([-1, 1]) * rng.uniform(0.1, 0.9), 3))


def _body(rng, t: str) -> str:
    """A smooth expression of `t` (reads a and x too)."""
    return rng.choice([f"{t} * {_k(rng)}", f"{t} * {t} * {_k(rng)}", f"math.sin({t}) * a",
                       f"math.tanh({t} + a * {_k(rng)})", f"{t} * a + x[0] * {_k(rng)}"])


def _blocks(rng):
    def choice(n):
        return [f"g{n} = (lambda t: {_body(rng, 't')}) if {_test(rng)} else "
                f"(lambda t: {_body(rng, 't')})",
                f"s += g{n}(x[{rng.randrange(2)}]) + g{n}(a)"]

    def lambda_arm(n):
        return [f"s += x[1] * {_k(rng)} if {_test(rng)} else "
                f"(lambda t: {_body(rng, 't')})(x[0])"]

    def helper_arm(n):
        return [f"r{n} = sq(a) * {_k(rng)} if {_test(rng)} else "
                f"(soft(x[0]) if {_test(rng)} else twice(soft, c))", f"s += r{n}"]

    def passed_lambda(n):
        helper = rng.choice(["apply", "twice", "passed_on"])
        return [f"s += {helper}(lambda t: {_body(rng, 't')}, x[{rng.randrange(2)}])"]

    def passed_def(n):
        return [f"def h{n}(t):", f"    return {_body(rng, 't')} + sq(t) * c",
                f"s += {rng.choice(['apply', 'twice', 'passed_on'])}(h{n}, a)",
                f"s += both(h{n}, {rng.choice(['sq', 'soft'])}, x[1])"]

    def module_passed(n):
        return [f"s += both({rng.choice(['sq', 'soft'])}, {rng.choice(['sq', 'soft'])}, "
                f"c * {_k(rng)})", "s += apply(fn=soft, v=a)"]

    def def_in_loop(n):
        return ["for i in range(len(x)):", f"    def k{n}(t):",
                f"        return t * x[i] * {_k(rng)} + c", f"    s += k{n}(a)"]

    def chosen_in_loop(n):
        return ["for i in range(3):", "    if i % 2 == 0:",
                f"        q{n} = lambda t: {_body(rng, 't')}", "    else:",
                f"        def q{n}(t):", f"            return {_body(rng, 't')} + i",
                f"    s += q{n}(x[i % len(x)])"]

    def update(n):
        target, setup = rng.choice([("p", []), (f"al{n}", [f"al{n} = p"]),
                                    (f"vw{n}", [f"vw{n} = p[1:]"])])
        op = rng.choice(["+=", "-=", "*=", "/="])
        value = {"+=": f"a * {_k(rng)}", "-=": f"c * {_k(rng)}",
                 "*=": "1.0 + 0.1 * math.sin(a)", "/=": "1.5 + c * c"}[op]
        if op == "+=" and not target.startswith("vw") and rng.random() < 0.5:
            value = f"x * {_k(rng)}"  # an array, element by element
        return setup + [f"{target} {op} {value}"]

    return [choice, lambda_arm, helper_arm, passed_lambda, passed_def, module_passed,
            def_in_loop, chosen_in_loop, update]


def _test(rng) -> str:
    return rng.choice([f"a > {_k(rng)}", f"c < {_k(rng)}", f"x[0] > {_k(rng)}"])


WRITES_FROM = 1000


def _enclosing_write(seed: int, n: int) -> list:
    """A nested def writing f's array `w` (its closure variable), from its own stream."""
    rng = random.Random(f"functions writes {seed}")
    op = rng.choice(["=", "+="])
    start = "np.zeros({n})".format(n=n) if op == "=" else rng.choice(["np.sin(x)", "x * c"])
    lines = [f"w_enc = {start}", "", "def put_enc(i, v):", f"    w_enc[i] {op} v * x[i]", ""]
    value = rng.choice([f"x[(i + 1) % {n}] + a * {_k(rng)}", "np.tanh(p[i]) * c"])
    if rng.random() < 0.5:
        lines += [f"for i in range({n}):", f"    put_enc(i, {value})"]
    else:
        lines += [f"put_enc({rng.randrange(n)}, a * {_k(rng)})",
                  f"put_enc({rng.randrange(n)}, c * x[0])"]
    return lines + [f"s = s + np.sum(w_enc * w_enc) * {_k(rng)}"]


def generate(seed: int) -> Program:
    rng = random.Random(f"functions {seed}")
    n = rng.randint(3, 5)
    lines = ["def f(x, p, a, c):", "    s = 0.0"]
    kinds = _blocks(rng)
    for k in range(rng.randint(3, 5)):
        lines += ["    " + line for line in rng.choice(kinds)(k)]
    if seed >= WRITES_FROM:
        lines += ["    " + line for line in _enclosing_write(seed, n)]
    lines.append("    return s + np.sum(p * p) * 0.5")
    args = [ArgKind("dup", "x", (n,)), ArgKind("dup", "p", (n,)), ArgKind("active", "a"),
            ArgKind("active", "c")]
    return Program(seed, PRELUDE + HELPERS + "\n\n" + "\n".join(lines) + "\n", "f", args, True)
