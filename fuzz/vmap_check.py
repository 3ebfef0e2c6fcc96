"""Fuzz `srcad.vmap` with the grammar's random programs: each program vmapped over a batch
against a Python loop over its examples.

    python fuzz/vmap_check.py --count 300 [--seed 0] [--arrays] [--grad] [--backend numba]

For each seed, the program of fuzz/generator.py (plain loops, or whole-array programs with
`--arrays`) and its inputs are the seed's own; what vmap adds comes from
`random.Random(f"vmap {seed}")`, so the programs stay the ones every other check sees: a
batch size (1-4), which float arguments are mapped and along which axis (negative axes too;
an int or index argument never), and the examples (the input scaled by 1 + 0.03 k; in one
batch of five, one element of one example is NaN, where Python's `min`/`max`, comparisons and
branches must keep their per-example meaning). The
batched call `srcad.vmap(f, in_axes)(*batch)` must give the loop's results stacked (to 1e-10;
nan where the loop has nan), or raise where an example raises; the caller's arrays must be
left as they were. With `--grad`, float-valued programs are also checked as per-example
gradients, `vmap(grad(f, argnums=k))` against the loop of `srcad.grad(f, argnums=k)`. With
`--arrays` the programs also multiply arguments as given (fuzz/grammar_argument_products.py);
a loop that takes a product made for the whole batch is counted apart.

Outcomes: lifted / looped (agreed, by the form of the generated code; the looped ones are
counted by the reason the body was not lifted), raised (both raised), disagreed, crashed
(vmap raised, the loop did not), skipped (no inputs), timeout.
"""

from __future__ import annotations

import argparse
import collections
import os
import random
import signal
import sys
import traceback

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path[:0] = [p for p in (ROOT, HERE) if p not in sys.path]

import vmap_forms  # noqa: E402
from checking import load_module  # noqa: E402
from generator import generate  # noqa: E402
from inputs import choose_inputs  # noqa: E402
from program import module_text  # noqa: E402

import srcad  # noqa: E402

FLOAT_KINDS = ("dup", "active")


class Timeout(Exception):
    pass


def _alarm(signum, frame):
    raise Timeout()


def batch_of(program, values, rnd):
    """(in_axes, the batched arguments, the batch size)."""
    size = rnd.randint(1, 4)
    in_axes, batch = [], []
    for arg, value in zip(program.args, values):
        if arg.kind not in FLOAT_KINDS or rnd.random() < 0.4:
            in_axes.append(None)
            # an index list as an int array: a list would be a pytree of ints
            batch.append(np.array(value) if arg.kind == "index" else value)
            continue
        examples = [np.asarray(value, dtype=float) * (1.0 + 0.03 * k) for k in range(size)]
        rank = np.ndim(value)
        axis = rnd.randint(0, rank)
        if rnd.random() < 0.3:
            axis -= rank + 1  # the same axis counted from the end
        in_axes.append(axis)
        batch.append(np.stack(examples, axis=axis))
    mapped = [k for k, axis in enumerate(in_axes) if axis is not None]
    if mapped and rnd.random() < 0.2:  # a NaN in one element of one example
        hostile = batch[rnd.choice(mapped)]
        hostile.flat[rnd.randrange(hostile.size)] = np.nan
    return tuple(in_axes), batch, size


def _copies(values):
    return [v.copy() if isinstance(v, np.ndarray) else list(v) if isinstance(v, list) else v
            for v in values]


def loop(f, in_axes, batch, size):
    """The examples' results, one call each on its own copies (or the exception raised)."""
    results = []
    for b in range(size):
        args = [np.take(v, b, axis=a).copy() if a is not None else v
                for v, a in zip(_copies(batch), in_axes)]
        args = [float(a) if isinstance(a, np.ndarray) and a.ndim == 0 else a for a in args]
        try:
            with np.errstate(all="ignore"):
                results.append(f(*args))
        except Exception as err:  # noqa: BLE001 - the example's own error
            return err
    return results


def agree(ours, theirs) -> bool:
    if theirs and all(t is None for t in theirs):
        return ours is None
    expected = np.array(theirs, dtype=float)
    ours = np.asarray(ours, dtype=float)
    return ours.shape == expected.shape and np.allclose(ours, expected, rtol=1e-10,
                                                         atol=1e-10, equal_nan=True)


