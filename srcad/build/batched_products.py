"""vmap's loop over generated reverse code: a matrix product of an unmapped argument and an
example's own argument computed for the whole batch before the loop.

Per-example gradients of a layer (`np.tanh(w @ x)` with `w` shared and `x` the example's)
make one matrix-vector product per example in the loop over the examples: a BLAS call and a
new array each time. Where the generated reverse code's product `array_matmul(a, b)` (or
`a @ b`) reads two of its arguments as they came, one mapped and one not, and the code binds
neither name again, the loop is handed the products of the whole batch, made by one NumPy
`matmul` before it (one matrix-matrix product where each example made a matrix-vector one),
and the reverse code takes its example's row in place of the call:

    tanh = array_tanh(array_matmul(w, x))   ->   tanh = array_tanh(hoisted_product_0)

The row is a new array of the product's value (each occurrence of a product in the code gets
its own batch of them, so code that writes into the one it is handed writes no other
example's or occurrence's); its last bits may differ from the matrix-vector product's where
BLAS sums in another order. Operands of 1 and 2 axes, float64 (others keep the call).
"""

from __future__ import annotations

import ast
import inspect
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from srcad.build.compiler import _kernel_of, _kernels, _module, _module_path, _modules_lock
from srcad.build.numba_fastmath import fastmath_flags
from srcad.build.numba_level import numba_level
from srcad.build.numba_module import numba_module
from srcad.frontend.source_functions import function_from_source


@dataclass(frozen=True)
class Product:
    """One hoisted product: the reverse code's keyword `name` takes its example's row of
    the batch product of leaves `left` @ `right` (positions in vmap's leaves; `mapped`: which
    of the two carries the batch)."""

    name: str
    left: int
    right: int
    mapped: str  # "left" or "right"

    def batch(self, leaves):
        """The products of every example, the batch first."""
        a, b = leaves[self.left], leaves[self.right]
        if self.mapped == "left":
            return np.matmul(a, b)
        if np.ndim(b) == 2:  # an example's vector: the rows of the batch times a's rows
            return np.matmul(b, a.T)
        return np.matmul(a, b)


@dataclass(frozen=True)
class Hoisted:
    """The reverse code taking its products as keywords (`function`: the python backend's;
    the numba backend's is compiled with its loop, `numba_loop`), the products, and the
    source of the module defining it."""

    function: object
    products: tuple
    text: str


def hoisted_products(compiled, parameters, axes, examples, backend):
    """The reverse function `compiled` with its products of an unmapped and a mapped argument
    taken as keyword parameters, or None where it has none (or its source is not at hand).
    `parameters`: {reverse code parameter name: position in vmap's leaves} of the arguments
    (not their shadows)."""
    function = compiled.function
    python = getattr(function, "py_func", None if backend == "numba" else function)
    try:
        path = python.__code__.co_filename
        text = Path(path).read_text() if backend == "numba" else inspect.getsource(python)
        tree = ast.parse(text)
    except (AttributeError, OSError, TypeError, SyntaxError):
        return None
    definition = next((d for d in tree.body if isinstance(d, ast.FunctionDef)
                       and d.name == python.__name__), None)
    if definition is None:
        return None
    own = set(map(id, definition.args.args))
    bound = {n.id for n in ast.walk(definition) if isinstance(n, ast.Name)
             and not isinstance(n.ctx, ast.Load)}
    # a parameter of a lambda or nested function inside is another variable of that name
    bound |= {a.arg for a in ast.walk(definition) if isinstance(a, ast.arg)
              and id(a) not in own}
    taken = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} | \
        {a.arg for a in ast.walk(tree) if isinstance(a, ast.arg)}
    candidates = {name: k for name, k in parameters.items() if name not in bound
                  and _operand(examples[k])}
    rewriter = _Products(candidates, axes, examples, taken)
    rewriter.visit(definition)
    if not rewriter.products:
        return None
    for product in rewriter.products:
        definition.args.args.append(ast.arg(arg=product.name))
        definition.args.defaults.append(ast.Constant(value=None))
    source = ast.unparse(ast.fix_missing_locations(tree)) + "\n"
    if backend == "numba":  # compiled with the loop calling it (`numba_loop`)
        return Hoisted(None, tuple(rewriter.products), source)
    variant = function_from_source(source, definition.name, dict(python.__globals__))
    return Hoisted(variant, tuple(rewriter.products), source)


def numba_loop(compiled, hoisted, loop_source, loop_name):
    """(numba's dispatcher of the vmap loop `loop_source`, of the reverse code it calls), both
    in one module with that code (the generated module, or its variant taking the batch
    products) written to the cache folder as srcad writes its generated modules
    (srcad/build/compiler.py): numba's disk cache keeps the loop's machine code too, where a
    loop made in memory was compiled again in every process. None where the reverse code is
    not the function of a generated module."""
    python = getattr(compiled.function, "py_func", None)
    try:
        text = hoisted.text if hoisted else Path(python.__code__.co_filename).read_text()
    except (AttributeError, OSError):
        return None
    name, flags, level = python.__name__, fastmath_flags(), numba_level()
    text += (f"\n\nimport numba as srcad_numba\n\n{name} = srcad_numba.njit(cache=True, "
             f"nogil=True, fastmath={set(flags)!r})({name})\n\n\n{loop_source}")
    path = _module_path(loop_name, text, numba_module().__version__, level, flags)
    with _modules_lock:
        module = _module(path, text)
        kernel = _kernels.get(path)
        if kernel is None:
            kernel = _kernels[path] = _kernel_of(module, loop_name, True, level, flags)
    return kernel, getattr(module, name)


def _operand(example) -> bool:
    return isinstance(example, np.ndarray) and example.dtype == np.float64 \
        and example.ndim in (1, 2)


class _Products(ast.NodeTransformer):
    def __init__(self, candidates, axes, examples, taken):
        self.candidates, self.axes, self.examples = candidates, axes, examples
        self.taken, self.products = set(taken), []

    def visit_Call(self, node):
        self.generic_visit(node)
        if isinstance(node.func, ast.Name) and node.func.id == "array_matmul" \
                and len(node.args) == 2 and not node.keywords:
            return self._hoisted(node, *node.args)
        return node

    def visit_BinOp(self, node):
        self.generic_visit(node)
        if isinstance(node.op, ast.MatMult):
            return self._hoisted(node, node.left, node.right)
        return node

    def _hoisted(self, node, left, right):
        if not (isinstance(left, ast.Name) and isinstance(right, ast.Name)
                and left.id in self.candidates and right.id in self.candidates):
            return node
        i, j = self.candidates[left.id], self.candidates[right.id]
        mapped = [self.axes[i] is not None, self.axes[j] is not None]
        if mapped.count(True) != 1:
            return node
        a, b = self.examples[i], self.examples[j]
        if a.ndim == b.ndim == 1 or a.shape[-1] != b.shape[0]:  # a number, or a refusal
            return node
        name = _fresh(f"hoisted_product_{len(self.products)}", self.taken)
        self.products.append(Product(name, i, j, "left" if mapped[0] else "right"))
        return ast.copy_location(ast.Name(id=name, ctx=ast.Load()), node)


def _fresh(name, taken):
    while name in taken:
        name += "_"
    taken.add(name)
    return name
