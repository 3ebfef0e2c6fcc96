"""Blocks of fuzz/grammar_lists.py that move a list's elements (`--lists --list-operations`):

* `v = ys.pop(k)` (a constant, negative, or computed index under a length test), `del ys[k]`,
  `ys.insert(k, v)` (indices past either end too: Python clamps them);
* slice writes of the same, a shorter and a longer length (`ys[1:3] = [p, q]`, `ys[-2:] =
  [p]`, `ys[:1] = [p, q, r]`, `del ys[1:3]`), slice reads as new lists (`zs = ys[1:]`,
  `sum(ys[:-1])`) and of the list itself (`ys = ys[1:]`);
* pops inside expressions (`s += ys.pop() * c` under a length test);
* `extend` by another list, by the array `x`, by a comprehension or a generator;
* lists of int constants: an index list read by a variable (`x[idx[i % 3] % len(x)]`),
  `[0] * len(x)` counts stepped by `counts[j] += 1` and read as weights.

Every index is kept in range by a length test or `%`, so the programs never raise. The blocks
draw from their own stream (`random.Random(f"list operations {seed}")`): the programs of
`--lists` alone do not change. `list_operation_blocks(rng, n, fresh, c)` returns the block
makers; each returns lines updating the float `s` (reads `x`, `a`).
"""

from __future__ import annotations


def list_operation_blocks(rng, n, fresh, c) -> list:
    """Block makers over `x` (n floats), `a` and `s`; `fresh(base)` names, `c()` a
    coefficient in (-0.9, 0.9)."""
    def filled(ys):
        """A list of 2 + len(x) floats, offset by 0.3719 per index (no ties)."""
        return [f"{ys} = [a * {c()}, s * {c()}]", "for i in range(len(x)):",
                f"    {ys}.append(x[i] * {rng.choice(['a', 'x[i]', c()])} + 0.3719 * i)"]

    def reads(ys):
        k = rng.randint(0, 2)
        return [f"s = s * {c()} + sum({ys}) * {c()} + len({ys}) * 0.01",
                f"if len({ys}) > {k}:", f"    s += {ys}[{k}] * {ys}[-1] * {c()}"]

    def popped_at():
        ys = fresh("ys")
        index = rng.choice(["0", "1", "-2", f"len({ys}) // 2", f"-1 - len({ys}) // 3"])
        lines = filled(ys) + [f"if len({ys}) > 2:", f"    v = {ys}.pop({index})",
                              f"    s += v * {c()}"]
        if rng.random() < 0.5:
            lines += [f"del {ys}[{rng.choice(['0', '-1', '1'])}]"]
        if rng.random() < 0.5:  # in a loop, at a computed index
            lines += ["for i in range(len(x) // 2):",
                      f"    s = s * {c()} + {ys}.pop((i * 2) % len({ys})) * {c()}"]
        return lines + reads(ys)

    def inserted():
        ys = fresh("ys")
        lines = [f"{ys} = [a * {c()}]", "for i in range(len(x)):",
                 f"    {ys}.insert({rng.choice(['0', 'i % 3 - 1', '-1', 'i // 2', '100'])}, "
                 f"x[i] * {c()} + 0.3719 * i)"]
        if rng.random() < 0.5:
            lines += [f"{ys}.insert({rng.choice(['-100', '2', '-2'])}, s * {c()})"]
        return lines + reads(ys)

    def slices_written():
        ys = fresh("ys")
        lines = filled(ys)
        for _ in range(rng.randint(1, 2)):
            lines += [rng.choice([
                f"{ys}[1:3] = [x[0] * {c()}, a * {c()}]",
                f"{ys}[-2:] = [s * {c()}]",
                f"{ys}[:1] = [x[1] * {c()}, a, {ys}[0] * {c()}]",
                f"del {ys}[1:3]",
                f"{ys}[len({ys}) // 2:] = [x[-1] * {c()}]",
            ])]
        return lines + reads(ys)

    def slices_read():
        ys, zs = fresh("ys"), fresh("zs")
        cut = rng.choice(["1:", ":-1", "1:-1", f"{rng.randint(0, 2)}:{n + 1}"])
        lines = filled(ys) + [f"{zs} = {ys}[{cut}]", f"{zs}[0] = {zs}[0] * {c()}"]
        lines += [rng.choice([f"s += sum({ys}[:-1]) * {c()}",
                              f"s += max({ys}[1:]) * {c()} + {ys}[0]",
                              f"{ys} = {ys}[1:]"])]
        return lines + reads(zs) + reads(ys)

    def popped_in_expressions():
        ys = fresh("ys")
        return filled(ys) + ["for i in range(len(x)):", f"    if len({ys}) > 2:",
                             f"        s += {ys}.pop() * {ys}.pop() * {c()} + {ys}[-1] * {c()}",
                             f"    {ys}.append(s * {c()} + x[i])"] + reads(ys)

    def extended():
        ys, zs = fresh("ys"), fresh("zs")
        lines = [f"{ys} = [a * {c()}]", f"{zs} = [s * {c()}, x[0]]"]
        for _ in range(rng.randint(1, 3)):
            lines += [rng.choice([
                f"{ys}.extend({zs})",
                f"{ys}.extend(x)",
                f"{ys} += [v * {c()} for v in x if v > {round(rng.uniform(-0.5, 0.5), 2)}]",
                f"{ys}.extend(x[i] * a + 0.3719 * i for i in range(len(x)))",
                f"{ys} = {ys} + {zs}",
            ])]
        return lines + reads(ys)

    def int_lists():
        idx, counts = fresh("idx"), fresh("counts")
        lines = [f"{idx} = [{', '.join(str(rng.randint(0, n - 1)) for _ in range(3))}]",
                 f"{counts} = [0] * len(x)", "for i in range(len(x)):",
                 f"    {counts}[{idx}[i % 3]] += 1",
                 f"    s = s * {c()} + x[{idx}[i % 3]] * x[i] * {counts}[i]"]
        if rng.random() < 0.5:
            lines += [f"    {idx}[i % 3] = {idx}[(i + 1) % 3]"]
        return lines + [f"s += sum({counts}) * {c()}"]

    return [popped_at, inserted, slices_written, slices_read, popped_in_expressions, extended,
            int_lists]
