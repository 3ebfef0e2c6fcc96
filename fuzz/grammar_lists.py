"""Seeded random programs over lists of unknown length and parts of computed arrays:
`f(x, X, a)` with `x` a float array, `X` a float matrix and `a` a float. The blocks:

* filtered list comprehensions kept in a variable, over a range, over `x`, over `enumerate`
  and `zip` (`ys = [x[i] * a for i in range(len(x)) if x[i] > 0.2]`), with two `for`s, in a
  loop body;
* lists appended to under conditions in a loop, in both arms of an `if`, with `break`
  (an int test) or `continue`, sometimes two appends per iteration;
* lists appended to in nested loops (an inner range depending on the outer variable too),
  in a counted `while` loop (with a `for` inside), created and read within a loop body, read
  while they fill (`len(ys) < k`, a recurrence on `ys[-1]`), and bound by a literal in each
  arm of an `if` then appended to;
* lists written as Python writes them: a literal indexed by a variable (negative and computed
  indices too) and written by element (`cs[(i + 1) % 3] += ...`), `[0.0] * n` (or `n * [c]`)
  accumulated into by element, `extend([...])`, `+= [...]`, `ys = ys + [...]` and `pop()`
  (under a length test) between appends, an element written after the filling;
* the lists read as Python reads lists: `len`, `sum`, `max`/`min`, `ys[0]`, `ys[-1]`,
  `ys[k]` under `if len(ys) > k`, `for v in ys`, and a loop over `range(len(ys))` binding a
  local array (a loop that runs zero times when the list is empty);
* an element or slice of a computed array: `np.mean(X, axis=0)[j]`, `(X @ x)[i]`,
  `np.sum(X, axis=1)[i]` in a loop, `np.cumsum(x)[-1]`, `(a * x)[1:] @ x[1:]`, `X.T[j, i]`,
  `np.tanh(x)[k]`, also in an `if` test.

`generate(seed)` returns a `Program` like fuzz/generator.py's; everything is a pure function of
the seed. The float tests of the filters and appends are data-dependent: the instrumented run
(fuzz/instrument.py) keeps the inputs away from their thresholds, as for the plain grammar.
`max`/`min` compare values offset by multiples of 0.3719, which inputs rounded to 3 decimals
practically never tie; `len` tests compare ints. Values stay bounded (coefficients below 1 in
magnitude, lists no longer than twice `len(x)`).
"""

from __future__ import annotations

import random

from grammar_array_joins import array_join_blocks
from grammar_array_lists import array_list_blocks
from grammar_list_aliasing import list_aliasing_blocks
from grammar_list_calls import list_call_blocks
from grammar_list_operations import list_operation_blocks
from grammar_unbounded_lists import unbounded_list_blocks
from program import ArgKind, Program

HEADER = '''import math

import numpy as np

from srcad import Active, Duplicated  # noqa: F401  (fuzz/run.py's args() annotates)
'''


def _c(rng: random.Random) -> str:
    """A coefficient in (-0.9, 0.9), never 0."""
    return repr(round(rng.choice([-1, 1]) * rng.uniform(0.1, 0.9), 3))


def _threshold(rng: random.Random) -> str:
    return repr(round(rng.uniform(-0.8, 0.8), 2))


def _item(rng, index):
    """A smooth expression of x[index], offset by 0.3719 * index (no ties for max/min)."""
    x = f"x[{index}]"
    body = rng.choice([f"{x} * {x}", f"{x} * a", f"math.sin({x}) * s", f"{x} * {_c(rng)}",
                       f"math.exp({_c(rng)} * {x})"])
    return f"{body} + 0.3719 * {index}"


def fresh_name(counter, base):
    counter[0] += 1
    return f"{base}{counter[0]}"


