"""Whole-array programs for the fuzzer (`run.py --arrays`, `generate(seed, arrays=True)`):
`f(W, x, b, a, idx)` with `W` an (m, n) matrix, `x` an (n,) and `b` an (m,) vector (Duplicated
float arrays), `a` an Active float and `idx` an int array with a repeated index (passed bare),
written with the array primitives srcad differentiates (docs/arrays.md):

* elementwise operators and NumPy functions with broadcasting: scalar with array, rows with
  columns (`u[:, None] * v[None, :]`, an (r, 1) `keepdims` reduction against an (r, c) matrix);
* reductions `np.sum/mean/max/min` with `axis=` and `keepdims=`, `np.linalg.norm`, `np.trace`;
* `@`, `np.dot`, `x.dot(y)`, `np.outer`, `.T`, `np.transpose`;
* slice, row and column reads (`v[1:3]`, `v[::2]`, `v[::-1]`, `M[i]`, `M[:, j]`) and slice, row
  and column writes into arrays allocated with `np.zeros` or `.copy()` (`z[1:3] = ...`,
  `Z[:, j] += ...`), also in loops;
* arrays rebound in loops (`h = np.tanh(W @ h + b)`, arguments too) and accumulated
  (`acc = acc + ...`, `acc += ...` on a local no other name shares); a local bound in a loop
  to a slice whose length depends on the loop index (grammar_loop_shapes.py);
* `np.concatenate`, `np.hstack`, `np.stack`, `np.vstack` of written-out lists;
* gathers through the int array `idx` (`x[idx]`, `W[idx]`, `W[:, idx]`; repeated indices);
* `np.cumsum`, and `np.linalg.solve`, `inv` and `det` of `2.0 * np.eye(k) + 0.1 * np.outer(u, u)`
  (eigenvalues at least 2: well conditioned for every u);
* a local array rebound to a float at the top level (`h2 = np.sum(h2 * (...))`; srcad gives
  each binding its own name), never one a loop rebinds.

A quarter of the programs (ELEMENTWISE_FRACTION) are elementwise code only (operators, NumPy
functions, whole sums and means, transposes, rebinding loops): what the numba backend compiles
in forward mode. Under numba, every other program must be refused with a SrcadError.

The result is a float (sums and dot products of the arrays computed), so `check_grads` applies.
Every shape is concrete when the program is written, so every operation is well formed; domains
are kept safe by construction (`np.log(1.0 + e * e)`, `np.sqrt(0.5 + e * e)`, divisions by
`2.0 + np.sin(e)`, `np.exp(np.sin(e))`); no float comparison is made, so no branch or kink moves
with the inputs except the rare ties of `np.max`/`np.min` (finite-difference confirmation
separates those). A name is bound either to whole-array expressions, never bare names or views
(always a new array), or allocated and then written: srcad refuses the mixes by design.

A mixin of `generator.Generator`, drawing from the generator's random stream only when switched
on, so without `arrays` every seed keeps the program it had.
"""

from __future__ import annotations

from grammar_library import MORE_PRELUDE as LIBRARY_MORE_PRELUDE
from grammar_library import PRELUDE as LIBRARY_PRELUDE
from grammar_library_forms import PRELUDE as LIBRARY_FORMS_PRELUDE
from grammar_library_rules import PRELUDE as LIBRARY_RULES_PRELUDE
from grammar_linalg import PRELUDE as LINALG_PRELUDE
from grammar_stats import PRELUDE as STATS_PRELUDE
from program import PRELUDE, ArgKind, Program
from scopes import indent

UNARY = ["np.tanh({})", "np.sin({})", "np.cos({})", "np.arctan({})", "np.exp(np.sin({}))",
         "np.log(1.0 + {0} * {0})", "np.sqrt(0.5 + np.square({}))", "np.square({})",
         "({}) ** 2", "-({})", "np.log1p(np.exp(np.tanh({})))", "np.sinh(0.5 * np.tanh({}))"]
ELEMENTWISE_FRACTION = 0.25  # of the programs: elementwise code only (numba forward mode)

BINARY = ["{} + {}", "{} - ({})", "({}) * ({})", "({}) / (2.0 + np.sin({}))",
          "np.logaddexp({}, {})", "np.arctan2({}, 2.0 + np.cos({}))",
          "np.hypot({}, 0.5 + np.square({}))"]


