"""The forms of `srcad.vmap` a body is not lifted for, over the grammar's random programs
(`python fuzz/vmap_check.py --forms`): each seed's program f (fuzz/generator.py) and batch
(vmap_check.batch_of) are the ones the plain vmap check sees; which form wraps f comes from
`random.Random(f"vmap forms {seed}")`, its own stream, so old seeds keep their programs:

* helper: `def g(a0, ...): return f(a0, ...)`, f called as the user's helper on batched values;
* container: `def g(p): return f(p["a0"], ...)`, the arguments in a dict mapped by a dict of
  axes (`{"a0": 1, "a1": None}`), as JAX takes a pytree prefix;
* while: `def g(a0, ..., n)` calling f once more per trip of a `while k < n`, n mapped (0, 1,
  2, ... per example): the trip count differs between examples;
* nested: `vmap(vmap(f, in_axes), in_axes=outer)` over two stacked batches (the second the
  first scaled by 1.01), mapped arguments along a new axis 0; with `--grad`, also
  `vmap(vmap(grad(f, argnums=k)))` of a float-valued f against the loop of `srcad.grad`.

The reference is the plain Python loop of vmap_check (`loop`, passed in) over f's examples
(over g's for while), each example on its own copies; the batched result must agree to
1e-10 (nan where the loop has nan) or raise where an example raises.
"""

from __future__ import annotations

import random

import numpy as np

import srcad

FORMS = ("helper", "container", "while", "nested")

WRAPPERS = {
    "helper": "def g({params}):\n    return f({params})\n",
    "container": "def g(p):\n    return f({reads})\n",
    "while": ("def g({params}, n):\n    k = 0\n    out = f({params})\n"
              "    while k < n:\n        k += 1\n        out = f({params})\n    return out\n"),
}


def wrapper_text(form: str, count: int) -> str:
    """The source of g for `form`, appended to the program's module."""
    params = ", ".join(f"a{i}" for i in range(count))
    reads = ", ".join(f'p["a{i}"]' for i in range(count))
    return "\n\n" + WRAPPERS[form].format(params=params, reads=reads)


def choose_form(seed: int) -> str:
    return random.Random(f"vmap forms {seed}").choice(FORMS)


def _copies(values):
    return [v.copy() if isinstance(v, np.ndarray) else v for v in values]


def _run(batched, args):
    with np.errstate(all="ignore"):
        return batched(*args)


def check_form(form, module, in_axes, batch, size, loop, agree, fun=None):
    """(outcome, detail) of one form over f (module.f, or `fun`: nested vmap of a gradient;
    module.g the wrapper): `loop` and `agree` are vmap_check's reference loop and
    comparison."""
    f = module.f if fun is None else fun
    expected = None
    try:
        if form == "helper":
            expected = loop(f, in_axes, batch, size)
            ours = _run(srcad.vmap(module.g, in_axes=tuple(in_axes),
                                   axis_size=_size(in_axes, size)), _copies(batch))
        elif form == "container":
            expected = loop(f, in_axes, batch, size)
            axes = {f"a{i}": a for i, a in enumerate(in_axes)}
            params = {f"a{i}": v for i, v in enumerate(_copies(batch))}
            ours = _run(srcad.vmap(module.g, in_axes=(axes,),
                                   axis_size=_size(in_axes, size)), [params])
        elif form == "while":
            trips = np.arange(size) % 3
            expected = loop(module.g, list(in_axes) + [0], list(batch) + [trips], size)
            ours = _run(srcad.vmap(module.g, in_axes=tuple(in_axes) + (0,)),
                        _copies(batch) + [trips])
        else:
            outer = [0 if a is not None else None for a in in_axes]
            stacked = [np.stack([v, v * 1.01]) if a is not None else v
                       for v, a in zip(batch, in_axes)]
            expected = []
            for o in range(2):
                example = [np.take(v, o, axis=0) if a is not None else v
                           for v, a in zip(stacked, outer)]
                one = loop(f, in_axes, example, size)
                if isinstance(one, Exception):
                    expected = one
                    break
                expected.append(one)
            if all(a is None for a in in_axes):
                return "skipped", "nested: nothing mapped"
            inner = srcad.vmap(f, in_axes=tuple(in_axes))
            ours = _run(srcad.vmap(inner, in_axes=tuple(outer)), _copies(stacked))
    except Exception as err:  # noqa: BLE001 - the batched call's error
        if isinstance(expected, Exception):
            return "raised", ""
        return "crashed", f"{form}: {type(err).__name__}: {err}"
    if isinstance(expected, Exception):
        return "disagreed", f"{form}: vmap gave a result, an example raised {expected!r}"
    if form == "nested":  # both batches' examples, the outer batch first
        flat = expected[0] + expected[1]
        good = agree(ours if ours is None or not np.ndim(ours) else np.reshape(
            ours, (2 * size,) + np.shape(ours)[2:]), flat)
    else:
        good = agree(ours, expected)
    if not good:
        return "disagreed", f"{form}: vmap {np.asarray(ours).tolist()} != loop {expected}"
    return "agreed", form


def _size(in_axes, size):
    return size if all(a is None for a in in_axes) else None