def _blocks(rng, n, m, counter, unbounded=None, arrays=False):
    """Block makers: each returns lines updating the float `s` (reads x, X, a); with
    `unbounded` (a random stream), the blocks of fuzz/grammar_unbounded_lists.py too."""
    def fresh(base):
        return fresh_name(counter, base)

    def reads(ys):
        """Lines reading the list `ys` the ways lists are read."""
        out = [rng.choice([f"s = s * {_c(rng)} + sum({ys}) * {_c(rng)}",
                           f"s = s * {_c(rng)} + len({ys}) * {_c(rng)} + sum({ys})"])]
        k = rng.randint(0, 2)
        for _ in range(rng.randint(1, 3)):
            out += rng.choice([
                [f"if len({ys}) > {k}:",
                 f"    s += {ys}[{k}] * {_c(rng)} + {ys}[-1] * {ys}[0] * {_c(rng)}"],
                [f"if len({ys}) > 0:",
                 f"    s += {rng.choice(['max', 'min'])}({ys}) * {_c(rng)}"],
                [f"for v in {ys}:", f"    s = s * {_c(rng)} + v"],
                [f"for k in range(len({ys})):",
                 f"    w = x * {ys}[k] * {_c(rng)}",  # a local array bound in the loop
                 f"    s += w[k % len(x)] + np.sum(w) * {_c(rng)}"],
            ])
        return out

    def filtered_comprehension():
        ys = fresh("ys")
        draw = rng.random()
        if draw < 0.5:
            cond = rng.choice([f"x[i] > {_threshold(rng)}", f"i % 2 == {rng.randint(0, 1)}",
                               f"x[i] * a < {_threshold(rng)}"])
            line = f"{ys} = [{_item(rng, 'i')} for i in range(len(x)) if {cond}]"
        elif draw < 0.7:
            column = fresh("column")
            line = rng.choice([
                f"{column} = X[:, 0]\n{ys} = [u * w * {_c(rng)} + 0.3719 * k for k, (u, w) in "
                f"enumerate(zip(x, {column})) if u > {_threshold(rng)}]",
                f"{ys} = [v * k + v * a for k, v in enumerate(x, 1) if k % 2 == 1]"])
        elif draw < 0.85:
            line = (f"{ys} = [v * {rng.choice(['a', 's', _c(rng)])} + v * v for v in x "
                    f"if v > {_threshold(rng)}]")
        else:  # two fors: nested loops
            line = (f"{ys} = [x[i] * x[j] * {_c(rng)} + 0.3719 * i + 0.1237 * j "
                    f"for i in range(len(x)) for j in range({rng.choice(['i', 'len(x)'])}) "
                    f"if x[j] > {_threshold(rng)}]")
        return [line] + reads(ys)

    def conditional_appends():
        ys = fresh("ys")
        lines = [f"{ys} = []", "for i in range(len(x)):"]
        if rng.random() < 0.3:
            lines += [f"    if i == {rng.randint(1, n)}:", "        break"]
        lines += [f"    if x[i] > {_threshold(rng)}:",
                  f"        {ys}.append({_item(rng, 'i')})"]
        if rng.random() < 0.5:
            lines += ["    else:", f"        {ys}.append({_c(rng)} * x[i] * a)"]
        elif rng.random() < 0.3:
            lines += ["    elif i % 2 == 0:", "        continue"]
        if rng.random() < 0.3:
            lines += [f"    if x[i] * s < {_threshold(rng)}:",
                      f"        {ys}.append(x[i] + s * {_c(rng)})"]
        return lines + reads(ys)

    def indented(lines, depth=1):
        return ["    " * depth + line for line in lines]

    def nested_appends():
        ys = fresh("ys")
        inner = rng.choice(["range(len(x))", "range(i + 1, len(x))", f"range({m})",
                            "range(i)"])
        lines = [f"{ys} = []", "for i in range(len(x)):", f"    for j in {inner}:"]
        item = f"x[i] * x[j % len(x)] * {_c(rng)} + 0.3719 * i + 0.1237 * j"
        if rng.random() < 0.5:
            lines += [f"        if x[j % len(x)] > {_threshold(rng)}:",
                      f"            {ys}.append({item})"]
            if rng.random() < 0.3:
                lines += ["        elif j > i:", "            break"]
        else:
            lines += [f"        {ys}.append({item})"]
        if rng.random() < 0.3:
            lines += [f"    {ys}.append(x[i] * a + 0.0611 * i)"]
        if rng.random() < 0.3:  # a counted while in the outer loop, its counter set before it
            lines += [f"    j = {rng.choice(['i', '0', 'i // 2'])}", "    while j < len(x):",
                      f"        {ys}.append(x[j] * {_c(rng)} + 0.0917 * j + 0.0389 * i)",
                      "        j += 1"]
        return lines + reads(ys)

    def while_appends():
        ys, i = fresh("ys"), fresh("i")
        lines = [f"{ys} = []", f"{i} = {rng.randint(0, 1)}",
                 f"while {i} {rng.choice(['<', '<='])} len(x) - 1:"]
        if rng.random() < 0.3:
            lines += [f"    if x[{i}] > {_threshold(rng)}:", "        break"]
        lines += [f"    {ys}.append({_item(rng, i)})"]
        if rng.random() < 0.4:
            lines += [f"    for j in range({i}):",
                      f"        {ys}.append(x[j] * {_c(rng)} + 0.1237 * j + 0.0611 * {i})"]
        return lines + [f"    {i} += 1"] + reads(ys)

    def list_per_iteration():
        ys = fresh("ys")
        if rng.random() < 0.3:  # a comprehension in the loop body
            lines = ["for i in range(len(x)):",
                     f"    {ys} = [x[j] * x[i] * {_c(rng)} + 0.3719 * j for j in range(len(x)) "
                     f"if x[j] * {_c(rng)} > x[i] * {_c(rng)}]"]
        else:
            lines = ["for i in range(len(x)):", f"    {ys} = []", "    for j in range(len(x)):",
                     f"        if x[j] * {_c(rng)} > x[i] * {_c(rng)}:",
                     f"            {ys}.append(x[j] * x[i] * {_c(rng)} + 0.3719 * j)"]
        lines += [f"    if {rng.choice([ys, f'len({ys}) > 0'])}:"]
        return lines + indented(reads(ys), 2)

    def reads_while_filling():
        ys = fresh("ys")
        first = rng.choice(["[]", "[a * x[0]]", "[x[0], 0.5 * a]"])
        k = rng.randint(1, n + 1)
        grown = f"{ys}[-1] * {_c(rng)} + x[i]" if first != "[]" else _item(rng, "i")
        lines = [f"{ys} = {first}", "for i in range(len(x)):",
                 f"    if len({ys}) < {k}:", f"        {ys}.append({grown})"]
        if rng.random() < 0.4:
            lines += [f"    s += sum({ys}) * {_c(rng)}" if first != "[]" else
                      f"    s += len({ys}) * {_c(rng)}"]
        return lines + reads(ys)

    def literal_in_arms():
        ys = fresh("ys")
        lines = [f"if x[0] > {_threshold(rng)}:", f"    {ys} = [{_item(rng, 0)}, a]",
                 "else:", f"    {ys} = [{_item(rng, 1)}]"]
        if rng.random() < 0.5:
            lines += ["for i in range(len(x)):", f"    {ys}.append({_item(rng, 'i')})"]
        else:
            lines += [f"{ys}.append(x[1] * {_c(rng)})"]
        return lines + reads(ys)

    def literal_by_variable():
        cs = fresh("cs")
        k = rng.randint(1, 2)
        lines = [f"{cs} = [x[0] * a, s * {_c(rng)}, {_c(rng)}]", "for i in range(len(x)):",
                 f"    s = s * {_c(rng)} + {cs}[i % 3] * x[i] + {cs}[-1 - i % 2] * {_c(rng)}"]
        if rng.random() < 0.7:
            lines += [rng.choice([f"    {cs}[(i + {k}) % 3] += x[i] * {_c(rng)}",
                                  f"    {cs}[i % 3] = {cs}[i % 3] * {_c(rng)} + x[i] * a"])]
        return lines + [f"s += {cs}[len(x) % 3] * {_c(rng)}"] + reads(cs)

    def zeros_accumulated():
        acc = fresh("acc")
        made = rng.choice(["[0.0] * len(x)", f"len(x) * [{_c(rng)}]", f"[0.0] * {n + 1}"])
        lines = [f"{acc} = {made}", "for i in range(len(x)):",
                 f"    {acc}[i] += x[i] * x[i] * {_c(rng)}"]
        if rng.random() < 0.5:
            lines += [f"    {acc}[(i + 1) % len(x)] += x[i] * a * {_c(rng)}"]
        return lines + reads(acc)

    def extended():
        ys = fresh("ys")
        lines = [f"{ys} = [a * {_c(rng)}]", "for i in range(len(x)):"]
        lines += [rng.choice([f"    {ys}.extend([x[i] * {_c(rng)}, a * x[i] + 0.3719 * i])",
                              f"    {ys} += [x[i] * x[i] * {_c(rng)} + 0.1237 * i]",
                              f"    {ys} = {ys} + [x[i] * a + 0.0611 * i]"])]
        if rng.random() < 0.5:
            lines += [f"    {ys}[i % len({ys})] = {ys}[i % len({ys})] * {_c(rng)} + x[i] * 0.5"]
        if rng.random() < 0.4:
            lines += [f"    if len({ys}) > {rng.randint(1, 3)}:", f"        v = {ys}.pop()",
                      f"        s += v * {_c(rng)}"]
        if rng.random() < 0.5:
            lines += [f"{ys}[-1] += s * {_c(rng)}"]
        return lines + reads(ys)

    def computed_element():
        i, j = rng.randrange(n), rng.randrange(m)
        return [rng.choice([
            f"s += np.mean(X, axis=0)[{j}] * {_c(rng)}",
            f"s = s * {_c(rng)} + (X.T @ x)[{j}]",
            f"s += np.cumsum(x)[-1] * {_c(rng)} + np.cumsum(x * a)[{i}]",
            f"s += (a * x)[1:] @ x[1:] * {_c(rng)}",
            f"s += X.T[{j}, {i}] * s * {_c(rng)}",
            f"s += np.tanh(x * s)[{i}] * {_c(rng)}",
            f"s += (x @ X)[{j}] * (X @ np.ones({m}))[{i}] * {_c(rng)}",
        ])]

    def computed_in_loop():
        return ["for i in range(X.shape[0]):",
                f"    s += np.sum(X, axis=1)[i] * {_c(rng)} + (X * s)[i, 0] * {_c(rng)}"]

    def computed_in_test():
        return [f"if np.sum(X, axis=0)[{rng.randrange(m)}] > {_threshold(rng)}:",
                f"    s = s * {_c(rng)} + np.exp(x * {_c(rng)})[-1]",
                "else:",
                f"    s += (x * x)[0] * {_c(rng)}"]

    blocks = [filtered_comprehension, conditional_appends, computed_element, computed_in_loop,
              computed_in_test, nested_appends, while_appends, list_per_iteration,
              reads_while_filling, literal_in_arms, literal_by_variable, zeros_accumulated,
              extended]
    if unbounded is not None:  # twice: about half the blocks
        blocks += unbounded_list_blocks(unbounded, fresh, lambda: _c(unbounded),
                                        lambda: _threshold(unbounded), reads, arrays) * 2
    return blocks


