"""Several differentiated arguments as one: `fun` called with the arguments in `argnums` taken
from one list, so srcad's container operators (a Jacobian or Hessian with respect to a
dict, list or tuple, srcad/operators/containers/) give the blocks between arguments.

The packed function is a plain function with source, which srcad differentiates by inlining
`fun`:

    def loss_packed(packed, arg1):
        return loss(packed[0], arg1, packed[1])

(`weighted`: `return np.sum(loss(...) * weights)`, the weighted sum of an array output, whose
Hessian is one slice of the Hessian of every output). Tuples among the arguments are passed
as lists (a float's derivative is stored in its list: srcad/api/primals.py), and every block
is given back in the structure the user passed (`unpacked`).
"""

from __future__ import annotations

from srcad.annotations import Constant
from srcad.api.primals import as_lists
from srcad.frontend import pytrees
from srcad.frontend.lambdas import function_name
from srcad.frontend.source_functions import compile_source


class Packed:
    """The packed functions of a transform's functions (`fun`, or its value alone with
    has_aux), one per (function, argument count, argnums, weighted)."""

    def __init__(self):
        self.functions = {}

    def function(self, fun, count: int, wrt: tuple, weighted: bool = False):
        key = (fun, count, wrt, weighted)
        function = self.functions.get(key)
        if function is None:
            name = f"{function_name(fun, 'fun')}_packed"
            params = ["packed"] + [f"arg{i}" for i in range(count) if i not in wrt]
            params += ["weights"] if weighted else []
            call = ", ".join(f"packed[{wrt.index(i)}]" if i in wrt else f"arg{i}"
                             for i in range(count))
            value = f"np.sum(fun({call}) * weights)" if weighted else f"fun({call})"
            source = f"def {name}({', '.join(params)}):\n    return {value}\n"
            function = self.functions[key] = compile_source(source, name, {"fun": fun})
        return function

    def weighted(self, fun, count: int):
        """`def fun_weighted(arg0, ..., weights): return np.sum(fun(arg0, ...) * weights)`."""
        key = (fun, count, "weighted")
        function = self.functions.get(key)
        if function is None:
            name = f"{function_name(fun, 'fun')}_weighted"
            params = ", ".join(f"arg{i}" for i in range(count))
            source = (f"def {name}({params}, weights):\n"
                      f"    return np.sum(fun({params}) * weights)\n")
            function = self.functions[key] = compile_source(source, name, {"fun": fun})
        return function

    @staticmethod
    def operands(args, wrt, weights=None) -> list:
        """The packed function's operands: the list of differentiated arguments (bare), the
        others as constants, then the weights (a constant)."""
        operands = [[as_lists(args[i]) for i in wrt]]
        operands += [Constant(a) for i, a in enumerate(args) if i not in wrt]
        return operands + ([Constant(weights)] if weights is not None else [])


def unpacked(block, given):
    """`block`, a container like the list-form of `given` (or a leaf), in `given`'s own
    structure (its tuples back)."""
    if not pytrees.is_container(given):
        return block
    return pytrees.unflatten(pytrees.treedef(given), pytrees.leaves(block))


def hessian_blocks(H, values):
    """The Hessian of a packed function (a list like the packed arguments, each leaf a list
    like them) as JAX lays it out: H[i] has argument i's structure, and each of its leaves
    is a tuple with one entry per argument j in j's structure (H[i][j] for arrays)."""
    out = []
    for i, given_i in enumerate(values):
        tree_i = pytrees.treedef(as_lists(given_i))
        leaves = [tuple(unpacked(pytrees.get(H[i], path)[j], given_j)
                        for j, given_j in enumerate(values))
                  for path in pytrees.paths(tree_i)]
        out.append(pytrees.unflatten(pytrees.treedef(given_i), leaves))
    return tuple(out)