def check_one(f, in_axes, batch, size, what, backend="python"):
    """(outcome, detail) of vmap(f) against the loop."""
    expected = loop(f, in_axes, batch, size)
    given = _copies(batch)
    axis_size = size if all(a is None for a in in_axes) else None
    batched = srcad.vmap(f, in_axes=in_axes, axis_size=axis_size, backend=backend)
    try:
        with np.errstate(all="ignore"):
            ours = batched(*given)
    except Timeout:
        raise
    except Exception as err:  # noqa: BLE001
        if isinstance(expected, Exception):
            return "raised", ""
        return "crashed", f"{what}: {type(err).__name__}: {err}"
    if isinstance(expected, Exception):
        return "disagreed", f"{what}: vmap gave {ours!r}, an example raised {expected!r}"
    for g, v in zip(given, batch):
        if isinstance(v, np.ndarray) and not np.array_equal(g, v, equal_nan=True):
            return "disagreed", f"{what}: vmap wrote the caller's array"
    if not agree(ours, expected):
        return "disagreed", f"{what}: vmap {np.asarray(ours).tolist()} != loop {expected}"
    kind, reason = batched.__srcad_vmap_form__(*_copies(batch))
    if kind != "lifted":
        products = "hoisted_product_" in batched.source(*_copies(batch))
        return "looped", (reason.split(" (line")[0] or kind) + \
            (", a product made for the batch" if products else "")
    return "lifted", ""


def check_seed(seed, arrays, grad, timeout, backend="python", forms=False):
    # products of two arguments as given (fuzz/grammar_argument_products.py): vmap of grad
    # makes them for the whole batch before its loop
    program = generate(seed, arrays=arrays,
                       shapes=frozenset({"argument-products"}) if arrays else frozenset())
    values, why = choose_inputs(program)
    if values is None:
        return [("skipped", why)]
    form = vmap_forms.choose_form(seed) if forms else None
    text = module_text(program, values)
    if form in vmap_forms.WRAPPERS:
        text += vmap_forms.wrapper_text(form, len(program.args))
    module, name = load_module(text)
    rnd = random.Random(f"vmap {seed}")
    in_axes, batch, size = batch_of(program, values, rnd)
    outcomes = []
    signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, timeout, 1.0)
    try:
        floats = [k for k, a in enumerate(program.args) if a.kind in FLOAT_KINDS]
        if form is not None:  # the form's check instead of the plain one
            outcomes.append(vmap_forms.check_form(form, module, in_axes, batch, size,
                                                  loop, agree))
            if grad and form == "nested" and program.returns_float and floats:
                k = rnd.choice(floats)
                outcomes.append(vmap_forms.check_form(
                    form, module, in_axes, batch, size, loop, agree,
                    srcad.grad(module.f, argnums=k, backend=backend)))
            return outcomes
        outcomes.append(check_one(module.f, in_axes, batch, size, "vmap", backend))
        floats = [k for k, a in enumerate(program.args) if a.kind in FLOAT_KINDS]
        if grad and program.returns_float and floats:
            k = rnd.choice(floats)
            outcomes.append(check_one(srcad.grad(module.f, argnums=k, backend=backend),
                                      in_axes, batch, size, f"vmap(grad, argnums={k})"))
    except Timeout:
        outcomes.append(("timeout", ""))
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        sys.modules.pop(name, None)
        srcad.build.cache.clear()
    return outcomes


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--count", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--arrays", action="store_true")
    parser.add_argument("--grad", action="store_true")
    parser.add_argument("--timeout", type=float, default=30.0)
    parser.add_argument("--backend", default="python", choices=("python", "numba"))
    parser.add_argument("--forms", action="store_true",
                        help="wrap each program in a form the body is not lifted for "
                        "(fuzz/vmap_forms.py): helper, container, while, nested vmap")
    options = parser.parse_args(argv)
    counts, reasons, failures = collections.Counter(), collections.Counter(), []
    for seed in range(options.seed, options.seed + options.count):
        try:
            outcomes = check_seed(seed, options.arrays, options.grad, options.timeout,
                                  options.backend, options.forms)
        except Exception as err:  # noqa: BLE001 - a harness error, reported apart
            outcomes = [("harness-error", f"{type(err).__name__}: {err}")]
            traceback.print_exc()
        for outcome, detail in outcomes:
            counts[outcome] += 1
            if outcome in ("looped", "agreed"):
                reasons[detail] += 1
            elif outcome in ("disagreed", "crashed", "harness-error"):
                failures.append((seed, outcome, detail))
    print(f"vmap fuzz ({options.backend}): seeds {options.seed}.."
          f"{options.seed + options.count - 1}"
          f"{' --arrays' if options.arrays else ''}{' --grad' if options.grad else ''}"
          f"{' --forms' if options.forms else ''}")
    for outcome in ("lifted", "looped", "agreed", "raised", "disagreed", "crashed",
                    "timeout", "skipped", "harness-error"):
        print(f"  {outcome:13s} {counts[outcome]}")
    for reason, n in reasons.most_common(8):
        print(f"    {'form' if options.forms else 'looped'}: {n:4d}  {reason[:100]}")
    for seed, outcome, detail in failures[:20]:
        print(f"  seed {seed}: {outcome}: {detail[:300]}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