def generate(seed: int, arrays: bool = False, operations: bool = False,
             calls: bool = False, unbounded: bool = False, aliasing: bool = False) -> Program:
    """`arrays`: lists of arrays among the blocks (fuzz/grammar_array_lists.py), then one or
    two joins of lists into arrays (fuzz/grammar_array_joins.py, from their own stream: the
    blocks before them are those a seed gave before); `operations`: pops at an index,
    inserts, slices, extensions by iterables and lists of ints (fuzz/grammar_list_operations.py,
    their own stream); `calls`: lists given other names and passed to helpers after them
    (fuzz/grammar_list_calls.py); `unbounded`: lists filled by loops with no bound known
    before them (fuzz/grammar_unbounded_lists.py, their own random stream); `aliasing`: list
    entries that are arrays written in place afterwards, rows of a matrix, views
    (fuzz/grammar_list_aliasing.py, their own random stream, a block of them after the
    seed's blocks); without them a seed gives the program it always gave."""
    rng = random.Random(f"lists {seed}")
    n, m = rng.randint(2, 5), rng.randint(2, 4)
    counter = [0]

    def fresh(base):
        return fresh_name(counter, base)

    blocks = _blocks(rng, n, m, counter,
                     random.Random(f"unbounded lists {seed}") if unbounded else None, arrays)
    if arrays:
        blocks += array_list_blocks(rng, n, m, fresh, lambda: _c(rng),
                                    lambda: _threshold(rng)) * 2
    if operations:
        own = random.Random(f"list operations {seed}")
        blocks += list_operation_blocks(own, n, fresh, lambda: _c(own)) * 2
    lines = ["def f(x, X, a):", "    s = a * x[0]"]
    for _ in range(rng.randint(2, 5)):
        for line in rng.choice(blocks)():
            lines.extend("    " + part for part in line.split("\n"))
    if aliasing:  # entries aliasing arrays, from a stream of their own
        own = random.Random(f"list aliasing {seed}")
        makers = list_aliasing_blocks(own, n, m, fresh, lambda: _c(own))
        for _ in range(own.randint(1, 2)):
            lines.extend("    " + line for line in own.choice(makers)())
    if arrays:  # joins of lists into arrays, from a stream of their own
        more = random.Random(f"array joins {seed}")
        joins = array_join_blocks(more, n, m, fresh, lambda: _c(more),
                                  lambda: _threshold(more))
        for _ in range(more.randint(1, 2)):
            lines.extend("    " + line for line in more.choice(joins)())
    helpers: list = []
    if calls:
        helpers, more = list_call_blocks(seed, _c, _threshold, _item)
        lines.extend("    " + part for line in more for part in line.split("\n"))
    lines.append("    return s")
    args = [ArgKind("dup", "x", (n,)), ArgKind("dup", "X", (n, m)), ArgKind("active", "a")]
    return Program(seed, HEADER + "\n\n" + "\n".join(helpers + lines) + "\n", "f", args,
                   True)
