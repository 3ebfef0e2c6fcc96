"""Extra constructs the fuzzer can switch on (`run.py --shapes index-arrays,reversed,multi-tape`,
`generate(seed, shapes=...)`), shapes found in code written outside the project:

* `index-arrays`: an int index array filled, then rotated inside a loop, and used to index a
  float array (`x[idx[0]]`): the reverse sweep must index with what was read at the time;
* `reversed`: user loops `for i in reversed(range(...))`;
* `multi-tape`: several taping loops over the same range inside one outer loop;
* `counters`: an int counter restarted per outer iteration and stepped in the for loops after
  it, indexing a float array (gmm's packed triangle `l[lparamsidx]`, as `x[c % n]` or, outside
  loops, `p[c]` of a local copy: numba then indexes without wraparound where the counter only
  steps up from a start >= 0, srcad/transform/numba_indices.py): the reverse sweep undoes its
  steps instead of taping it (srcad/analysis/induction.py); sometimes also stepped under an
  `if` or next to a `break`, where it is taped;
* `runtime-names`: some variables named like what generated code calls (`unbroadcast`,
  `view_element`, `reserve_tape`, ...; srcad/runtime/runtime_names.py renames them), drawn from a
  random stream of their own, so the program is otherwise the one the seed gives without it.
* `row-views`: a loop reading the rows of a matrix (n, 2) through views: `for r in M`,
  `r = M[i]` or `M[i, :]`, `for r, q in zip(M, M2)`, a row's tail `r[1:]`, a row of one
  matrix or another chosen by a branch; M a matrix in scope or a local one filled from a
  vector first (numba vector mode binds a row's tangents to the same row of M's,
  srcad/transform/forward/views.py; batched reverse, srcad/operators/batched_lanes.py).
* `iteration-values`: a for loop whose body defines a float once, at its top level, and reads
  it in several statements and an inner loop (taped once per iteration,
  srcad/transform/reverse/iteration_values.py); by chance also read before its definition,
  redefined under an `if`, or the iteration left by `continue` (taped per read there).
* `chained-targets` (with `--views`, fuzz/grammar_views.py): writes into a view made in the
  target itself, `A[i][1:] = ...`, `A[i][:] += ...`, `A[:, j][1:] = ...`, inserted among the
  view blocks from a random stream of their own.

A mixin of `generator.Generator`. Without shapes it draws nothing, so every seed keeps the
program it had before.
"""

from __future__ import annotations

import random

from scopes import Arr, FunctionContext, IntVar, Scope, indent

# `counters`: the length of the copy indexed by a counter itself; the counter starts at most at
# 2 and takes at most 6 steps of at most 3, plus 1 under an `if`: |c| <= 26
PACKED_LENGTH = 48

SHAPES = ("index-arrays", "reversed", "multi-tape", "counters", "runtime-names", "row-views",
          "numpy-families",  # with `--arrays` (fuzz/grammar_numpy_families.py)
          "list-calls",  # list-calls: with --lists only (fuzz/grammar_list_calls.py)
          "chained-targets",  # chained-targets: with --views
          "widened",  # widened: array programs only, `--arrays` (fuzz/grammar_loop_shapes.py)
          "numpy-semantics",  # with `--arrays` (fuzz/grammar_numpy_semantics.py)
          "literal-arguments",  # --arrays only (fuzz/grammar_literal_arguments.py)
          "written-results",  # --arrays only (fuzz/grammar_written_results.py)
          "library",  # library: array programs only, `--arrays` (fuzz/grammar_library.py)
          "linalg",  # linalg: `--arrays` only (fuzz/grammar_linalg.py)
          "movement",  # movement: --arrays only (fuzz/grammar_movement.py)
          "second-order-reach",  # with --second-order (fuzz/grammar_second_order_reach.py)
          "loop-state",  # loop-state: --arrays only (fuzz/grammar_loop_state.py)
          "library-more",  # library-more: --arrays only (fuzz/grammar_library.py)
          "stats",  # stats: --arrays only (fuzz/grammar_stats.py)
          "second-order-contractions",  # with --second-order
          # (fuzz/grammar_second_order_contractions.py)
          "index-writes",  # index-writes: --arrays only (fuzz/grammar_index_writes.py)
          "library-forms",  # library-forms: --arrays only (fuzz/grammar_library_forms.py)
          "library-rules",  # library-rules: --arrays only (fuzz/grammar_library_rules.py)
          "mask-writes",  # mask-writes: --arrays only (fuzz/grammar_index_writes.py)
          "int-overflow",  # with numpy-semantics, no --arrays (grammar_numpy_semantics.py)
          "decompositions",  # with `linalg` (fuzz/grammar_linalg.py)
            "branch-floats",  # --arrays only (fuzz/grammar_branch_floats.py)
            "library-numba",  # library-numba: --arrays only (fuzz/grammar_library_rules.py)
            "iteration-values",
            "math-calls",  # math-calls: scalar programs (fuzz/grammar_math_calls.py)
            "argument-products")  # --arrays only (fuzz/grammar_argument_products.py)