class ArrayGrammar:
    # -- values in scope -------------------------------------------------------------------

    def _vars(self, shape):
        return [name for name, s in self.arr_scope.items() if s == shape]

    def _scalar_leaf(self):
        options = ["a"] + self.arr_floats
        return self.rng.choice(options) if self.chance(0.75) else self.const()

    # -- expressions of a given (concrete) shape --------------------------------------------

    def aexpr(self, shape: tuple, depth: int) -> str:
        """An expression whose value has exactly `shape` (() is a float)."""
        if shape == ():
            return self.scalar_expr(depth)
        if self.elementwise_only:
            leaves = self._vars(shape) + [f"{n}.T" for n, s in self.arr_scope.items()
                                          if len(s) == 2 and s == shape[::-1]]
            if depth <= 0 or self.chance(0.25):
                return self.rng.choice(leaves)
            return self.rng.choice([self.elementwise_unary, self.elementwise_binary])(shape, depth)
        if depth <= 0 or self.chance(0.25):
            leaf = self.array_leaf(shape)
            if leaf is not None:
                return leaf
            if depth <= 0:
                return self.fallback(shape)
        makers = [self.elementwise_unary, self.elementwise_binary, self.elementwise_binary]
        makers += self.structural_makers(shape)
        return self.rng.choice(makers)(shape, depth)

    def array_leaf(self, shape: tuple):
        """A name, a slice, row or column, a transpose or a gather of exactly `shape`, or None."""
        rng = self.rng
        options = list(self._vars(shape))
        for name, s in self.arr_scope.items():
            if len(shape) == 1:
                k = shape[0]
                if len(s) == 1 and s[0] > k:
                    o = rng.randint(0, s[0] - k)
                    options.append(f"{name}[{o}:{o + k}]")
                if len(s) == 1 and (s[0] + 1) // 2 == k and s[0] > k:
                    options.append(f"{name}[::2]")
                if s == shape:
                    options.append(f"{name}[::-1]")
                if len(s) == 2 and s[1] == k:
                    options.append(f"{name}[{rng.randint(0, s[0] - 1)}]")
                if len(s) == 2 and s[0] == k:
                    options.append(f"{name}[:, {rng.randint(0, s[1] - 1)}]")
                if k == self.n_idx and len(s) == 1 and s[0] > self.idx_max:
                    options.append(f"{name}[idx]")
            elif len(shape) == 2 and len(s) == 2:
                if s == shape[::-1]:
                    options.append(rng.choice([f"{name}.T", f"np.transpose({name})"]))
                if s[1] == shape[1] and s[0] > shape[0]:
                    options.append(f"{name}[{s[0] - shape[0]}:]")
                if s[1] == shape[1] and shape[0] == self.n_idx and s[0] > self.idx_max:
                    options.append(f"{name}[idx]")
                if s[0] == shape[0] and shape[1] == self.n_idx and s[1] > self.idx_max:
                    options.append(f"{name}[:, idx]")
        self.last_leaf = rng.choice(options) if options else None
        return self.last_leaf

    def fallback(self, shape):
        """A leaf-free value of `shape` that still carries a derivative (through `a`)."""
        if len(shape) == 1:
            return f"np.sin(a * np.linspace(0.2, 1.1, {shape[0]}))"
        return f"np.outer({self.aexpr(shape[:1], 0)}, {self.aexpr(shape[1:], 0)})"

    def as_row(self, e):
        """`e` (a vector) as a (1, c) row: `[None, :]` on a name, a function on a computed
        array (srcad refuses to index a computed array)."""
        if e.isidentifier():
            return f"{e}[None, :]"
        return self.rng.choice([f"np.expand_dims({e}, 0)", f"np.reshape({e}, (1, -1))"])

    def as_column(self, e):
        if e.isidentifier():
            return f"{e}[:, None]"
        return self.rng.choice([f"np.expand_dims({e}, 1)", f"np.reshape({e}, (-1, 1))"])

    def elementwise_unary(self, shape, depth):
        return self.rng.choice(UNARY).format(self.aexpr(shape, depth - 1))

    def elementwise_binary(self, shape, depth):
        """Two operands of `shape`, or one of `shape` and one that broadcasts against it."""
        rng = self.rng
        left = self.aexpr(shape, depth - 1)
        right = self.broadcast_operand(shape, depth - 1)
        if self.chance(0.4):
            left, right = right, left
        # (the second slot of a division, arctan2 or hypot is made safe by the form itself)
        return "(" + rng.choice(BINARY).format(left, right) + ")"

    def broadcast_operand(self, shape, depth):
        """An operand that broadcasts to `shape`: the shape itself, a float, a row or a column."""
        rng = self.rng
        kinds = ["same", "same", "scalar"] + ["row", "column"] * (not self.elementwise_only)
        kind = rng.choice(kinds)
        if kind == "scalar":
            return self.scalar_expr(max(depth - 1, 0)) if self.chance(0.3) else self._scalar_leaf()
        if len(shape) == 2 and kind == "row":
            r, c = shape
            return rng.choice([self.aexpr((c,), depth), self.as_row(self.aexpr((c,), depth)),
                               f"np.sum({self.aexpr(shape, depth)}, axis=0, keepdims=True)"])
        if len(shape) == 2 and kind == "column":
            r, c = shape
            return rng.choice([self.as_column(self.aexpr((r,), depth)),
                               f"np.mean({self.aexpr((r, rng.choice(self.dims)), depth)}, "
                               "axis=1, keepdims=True)",
                               f"np.expand_dims({self.aexpr((r,), depth)}, 1)"])
        return self.aexpr(shape, depth)

    def structural_makers(self, shape):
        """The non-elementwise constructions that can give `shape`."""
        makers = []
        if len(shape) == 1:
            makers += [self.matvec, self.reduced_axis, self.running_sum, self.solved]
            if shape[0] >= 2:
                makers.append(self.joined_vector)
        else:
            makers += [self.outer, self.matmat]
            if shape[0] in (2, 3):
                makers.append(self.stacked_rows)
            if shape[0] == shape[1]:
                makers.append(self.inverted)
        return makers

    def running_sum(self, shape, depth):
        return f"np.cumsum({self.aexpr(shape, depth - 1)})"

    def solved(self, shape, depth):
        k = shape[0]
        u = self.aexpr((k,), depth - 1)
        return f"np.linalg.solve(2.0 * np.eye({k}) + 0.1 * np.outer({u}, {u}), " \
            f"{self.aexpr(shape, depth - 1)})"

    def inverted(self, shape, depth):
        k = shape[0]
        u = self.aexpr((k,), depth - 1)
        return f"np.linalg.inv(2.0 * np.eye({k}) + 0.1 * np.outer({u}, {u}))"

    def matrix_of(self, rows, cols, depth):
        """A matrix expression (rows, cols): an argument or local, or a product/outer."""
        leaf = self.array_leaf((rows, cols))
        if leaf is not None and (depth <= 0 or self.chance(0.6)):
            return leaf
        return self.aexpr((rows, cols), depth)

    def matvec(self, shape, depth):
        rng = self.rng
        k, j = shape[0], rng.choice(self.dims)
        M = self.matrix_of(k, j, depth - 1)
        v = self.aexpr((j,), depth - 1)
        form = rng.choice(["{M} @ {v}", "np.dot({M}, {v})", "({M}).dot({v})", "np.matmul({M}, {v})",
                           "{v} @ ({M}).T"])
        return "(" + form.format(M=M, v=v) + ")"

    def reduced_axis(self, shape, depth):
        rng = self.rng
        k, j = shape[0], rng.choice(self.dims)
        fn = rng.choices(["np.sum", "np.mean", "np.max", "np.min", "method"], [4, 3, 1, 1, 2])[0]
        if self.chance(0.5):
            M, axis = self.aexpr((k, j), depth - 1), 1
        else:
            M, axis = self.aexpr((j, k), depth - 1), 0
        if fn == "method":
            return f"({M}).{rng.choice(['sum', 'mean'])}(axis={axis})"
        return f"{fn}({M}, axis={axis})"

    def joined_vector(self, shape, depth):
        k = shape[0]
        k1 = self.rng.randint(1, k - 1)
        fn = self.rng.choice(["np.concatenate", "np.hstack"])
        return f"{fn}([{self.aexpr((k1,), depth - 1)}, {self.aexpr((k - k1,), depth - 1)}])"

    def outer(self, shape, depth):
        r, c = shape
        u, v = self.aexpr((r,), depth - 1), self.aexpr((c,), depth - 1)
        return self.rng.choice([f"np.outer({u}, {v})", f"{self.as_column(u)} * {self.as_row(v)}",
                                f"(np.reshape({u}, (-1, 1)) + {v})"])

    def matmat(self, shape, depth):
        r, c = shape
        j = self.rng.choice(self.dims)
        A, B = self.matrix_of(r, j, depth - 1), self.matrix_of(j, c, depth - 1)
        return self.rng.choice([f"({A} @ {B})", f"np.dot({A}, {B})"])

    def stacked_rows(self, shape, depth):
        r, c = shape
        rows = ", ".join(self.aexpr((c,), depth - 1) for _ in range(r))
        return self.rng.choice([f"np.stack([{rows}])", f"np.vstack([{rows}])"])

    def scalar_expr(self, depth: int) -> str:
        """A float: a reduction of an array, a dot product, or a scalar in scope."""
        rng = self.rng
        if depth <= 0 and self.chance(0.5):
            return self._scalar_leaf()
        shape = rng.choice(self.shapes_in_use)
        e = self.aexpr(shape, max(depth - 1, 0))
        kind = rng.choices(["sum", "mean", "dot", "norm", "trace", "max", "det"],
                           [5, 3, 0, 0, 0, 0, 0] if self.elementwise_only
                           else [5, 3, 3, 1, 1, 1, 1])[0]
        if kind == "det" and len(shape) == 1:
            return f"np.linalg.det(2.0 * np.eye({shape[0]}) + 0.1 * np.outer({e}, {e}))"
        if kind == "dot" and len(shape) == 1:
            return f"np.dot({e}, {self.aexpr(shape, max(depth - 1, 0))})"
        if kind == "norm":
            return f"np.linalg.norm(0.5 + ({e}) ** 2)"
        if kind == "trace" and len(shape) == 2 and shape[0] == shape[1]:
            return f"np.trace({e})"
        if kind == "max":
            return f"{rng.choice(['np.max', 'np.min'])}({e})"
        return f"{'np.mean' if kind == 'mean' else 'np.sum'}({e})"

    # -- statements ------------------------------------------------------------------------

    def new_array(self, shape, depth):
        """`hK = <expression>`, a new local bound to whole-array expressions."""
        name = self.fresh("h")
        self.last_leaf = None
        value = self.aexpr(shape, depth)
        if value == self.last_leaf:
            value = f"{self.const()} * {value}"  # a new array, never a second name or a view
        self.arr_scope[name] = shape
        self.rebindable.append(name)
        return [f"{name} = {value}"]

    def new_float(self, depth):
        name = self.fresh("s")
        line = f"{name} = {self.scalar_expr(depth)}"
        self.arr_floats.append(name)
        return [line]

    def retyped_array(self, depth):
        """`hK = np.sum(hK * (...))`: a local array rebound to a float at the top level (never
        one a loop rebinds, nor an argument); a new array when there is none to rebind."""
        names = [n for n in self.rebindable
                 if n not in self.loop_bound and n not in self.args_rebindable]
        if not names:
            return self.new_array(self.rng.choice(self.shapes_in_use), depth)
        h = self.rng.choice(names)
        shape = self.arr_scope.pop(h)
        self.rebindable.remove(h)
        self.arr_floats.append(h)
        fn = self.rng.choice(["np.sum", "np.mean"])
        return [f"{h} = {fn}({h} * ({self.aexpr(shape, depth - 1)}))"]

    def rebinding_loop(self, depth):
        """`for t in range(T): h = np.tanh(W @ h + b)`-like recurrences and accumulations."""
        rng = self.rng
        names = [n for n in self.rebindable if len(self.arr_scope[n]) == 1]
        if not names or self.chance(0.3):
            return self.new_array(rng.choice(self.shapes_in_use[:3]), depth) + \
                (self.rebinding_loop(depth) if self.chance(0.8) else [])
        h = rng.choice(names)
        self.loop_bound.add(h)
        shape = self.arr_scope[h]
        t = self.fresh("t")
        body = []
        kind = rng.choice(["rnn", "rnn", "augment"] + ["acc"] * (not self.elementwise_only))
        if kind == "rnn":
            body.append(f"{h} = np.tanh({self.aexpr(shape, depth - 1)} + {self.const()} * {h})")
        elif kind == "acc":
            rows = [n for n, s in self.arr_scope.items() if len(s) == 2 and s[1] == shape[0]]
            if rows and self.chance(0.7):  # a row chosen by the loop index
                R = rng.choice(rows)
                term = f"{R}[{t} % {self.arr_scope[R][0]}]"
            else:
                term = self.aexpr(shape, depth - 1)
            if h in self.args_rebindable or self.chance(0.5):
                body.append(f"{h} = {h} + {self.const()} * np.sin({term}) * {self._scalar_leaf()}")
            else:
                body.append(f"{h} += {self.const()} * np.sin({term})")
        else:
            body.append(f"{h} = 0.5 * {h} + np.sin({self.aexpr(shape, depth - 1)})")
        if self.chance(0.3) and not self.elementwise_only:
            body += self.write_statement(depth - 1, loop_index=t) or []
        return [f"for {t} in range({rng.randint(1, 4)}):"] + indent(body)

    def allocated_array(self):
        """`zK = np.zeros(shape)` (or a copy of an argument), written element-wise later."""
        rng = self.rng
        name = self.fresh("z")
        if self.chance(0.3):
            src = rng.choice(["W", "x", "b"])
            self.arr_scope[name] = self.arr_scope[src]
            line = f"{name} = {src}.copy()"
        else:
            shape = rng.choice(self.shapes_in_use[:4] + [(self.dims[0] + 2,)])
            self.arr_scope[name] = shape
            dims = str(shape[0]) if len(shape) == 1 else str(shape)
            line = f"{name} = np.zeros({dims})"
        self.written.append(name)
        return [line]

    def write_statement(self, depth, loop_index=None):
        """A slice, row, column or element write into an allocated array."""
        rng = self.rng
        if not self.written:
            return None
        z = rng.choice(self.written)
        shape = self.arr_scope[z]
        op = rng.choice(["=", "+=", "-="])
        if len(shape) == 1:
            n = shape[0]
            if loop_index is not None:
                return [f"{z}[{loop_index} % {n}] {op} {self.scalar_expr(depth)}"]
            k = rng.randint(1, n)
            o = rng.randint(0, n - k)
            return [f"{z}[{o}:{o + k}] {op} {self.aexpr((k,), depth)}"]
        r, c = shape
        which = rng.choice(["row", "column", "element", "block"])
        i = f"{loop_index} % {r}" if loop_index is not None else str(rng.randint(0, r - 1))
        if which == "row":
            return [f"{z}[{i}] {op} {self.broadcast_operand((c,), depth)}"]
        if which == "column":
            j = f"{loop_index} % {c}" if loop_index is not None else str(rng.randint(0, c - 1))
            return [f"{z}[:, {j}] {op} {self.aexpr((r,), depth)}"]
        if which == "element":
            return [f"{z}[{i}, {rng.randint(0, c - 1)}] {op} {self.scalar_expr(depth)}"]
        return [f"{z}[1:, :] {op} {self.broadcast_operand((r - 1, c), depth)}"] if r > 1 else \
            [f"{z}[0] {op} {self.aexpr((c,), depth)}"]

    def write_loop(self, depth):
        t = self.fresh("t")
        body = self.write_statement(depth - 1, loop_index=t)
        if body is None:
            return self.allocated_array()
        return [f"for {t} in range({self.rng.randint(1, 4)}):"] + indent(body)

    def array_statement(self, depth):
        kind = self.rng.choices(["new", "float", "loop", "alloc", "write", "write_loop",
                                 "retype", "shapes"],
                                [5, 2, 3, 0, 0, 0, 1, 0] if self.elementwise_only else
                                [5, 2, 3, 2, 3, 2, 1, 2])[0]
        if kind == "shapes":  # a local whose shape changes per iteration: grammar_loop_shapes
            return self.varying_slice_loop(depth)
        if kind == "retype":
            return self.retyped_array(depth)
        if kind == "new":
            return self.new_array(self.rng.choice(self.shapes_in_use), depth)
        if kind == "float":
            return self.new_float(depth)
        if kind == "loop":
            return self.rebinding_loop(depth)
        if kind == "alloc":
            return self.allocated_array()
        if kind == "write":
            return self.write_statement(depth) or self.allocated_array()
        return self.write_loop(depth)

    # -- the program -----------------------------------------------------------------------

    def array_program(self) -> Program:
        rng = self.rng
        # a quarter of the programs: elementwise code only (operators, NumPy functions, whole
        # sums and means, transposes), what the numba backend compiles in forward mode
        self.elementwise_only = self.chance(ELEMENTWISE_FRACTION)
        m, n = rng.randint(2, 4), rng.randint(2, 4)
        self.dims = [n, m]
        self.n_idx = rng.randint(2, 5)
        index = [rng.randint(0, min(m, n) - 1) for _ in range(self.n_idx)]
        index[-1] = index[0]  # a repeated index: its contributions add up
        self.idx_max = max(index)
        args = [ArgKind("dup", "W", (m, n)), ArgKind("dup", "x", (n,)), ArgKind("dup", "b", (m,)),
                ArgKind("active", "a"), ArgKind("index", "idx", value=index)]
        self.arr_scope = {"W": (m, n), "x": (n,), "b": (m,)}
        self.arr_floats = []
        self.rebindable, self.written = [], []
        self.loop_bound = set()  # locals a loop rebinds: never rebound to a float
        self.args_rebindable = []
        if self.chance(0.3):  # an argument rebound in the body (`x = np.tanh(...)`)
            self.args_rebindable = [rng.choice(["x", "b"])]
            self.rebindable += self.args_rebindable
        self.shapes_in_use = [(n,), (m,), (m, n), (self.n_idx,), (n, m), (m, m)]
        if self.elementwise_only:
            self.shapes_in_use = [(n,), (m,), (m, n), (n, m)]
        depth = rng.randint(2, 3)
        body = []
        for _ in range(rng.randint(3, 7)):
            body += self.array_statement(depth)
        if "numpy-families" in self.shapes:  # its own stream: grammar_numpy_families.py
            from grammar_numpy_families import numpy_family_statements
            body += numpy_family_statements(self)
        if "widened" in self.shapes:  # its own random stream: grammar_loop_shapes.py
            body += self.widened_carried_loop()
        if "numpy-semantics" in self.shapes:  # its own stream: grammar_numpy_semantics.py
            body += self.numpy_semantics_block()
        if "literal-arguments" in self.shapes:  # its own stream: grammar_literal_arguments.py
            body += self.literal_argument_lines()
        if "written-results" in self.shapes:  # its own stream: grammar_written_results.py
            body += self.written_result_lines()
        prelude = PRELUDE
        if "library" in self.shapes:  # its own random stream: grammar_library.py
            body += self.library_statements()
            prelude = PRELUDE + "\n" + LIBRARY_PRELUDE
        elif "written-results" in self.shapes:  # scipy.special.expit
            prelude = PRELUDE + "\nimport scipy.special\n"
        if "library-more" in self.shapes:  # its own random stream: grammar_library.py
            body += self.library_more_statements()
            prelude = PRELUDE + "\n" + LIBRARY_PRELUDE + "\n" + LIBRARY_MORE_PRELUDE
        if "linalg" in self.shapes:  # its own random stream: grammar_linalg.py
            body += self.linalg_statements()
            prelude = prelude + "\n" + LINALG_PRELUDE
        if "movement" in self.shapes:  # its own random stream: grammar_movement.py
            body += self.movement_statements()
        if "loop-state" in self.shapes:  # its own random stream: grammar_loop_state.py
            body += self.loop_state_lines()
        if "stats" in self.shapes:  # its own random stream: grammar_stats.py
            body += self.stats_statements()
            prelude = prelude + "\n" + STATS_PRELUDE
        if "index-writes" in self.shapes:  # its own random stream: grammar_index_writes.py
            body += self.index_write_lines()
        if "library-forms" in self.shapes:  # its own stream: grammar_library_forms.py
            body += self.library_forms_statements()
            prelude = prelude + "\n" + LIBRARY_FORMS_PRELUDE
        if "library-rules" in self.shapes:  # its own stream: grammar_library_rules.py
            body += self.library_rules_statements()
            prelude = prelude + "\n" + LIBRARY_RULES_PRELUDE
        if "library-numba" in self.shapes:  # its own stream: grammar_library_rules.py
            body += self.library_numba_statements()
            prelude = prelude + "\n" + LIBRARY_RULES_PRELUDE
        if "mask-writes" in self.shapes:  # its own random stream: grammar_index_writes.py
            body += self.mask_write_lines()
        if "branch-floats" in self.shapes:  # its own random stream: grammar_branch_floats.py
            body += self.branch_float_lines()
        if "argument-products" in self.shapes:  # its own stream: grammar_argument_products
            body += self.argument_product_lines()
        locals_ = [name for name in self.arr_scope if name not in ("W", "x", "b")]
        terms = [self.final_term(name) for name in locals_[-4:] + self.args_rebindable]
        terms += self.arr_floats[-2:] + [self.scalar_expr(depth)]
        if "argument-products" in self.shapes:
            terms += self.product_floats
        body.append("return " + " + ".join(terms))
        text = "\n".join(["def f(W, x, b, a, idx):"] + indent(body))
        return Program(self.seed, prelude + "\n\n" + text + "\n", "f", args, True)

    def final_term(self, name):
        """A float from the local `name`, so that every array computed reaches the result."""
        form = self.rng.choice(["np.sum({0} * {0})", "np.sum(np.sin({0}))", "np.mean({0})",
                                "{c} * np.sum({0})"])
        return form.format(name, c=self.const())
