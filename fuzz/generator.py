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
and every kink, the margin to the non-differentiable point and the branch taken
(fuzz/instrument.py).

The grammar lives in one module per construct family, each a mixin of `Generator`:
grammar_expressions.py, grammar_statements.py (plain programs), grammar_nests.py (loop nests),
grammar_sums.py (sum loops), grammar_shapes.py (extra constructs), grammar_arrays.py
(whole-array programs); program.py holds the `Program` and its module text, scopes.py what
the grammar knows in scope.
"""

from __future__ import annotations

import random

from grammar_argument_products import ArgumentProductGrammar
from grammar_arrays import ArrayGrammar
from grammar_branch_floats import BranchFloatGrammar
from grammar_expressions import ExpressionGrammar
from grammar_index_writes import IndexWriteGrammar
from grammar_library import LibraryGrammar, LibraryMoreGrammar
from grammar_library_forms import LibraryFormsGrammar
from grammar_library_rules import LibraryRulesGrammar
from grammar_linalg import LinalgGrammar
from grammar_literal_arguments import LiteralArgumentGrammar
from grammar_loop_shapes import LoopShapeGrammar
from grammar_loop_state import LoopStateGrammar
from grammar_math_calls import MathCallGrammar
from grammar_movement import MovementGrammar
from grammar_nests import NestGrammar
from grammar_numpy_semantics import NumpySemanticsGrammar
from grammar_shapes import ShapeGrammar
from grammar_statements import StatementGrammar
from grammar_stats import StatsGrammar
from grammar_sums import SumGrammar
from grammar_written_results import WrittenResultGrammar
from instrument import instrument  # noqa: F401  (fuzz/run.py imports it from here)
from program import Program, make_inputs, module_text  # noqa: F401  (likewise)


class Generator(ExpressionGrammar, StatementGrammar, NestGrammar, SumGrammar, ShapeGrammar,
                ArrayGrammar, LoopShapeGrammar, NumpySemanticsGrammar,
                LiteralArgumentGrammar, LibraryGrammar, WrittenResultGrammar,
                LinalgGrammar, MovementGrammar, LoopStateGrammar, LibraryMoreGrammar,
                StatsGrammar, IndexWriteGrammar, LibraryFormsGrammar, LibraryRulesGrammar,
                BranchFloatGrammar, MathCallGrammar, ArgumentProductGrammar):
    def __init__(self, seed: int, nests: bool = False, shapes: frozenset = frozenset()):
        self.seed = seed
        self.shapes = frozenset(shapes)  # extra constructs (grammar_shapes.py); none: as before
        self.rng = random.Random(seed)
        self.counter = 0
        self.nests = nests  # loop nests for srcad/transform/normalize/hoist.py (see nest_program)
        self.y_read = True  # sum_program: do its clean sum loops read y (else they write it)

    # -- helpers ---------------------------------------------------------------------------

    def fresh(self, prefix: str) -> str:
        self.counter += 1
        return self.runtime_name() or f"{prefix}{self.counter}"

    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    def const(self) -> str:
        return repr(self.rng.choice([0.5, 0.25, 0.75, 1.5, 2.0, 0.3, 0.1, 1.2, 0.9, 3.0, 0.6]))


def generate(seed: int, nests: bool = False, shapes: frozenset = frozenset(),
             arrays: bool = False, python: bool = False, views: bool = False,
             containers: bool = False, lists: bool = False,
             effects: bool = False, list_operations: bool = False,
             unbounded: bool = False, functions: bool = False,
             second_order: bool = False, aliasing: bool = False,
             records: bool = False, recursion: bool = False, nested: bool = False,
             parallel_loops: bool = False, parallel_nests: bool = False,
             nested_forms: bool = False, fused_chains: bool = False,
             parallel_blocks: bool = False) -> Program:
    """The program of `seed`; with `nests`, most programs are loop nests (`nest_program`);
    `shapes` switches on extra constructs (grammar_shapes.SHAPES; without them a seed gives
    the program it always gave); `arrays`: a whole-array program (grammar_arrays.py);
    `python`: a program written with Python's conveniences (grammar_python.py); `views`: a
    program writing an array through views of it (grammar_views.py); `containers`: a program
    over a parameter container (grammar_containers.py); `lists`: a program over lists of
    unknown length and parts of computed arrays (grammar_lists.py; with `unbounded`, lists
    appended to in loops with no bound known before them, grammar_unbounded_lists.py);
    `effects`: a call made for its effect, to be refused by line where it receives
    derivative values (grammar_effects.py); `list_operations`: with `lists`, pops at an index,
    inserts, slices and the like (grammar_list_operations.py); `functions`: a program passing
    functions around (grammar_functions.py); `second_order`: f writing its input, parts of
    arrays updated by constants, early returns, checked by Hessians too
    (grammar_second_order.py); `aliasing`: with `lists`, list entries aliasing arrays
    (grammar_list_aliasing.py); `records`: dataclass and NamedTuple parameters, records built
    inside f, bound methods (grammar_records.py); `recursion`: recursive helpers
    (grammar_recursion.py); `nested`: srcad.grad inside f (grammar_nested.py);
    `parallel_loops`: loops with independent iterations (grammar_parallel_loops.py);
    `parallel_nests`: independent loops nested in loops and holding loops
    (grammar_parallel_nests.py);
    `nested_forms`: nested gradients in the forms numba's kernels pair and merge
    (grammar_nested_forms.py);
    `fused_chains`: elementwise chains and reductions (grammar_fused_chains.py);
    `parallel_blocks`: independent loops longer than a block (grammar_parallel_blocks.py)."""
    if parallel_blocks:
        from grammar_parallel_blocks import generate as parallel_block_program
        return parallel_block_program(seed)
    if parallel_nests:
        from grammar_parallel_nests import generate as parallel_nest_program
        return parallel_nest_program(seed)
    if nested_forms:
        from grammar_nested_forms import generate as nested_forms_program
        return nested_forms_program(seed)
    if fused_chains:
        from grammar_fused_chains import generate as fused_chains_program
        return fused_chains_program(seed)
    if parallel_loops:
        from grammar_parallel_loops import generate as parallel_program
        return parallel_program(seed)
    if nested:
        from grammar_nested import generate as nested_program
        return nested_program(seed)
    if recursion:
        from grammar_recursion import generate as recursion_program
        return recursion_program(seed)
    if records:
        from grammar_records import generate as records_program
        return records_program(seed)
    if second_order:
        from grammar_second_order import generate as second_order_program
        if "second-order-reach" in shapes:  # while loops, linalg, np.where inline
            from grammar_second_order_reach import generate as second_order_program
        if "second-order-contractions" in shapes:  # einsum, tensordot, inner, multi_dot, @
            from grammar_second_order_contractions import generate as second_order_program
        return second_order_program(seed)
    if functions:
        from grammar_functions import generate as functions_program
        return functions_program(seed)
    if effects:
        from grammar_effects import generate as effects_program
        return effects_program(seed)
    if views:
        from grammar_views import generate as views_program
        return views_program(seed, chained="chained-targets" in shapes)
    if containers:
        from grammar_containers import generate as container_program
        return container_program(seed)
    if lists:
        from grammar_lists import generate as lists_program
        return lists_program(seed, arrays=arrays, operations=list_operations,
                             calls="list-calls" in shapes, unbounded=unbounded,
                             aliasing=aliasing)
    if python:
        from grammar_python import generate as python_program
        return python_program(seed)
    if "numpy-semantics" in shapes and not arrays:
        from grammar_numpy_semantics import generate as numpy_semantics_program
        return numpy_semantics_program(seed, overflow="int-overflow" in shapes)
    generator = Generator(seed, nests, shapes)
    return generator.array_program() if arrays else generator.program()


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
