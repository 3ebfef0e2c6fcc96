"""Lists given another name, passed to module-level helpers and returned from them
(`run.py --lists --shapes list-calls`; srcad/transform/normalize/list_calls.py): blocks added
to a `--lists` program after its own, drawn from their own stream (`random.Random(f"list
calls {seed}")`), so the rest of the program of a seed is the one it always was.

* a list grown under a condition, given another name (`zs = ys`), appended to through it,
  and read through both names;
* a helper that appends to the list it is given (`push(ys, x[i], a)`, under a condition in
  the helper too), called in a loop;
* helpers that read a list (a loop, `len`, `sum`, an element under a length test), given a
  name, a list literal, or by keyword, also inside a larger expression that reads the list;
* a helper returning a list literal (read by index, looped over) and one returning a list it
  grew by appends;
* copies (`list(ys)`, `ys[:]`, `ys.copy()`) appended to or written, the original read after;
* a nested `def` appending to a list (reading the enclosing function's `a` and `s`) and a
  lambda reading lists, a literal too;
* (from `random.Random(f"helper rows {seed}")`) a helper growing a list of arrays of its
  own, joined by `np.vstack` or `np.stack`.
"""

from __future__ import annotations

import random


def list_call_blocks(seed: int, c, threshold, item) -> tuple[list, list]:
    """(helper definitions, body lines updating `s`) for 1-3 blocks; `c()`, `threshold()` and
    `item(rng, index)` are grammar_lists.py's value makers (given this stream)."""
    rng = random.Random(f"list calls {seed}")
    helpers: list = []
    count = [0]

    def fresh(base):
        count[0] += 1
        return f"{base}_{count[0]}"

    def reader():
        name_ = fresh("read")
        helpers.extend([f"def {name_}(xs, scale=1.0):", "    t = 0.0", "    for v in xs:",
                        f"        t = t * {c(rng)} + v * scale",
                        f"    if len(xs) > {rng.randint(0, 2)}:",
                        f"        t += xs[-1] * xs[0] * {c(rng)}",
                        f"    return t + len(xs) * {c(rng)} + sum(xs) * {c(rng)}", ""])
        return name_

    def grown(ys):
        return [f"{ys} = []", "for i in range(len(x)):", f"    if x[i] > {threshold(rng)}:",
                f"        {ys}.append({item(rng, 'i')})"]

    def read(ys):
        name_ = reader()
        return rng.choice([f"s = s * {c(rng)} + {name_}({ys})",
                           f"s += {name_}(xs={ys}, scale=a) * {c(rng)}",
                           f"s += len({ys}) * {c(rng)} + {name_}({ys}) * {c(rng)}"])

    def aliased():
        ys, zs = fresh("ys"), fresh("zs")
        lines = grown(ys) + [f"{zs} = {ys}"]
        if rng.random() < 0.6:
            lines += [f"{zs}.append(a * {c(rng)})"]
        return lines + [read(zs), f"s += len({ys}) * {c(rng)} + sum({ys}) * {c(rng)}"]

    def pushed():
        ys, push = fresh("ys"), fresh("push")
        helpers.extend([f"def {push}(out, v, w):", f"    out.append(v * w * {c(rng)})"])
        if rng.random() < 0.5:
            helpers.extend([f"    if v > {threshold(rng)}:", f"        out.append(v * {c(rng)})"])
        helpers.append("")
        lines = [f"{ys} = [a * {c(rng)}]", "for i in range(len(x)):",
                 f"    {push}(out={ys}, v=x[i], w=a)" if rng.random() < 0.3
                 else f"    {push}({ys}, x[i], a)"]
        return lines + [read(ys)]

    def literal_argument():
        return [f"s += {reader()}([x[0] * a, x[-1] * {c(rng)}, s * {c(rng)}]) * {c(rng)}"]

    def returned_literal():
        feats, fs = fresh("feats"), fresh("fs")
        helpers.extend([f"def {feats}(x, a):",
                        f"    return [x[0] * a, x[-1] * x[0] * {c(rng)}, a * {c(rng)}]", ""])
        lines = [f"{fs} = {feats}(x, a)", f"s += {fs}[0] * {fs}[2] + {fs}[-1] * {c(rng)}"]
        if rng.random() < 0.5:
            lines += [f"for v in {feats}(x, s):", f"    s = s * {c(rng)} + v"]
        return lines

    def returned_grown():
        build, bs = fresh("build"), fresh("bs")
        helpers.extend([f"def {build}(x, a):", "    ys = []", "    for v in x:",
                        f"        if v > {threshold(rng)}:",
                        f"            ys.append(v * a + {c(rng)})", "    return ys", ""])
        return [f"{bs} = {build}(x, a)", read(bs)]

    def copied():
        ys, cs = fresh("ys"), fresh("cs")
        copy = rng.choice([f"list({ys})", f"{ys}[:]", f"{ys}.copy()"])
        # appended or written by element (both: refused, the copy's array is bound whole)
        lines = grown(ys) + [f"{cs} = {copy}", rng.choice([
            f"{cs}.append(a * {c(rng)})",
            f"if len({cs}) > 0:\n    {cs}[0] = {cs}[0] * {c(rng)} + a"])]
        return lines + [f"s += sum({cs}) * {c(rng)} + sum({ys}) * {c(rng)} + len({ys}) * "
                        f"{c(rng)}"]

    def local_helpers():
        ys, push, add = fresh("ys"), fresh("push_local"), fresh("add_local")
        return [f"def {push}(out, v):", f"    out.append(v * a + s * {c(rng)})",
                f"{add} = lambda zs: sum(zs) * {c(rng)} + len(zs)"] + grown(ys) + [
                "for i in range(len(x)):", f"    if x[i] < {threshold(rng)}:",
                f"        {push}({ys}, x[i])", f"s += {add}({ys}) + {add}([a, x[0]])"]

    makers = [aliased, pushed, literal_argument, returned_literal, returned_grown, copied,
              local_helpers]
    lines: list = []
    for _ in range(rng.randint(1, 3)):
        lines += rng.choice(makers)()
    # a helper growing a list of arrays of its own, from a stream of its own (the blocks
    # above stay what the seed gave before)
    own = random.Random(f"helper rows {seed}")
    if own.random() < 0.5:
        rows = fresh("rows")
        helpers.extend([f"def {rows}(x, a):", "    hs = []", "    h = x * a",
                        "    for i in range(len(x)):",
                        f"        h = np.tanh(h * {c(own)} + x[i])", "        hs.append(h)",
                        f"    return np.sum(np.{own.choice(['vstack', 'stack'])}(hs) * "
                        f"{c(own)}) + np.sum(hs[-1])", ""])
        lines += [f"s += {rows}(x, a) * {c(own)}"]
    return helpers, lines