# The chance that a statement (at a depth that allows a loop) is one of the switched-on
# statement shapes, and that a `for` over a range runs it reversed.
SHAPE_CHANCE = 0.2
REVERSED_CHANCE = 0.35
# srcad's runtime names a variable may take (each at most once), and the chance it does
RUNTIME_NAMES = ("unbroadcast", "reshaped", "view_element", "view_size", "view_start",
                 "diagonal_adjoint", "cholesky_adjoint", "reserve_tape", "checkpoint_plan",
                 "array_bytes", "array_matmul", "outer_add", "simd_exp", "reducer",
                 "reduce_sum_0", "srcad_nested_gradient")
RUNTIME_NAME_CHANCE = 0.3


class ShapeGrammar:
    def runtime_name(self) -> str | None:
        """With `runtime-names`, sometimes a name of srcad's runtime for a new variable."""
        if "runtime-names" not in self.shapes:
            return None
        if not hasattr(self, "_runtime_names"):
            self._names_rng = random.Random(f"runtime names {self.seed}")
            # the reverse sweep's loops call `reversed`; the program's own only with `reversed`
            self._runtime_names = list(RUNTIME_NAMES) + (
                [] if "reversed" in self.shapes else ["reversed"])
            self._names_rng.shuffle(self._runtime_names)
        if self._runtime_names and self._names_rng.random() < RUNTIME_NAME_CHANCE:
            return self._runtime_names.pop()
        return None

    def maybe_reversed(self, text: str) -> str:
        """`range(...)` or, by chance, `reversed(range(...))` (same indices, other order)."""
        return f"reversed({text})" if self.chance(REVERSED_CHANCE) else text

    def shape_statement(self, scope: Scope, ctx: FunctionContext, depth: int):
        """The lines of a statement shape, or None for an ordinary statement."""
        kinds = [k for k in ("index-arrays", "multi-tape", "counters", "row-views",
                             "iteration-values") if k in self.shapes]
        if not kinds or depth <= 0 or not self.chance(SHAPE_CHANCE):
            return None
        kind = self.rng.choice(kinds)
        if kind == "index-arrays":
            return self.rotated_index_loop(scope, ctx, depth)
        if kind == "counters":
            return self.counted_loops(scope, ctx, depth)
        if kind == "row-views":
            return self.row_view_loop(scope, ctx)
        if kind == "iteration-values":
            return self.iteration_value_loop(scope, ctx, depth)
        return self.sibling_taping_loops(scope, ctx, depth)

    def accumulator(self, scope: Scope):
        """(lines, name): a float to add into, new (set to 0.0 first) or one in scope."""
        if scope.floats and self.chance(0.6):
            return [], self.rng.choice(scope.floats)
        t = self.fresh("t")
        scope.floats.append(t)
        return [f"{t} = 0.0"], t

    def rotated_index_loop(self, scope: Scope, ctx: FunctionContext, depth: int):
        """`idx` = a rotation of 0..n-1; a loop reading `x[idx[0]]` (and maybe writing through
        it), then rotating `idx` by one: the values read move with the iterations."""
        rng = self.rng
        arrays = [a for a in scope.arrays if len(a.shape) == 1 and a.shape[0] is not None]
        if not arrays:
            return None
        src = rng.choice(arrays)
        n, size = src.len_expr[0], src.shape[0]
        idx, i, j, k, p = (self.fresh(v) for v in ("idx", "i", "j", "k", "p"))
        lines, acc = self.accumulator(scope)
        lines += [f"{idx} = np.zeros({n}, dtype=np.int64)", f"for {i} in range({n}):",
                  f"    {idx}[{i}] = ({i} + {rng.randint(0, size - 1)}) % {n}"]
        body_scope = scope.child()
        if self.chance(0.5):
            trips = n
            body_scope.ints.append(IntVar(k, 0, size - 1, frozenset([src.name])))
        else:
            count = rng.randint(1, 3)
            trips = str(count)
            body_scope.ints.append(IntVar(k, 0, count - 1))
        first, last = f"{src.name}[{idx}[0]]", f"{src.name}[{idx}[{n} - 1]]"
        ctx.loop_depth += 1
        e = self.fexpr(body_scope, ctx, 1, calls=False)
        body = [rng.choice([f"{acc} += {first} * {first}",
                            f"{acc} = {acc} * (0.9 + 0.1 * math.sin({first})) + {last}",
                            f"{acc} += math.tanh({first}) * ({e})"])]
        if self.chance(0.3):
            dst = rng.choice(arrays)
            body.append(f"{dst.name}[{idx}[1] % {dst.len_expr[0]}] += 0.5 * {first}")
        if self.chance(0.4):
            body += self.block(body_scope, ctx, depth - 1, rng.randint(1, 2))
        ctx.loop_depth -= 1
        body += [f"{p} = {idx}[0]", f"for {j} in range({n} - 1):",
                 f"    {idx}[{j}] = {idx}[{j} + 1]", f"{idx}[{n} - 1] = {p}"]
        return lines + [f"for {k} in range({trips}):"] + indent(body)

    def sibling_taping_loops(self, scope: Scope, ctx: FunctionContext, depth: int):
        """An outer loop around two or three loops over the same range, each overwriting a
        float with a nonlinear function of itself (a value the reverse sweep needs: taped)."""
        rng = self.rng
        text, lo, hi, valid = self.ranges(scope, ctx)
        if "reversed" in self.shapes:
            text = self.maybe_reversed(text)
        lines, acc = self.accumulator(scope)
        o, outer = self.fresh("o"), rng.randint(1, 3)
        outer_scope = scope.child()
        outer_scope.ints.append(IntVar(o, 0, outer - 1))
        body = []
        ctx.loop_depth += 1
        for _ in range(rng.choice([2, 2, 3])):
            i = self.fresh("i")
            inner = outer_scope.child()
            inner.ints.append(IntVar(i, lo, hi, valid))
            leaf = self.leaf(inner, allow_const=False)
            inner_body = [rng.choice([
                f"{acc} = {acc} * (0.9 + 0.1 * math.cos({leaf})) + 0.1 * {leaf}",
                f"{acc} = math.sin({acc}) + {leaf}",
                f"{acc} += {leaf} * math.tanh({acc})"])]
            if self.chance(0.4):
                inner_body += self.block(inner, ctx, depth - 1, 1)
            body += [f"for {i} in {text}:"] + indent(inner_body)
        ctx.loop_depth -= 1
        return lines + [f"for {o} in range({outer}):"] + indent(body)

    def counted_loops(self, scope: Scope, ctx: FunctionContext, depth: int):
        """An outer loop; in it a counter `c` set, then stepped (by 1, 2 or a loop index) in
        a triangle of for loops, each step after an active statement reading `x[c % n]`; `c`
        read again after the loops. By chance a step under an `if` and other statements
        (maybe a `break`) in the inner loop: then `c` is taped, not restored."""
        rng = self.rng
        arrays = [a for a in scope.arrays if len(a.shape) == 1 and a.shape[0] is not None]
        if not arrays:
            return None
        src = rng.choice(arrays)
        n = src.len_expr[0]
        o, i, j, c = (self.fresh(v) for v in ("o", "i", "j", "c"))
        lines, acc = self.accumulator(scope)
        read = f"{src.name}[{c} % {n}]"
        if ctx.loop_depth == 0 and self.chance(0.5):
            # gmm's packed triangle indexed by the counter itself (`l[lparamsidx]`), from a
            # local copy long enough for every value the counter takes (negative ones too:
            # read from the end, as in Python)
            p, k = self.fresh("p"), self.fresh("k")
            lines += [f"{p} = np.zeros({PACKED_LENGTH})", f"for {k} in range({PACKED_LENGTH}):",
                      f"    {p}[{k}] = {src.name}[{k} % {n}] + 0.01 * {k}"]
            read = f"{p}[{c}]"
        outer = rng.randint(1, 3)
        inner_scope = scope.child()
        inner_scope.ints += [IntVar(o, 0, outer - 1), IntVar(i, 0, 2), IntVar(j, 1, 3)]
        step = rng.choice(["1", "2", i, f"{o} + 1"])
        inner = [rng.choice([f"{acc} += {read} * {src.name}[{j} % {n}]",
                             f"{acc} = {acc} * (0.9 + 0.1 * math.sin({read})) + {read}",
                             f"{acc} += math.tanh({acc}) * {read}"]),
                 f"{c} {rng.choice(['+=', '+=', '-='])} {step}"]
        ctx.loop_depth += 2
        if self.chance(0.25):
            inner += [f"if {self.cond(inner_scope, ctx)}:", f"    {c} += 1"]
        if self.chance(0.25):
            inner += self.block(inner_scope, ctx, depth - 1, 1)
        ctx.loop_depth -= 2
        body = [f"{c} = {rng.choice(['0', o, '1'])}", f"for {i} in range(3):",
                f"    for {j} in range({i} + 1, 4):"] + indent(indent(inner))
        if self.chance(0.5):
            body.append(f"{acc} = {acc} + 0.5 * {read} * {src.name}[{o} % {n}]")
        return lines + [f"for {o} in range({outer}):"] + indent(body)

    def row_view_loop(self, scope: Scope, ctx: FunctionContext):
        """A loop over the rows of an (n, 2) matrix, read through views (module docstring).
        A local matrix is made only outside loops (an active array is allocated once) and
        only for this statement."""
        rng = self.rng
        matrices = [a for a in scope.arrays if len(a.shape) == 2 and a.shape[1] == 2
                    and a.shape[0] is not None]
        lines = []
        if ctx.loop_depth == 0 and (not matrices or self.chance(0.5)):
            vectors = [a for a in scope.arrays if len(a.shape) == 1 and a.shape[0] is not None]
            if not vectors:
                return None
            src, m, i = rng.choice(vectors), self.fresh("m"), self.fresh("i")
            n = src.len_expr[0]
            lines += [f"{m} = np.zeros(({n}, 2))", f"for {i} in range({n}):",
                      f"    {m}[{i}, 0] = 0.5 * {src.name}[{i}] + 0.1",
                      f"    {m}[{i}, 1] = math.sin({src.name}[{i}])"]
            made = Arr(m, (src.shape[0], 2), (n, "2"), (src.shape[0], 2))
            M, M2 = made, rng.choice(matrices + [made])
        elif matrices:
            M, M2 = rng.choice(matrices), rng.choice(matrices)
        else:
            return None
        # into a float in scope, so that the rows reach the result (a fresh one is often dead)
        more, acc = ([], rng.choice(scope.floats)) if scope.floats else self.accumulator(scope)
        r, q, i = self.fresh("r"), self.fresh("q"), self.fresh("i")
        use = rng.choice([f"{acc} += {r}[0] * {r}[1]",
                          f"{acc} = {acc} * 0.9 + math.sin({r}[0]) * {r}[1]",
                          f"{acc} += math.tanh({r}[1] - {r}[0] * {acc})"])
        rows = f"range(min(len({M.name}), len({M2.name})))"
        vectors = [a for a in scope.arrays if len(a.shape) == 1 and a.shape[0] is not None
                   and a.shape[0] >= 2]
        kind = rng.choice(["for", "index", "zip", "tail", "branch"] + ["slice"] * bool(vectors))
        if kind == "for":
            loop = [f"for {r} in {M.name}:", f"    {use}"]
        elif kind == "index":
            row = rng.choice([f"{M.name}[{i}]", f"{M.name}[{i}, :]"])
            loop = [f"for {i} in range(len({M.name})):", f"    {r} = {row}", f"    {use}"]
        elif kind == "zip":
            loop = [f"for {r}, {q} in zip({M.name}, {M2.name}):",
                    f"    {acc} += {r}[0] * {q}[1] - {r}[1] * {q}[0]"]
        elif kind == "tail":
            t = self.fresh("t")
            loop = [f"for {i} in range(len({M.name})):", f"    {r} = {M.name}[{i}]",
                    f"    {t} = {r}[1:]", f"    {acc} += {t}[0] * {r}[0]"]
        elif kind == "slice":  # a 1-D view of a vector (an argument's: lanes first)
            v = rng.choice(vectors).name
            loop = [f"{r} = {v}[1:]", f"for {i} in range(len({r})):",
                    f"    {acc} += {r}[{i}] * {v}[{i}]"]
        else:
            loop = [f"for {i} in {rows}:", f"    if {i} % 2 == 0:", f"        {r} = {M.name}[{i}]",
                    "    else:", f"        {r} = {M2.name}[{i}]", f"    {use}"]
        return lines + more + loop

    def iteration_value_loop(self, scope: Scope, ctx: FunctionContext, depth: int):
        """A for loop defining `v` once at the top of its body, read by several statements
        after it and in an inner loop (see the module docstring)."""
        rng = self.rng
        text, lo, hi, valid = self.ranges(scope, ctx)
        lines, acc = self.accumulator(scope)
        i, v, k = self.fresh("i"), self.fresh("v"), self.fresh("k")
        body_scope = scope.child()
        body_scope.ints.append(IntVar(i, lo, hi, valid))
        ctx.loop_depth += 1
        leaf = self.leaf(body_scope, allow_const=False)
        body = []
        if self.chance(0.25):  # read before its definition: the last iteration's value
            lines.append(f"{v} = 0.5")
            body.append(f"{acc} += {v} * {leaf}")
        call = rng.choice(["math.cos", "math.sin", "math.tanh"])
        body.append(f"{v} = {call}({self.fexpr(body_scope, ctx, 1, calls=False)})")
        if self.chance(0.2):
            body += [f"if {leaf} > 0.0:", f"    {v} = {v} * {leaf}"]
        if self.chance(0.2):
            body += [f"if {i} % 2 == 1:", "    continue"]
        reads = [f"{acc} = {acc} + {v} * {leaf}", f"{acc} += {v} * {v} * math.sin({acc})",
                 f"{acc} = {acc} * (0.9 + 0.1 * {v})"]
        body += [rng.choice(reads) for _ in range(rng.randint(2, 3))]
        if self.chance(0.5):
            inner = body_scope.child()
            inner.ints.append(IntVar(k, 0, 1))
            body += [f"for {k} in range(2):",
                     f"    {acc} += {v} * {self.leaf(inner, allow_const=False)}"]
        if self.chance(0.3):
            body += self.block(body_scope, ctx, depth - 1, 1)
        ctx.loop_depth -= 1
        return lines + [f"for {i} in {text}:"] + indent(body)
