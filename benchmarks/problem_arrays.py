"""Problem 5: gradients of whole-array NumPy programs, every contender side by side.

Logistic regression, a 2-layer tanh MLP and an RNN (array_kernels.py): srcad's reverse mode
(python backend; numba backend where it compiles the program, else a "refused: <message>" row)
against a hand-written NumPy gradient, autograd and `jax.jit(jax.grad)` (the RNN as a
`lax.scan`). Every contender is checked against the hand-written gradient before it is timed
(and the hand-written gradients against central differences by the smoke test); the target
ratios are timed interleaved, call by call. The RNN's reverse-mode tape is measured by running
an instrumented copy of srcad's generated source (checked against the same reference).
The hand-written gradient / autograd rows bound what any gradient running at NumPy speed can
reach against autograd, whose own overhead is small beside large matrix products.
"""

from __future__ import annotations

import re
import tracemalloc
from pathlib import Path

import array_kernels as ak
import numpy as np
from harness import Skip, Suite, installed, interleaved_ratio, ratio, rel_err, run_case

S5 = "5. array programs: loss gradients of whole-array NumPy code"
SRCAD_PY = "srcad reverse, python backend"
SRCAD_NUMBA = "srcad reverse, numba backend"
HAND = "NumPy hand-written gradient"
AUTOGRAD = "autograd"
JAX = "jax.jit(jax.grad)"

# (key, case label, program, problem(size), reference, differentiated argument positions,
#  targets: {contender: (limit, contender it is compared to)})
FULL_SIZES = {"logistic": (10_000, 100), "mlp": (2000, 100, 64, 10), "rnn": (100, 64, 16)}
TINY_SIZES = {"logistic": (40, 5), "mlp": (12, 5, 4, 3), "rnn": (6, 4, 3)}


def problems(sizes):
    """[(key, case, f, args, reference, active positions)] for the given sizes."""
    N, D = sizes["logistic"]
    Nm, Dm, Hm, Km = sizes["mlp"]
    T, H, Dr = sizes["rnn"]
    return [
        ("logistic", f"logistic regression, N={N}, D={D}", ak.logistic_loss,
         ak.logistic_problem(N, D), ak.logistic_gradient_numpy, (0,)),
        ("mlp", f"2-layer tanh MLP, N={Nm}, {Dm}-{Hm}-{Km}", ak.mlp_loss,
         ak.mlp_problem(Nm, Dm, Hm, Km), ak.mlp_gradient_numpy, (0, 1, 2, 3)),
        ("rnn", f"RNN, T={T}, H={H}, D={Dr}", ak.rnn_loss, ak.rnn_problem(T, H, Dr),
         ak.rnn_gradient_numpy, (0, 1)),
    ]


def section_arrays(suite: Suite, srcad, sizes=None):
    print(f"\n{S5}")
    for key, case, f, args, reference, active in problems(sizes or FULL_SIZES):
        print(f" {case}")
        suite.extra.setdefault("arrays cases", {})[key] = case
        array_case(suite, srcad, key, case, f, args, reference, active)
        if key == "rnn":
            suite.extra["arrays rnn tape"] = measure_tape(srcad, f, args, active, reference)
            print("  tape: " + describe_tape(suite.extra["arrays rnn tape"]))


def srcad_reverse(srcad, f, args, active, backend):
    """The setup of srcad's reverse-mode contender: the shadows of the `active` arguments
    zeroed and filled by one call; a refusal (SrcadError) is a skipped row, never a crash."""
    def setup():
        if backend == "numba":
            installed("numba")
        autodiff, mode, dup = srcad.autodiff, srcad.Reverse, srcad.Duplicated
        inputs = [a.copy() for a in args]
        shadows = {i: np.zeros_like(inputs[i]) for i in active}

        def call():
            for s in shadows.values():
                s.fill(0.0)
            wrapped = [dup(a, shadows[i]) if i in shadows else a
                       for i, a in enumerate(inputs)]
            try:
                return autodiff(mode, f, *wrapped, backend=backend)
            except srcad.SrcadError as exc:  # a refusal is a row, not a crash
                raise Skip("refused: " + refusal(exc)) from None
        return call, lambda _: ak.flat(*shadows.values())
    return setup


def array_case(suite, srcad, key, case, f, args, reference, active):
    ref = reference(*args)

    def hand():
        inputs = [a.copy() for a in args]
        return (lambda: reference(*inputs)), np.asarray

    def autograd_grad():
        installed("autograd")
        grad, inputs = ak.make_autograd()[key], [a.copy() for a in args]
        return (lambda: grad(*inputs)), np.asarray

    def jax_grad():
        installed("jax")
        jax, grads = ak.make_jax()
        grad, inputs = grads[key], [jax.device_put(a) for a in args]
        return (lambda: jax.block_until_ready(grad(*inputs))), lambda out: ak.flat(
            *(np.asarray(o) for o in (out if isinstance(out, tuple) else (out,))))

    jax_name = JAX + (", lax.scan" if key == "rnn" else "")
    contenders = [(SRCAD_PY, srcad_reverse(srcad, f, args, active, "python"),
                   "includes zeroing the shadows"),
                  (SRCAD_NUMBA, srcad_reverse(srcad, f, args, active, "numba"), ""),
                  (HAND, hand, "the reference" + (" (BPTT)" if key == "rnn" else "")),
                  (AUTOGRAD, autograd_grad, ""),
                  (jax_name, jax_grad, "x64 enabled; result left on device")]
    setups = {}
    for name, setup, note in contenders:
        row = run_case(suite, S5, case, name, setup, ref=ref, note=note)
        if row.ok:
            setups[name] = setup
    # The ratios to NumPy code, timed interleaved (same drift for both contenders). Not those
    # to JAX: a JAX call right after another contender's call waits for XLA's worker threads to
    # wake up, which on a loaded machine costs more than the call (the MLP: 2.6 ms per call
    # back to back, ~20 ms interleaved with srcad); those ratios are of the medians.
    pairs = None if suite.cfg.quick else 61
    for a, b in ((SRCAD_PY, HAND), (SRCAD_PY, AUTOGRAD), (HAND, AUTOGRAD)):
        if a in setups and b in setups:
            suite.extra[f"arrays {key}: {a} / {b}"] = interleaved_ratio(
                setups[a]()[0], setups[b]()[0], suite.cfg, pairs=pairs)


def refusal(exc):
    """srcad's refusal message on one line, the file named without its directory."""
    text = " ".join(str(exc).split())
    return text.replace(str(Path(ak.__file__).parent) + "/", "")


# --------------------------------------------------------------------------------------------
# The reverse-mode tape, measured
# --------------------------------------------------------------------------------------------

TAPE_LIST = re.compile(r"^(\s*)(\w*tape\w*) = \[\]$", re.M)


class TapeProbe(list):
    """A tape list that remembers what was pushed: references, distinct arrays, their bytes."""

    def __init__(self):
        super().__init__()
        self.pushes, self.peak, self.arrays = 0, 0, {}

    def append(self, item):
        super().append(item)
        self.pushes += 1
        self.peak = max(self.peak, len(self))
        if isinstance(item, np.ndarray):
            self.arrays[id(item)] = item  # kept alive here, so ids stay distinct


def measure_tape(srcad, f, args, active, reference):
    """What srcad's generated reverse code of f keeps: the generated source with every tape list
    replaced by a TapeProbe, run once on args (and checked against the reference)."""
    from srcad.build.generated_namespace import ARRAY_RUNTIME  # what generated code calls

    wrapped = [srcad.Duplicated(a, np.zeros_like(a)) if i in active else a
               for i, a in enumerate(args)]
    source = srcad.source(f, srcad.Reverse, *wrapped)
    probes = {}

    def probe(name):
        probes[name] = TapeProbe()
        return probes[name]

    instrumented = TAPE_LIST.sub(r"\1\2 = _probe('\2')", source)
    namespace = dict(f.__globals__, **ARRAY_RUNTIME, _probe=probe)
    exec(compile(instrumented, "<instrumented reverse>", "exec"), namespace)
    reverse = namespace[re.search(r"^def (\w+)\(", source, re.M).group(1)]
    shadows = [np.zeros_like(args[i]) for i in active]
    call_args, k = [], 0
    for i, a in enumerate(args):
        call_args.append(a)
        if i in active:
            call_args.append(shadows[k])
            k += 1
    reverse(*call_args)
    err = rel_err(ak.flat(*shadows), reference(*args))
    inputs = {id(a) for a in args}
    kept = [a for p in probes.values() for key, a in p.arrays.items() if key not in inputs]
    steps = args[2].shape[0]

    # the same reverse call through srcad, its peak memory over the primal's (tracemalloc)
    def peak(call):
        tracemalloc.start()
        call()
        _, top = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        return top

    primal_peak = peak(lambda: f(*args))
    reverse_peak = peak(lambda: srcad.autodiff(srcad.Reverse, f, *wrapped))
    pushes = [line.strip() for line in source.split("# reverse sweep")[0].splitlines()
              if ".append(" in line]
    return {"steps": steps, "hidden": args[0].shape[0], "tapes": sorted(probes),
            "pushes": sum(p.pushes for p in probes.values()), "push lines": pushes,
            "peak entries": sum(p.peak for p in probes.values()),
            "arrays kept": len(kept), "bytes kept": sum(a.nbytes for a in kept),
            "inputs kept": sum(key in inputs for p in probes.values() for key in p.arrays),
            "copies": "copy" in source.split("# reverse sweep")[0],
            "extra peak bytes": reverse_peak - primal_peak, "err": err}


def describe_tape(tape):
    T, H = tape["steps"], tape["hidden"]
    return (f"{tape['pushes']} pushes ({tape['pushes'] / T:g} per step: "
            f"{'; '.join(tape['push lines'])}), {tape['arrays kept']} distinct new arrays "
            f"= {tape['bytes kept']:,} bytes (T*H*8 = {T * H * 8:,}), "
            f"{tape['inputs kept']} input array(s) referenced, "
            f"{'copies' if tape['copies'] else 'no copies'}; peak memory of the reverse call "
            f"over the primal's (tracemalloc) {tape['extra peak bytes']:,} bytes; "
            f"instrumented gradient rel. err {tape['err']:.1e}")


# --------------------------------------------------------------------------------------------
# Targets (rendered by report.py)
# --------------------------------------------------------------------------------------------

TARGETS = [  # (problem, numerator, denominator, limit or None for information)
    ("logistic", SRCAD_PY, HAND, 1.5), ("logistic", SRCAD_PY, AUTOGRAD, 0.5),
    ("logistic", HAND, AUTOGRAD, None), ("logistic", SRCAD_PY, JAX, None),
    ("mlp", SRCAD_PY, HAND, 1.5), ("mlp", SRCAD_PY, AUTOGRAD, 0.5), ("mlp", HAND, AUTOGRAD, None),
    ("mlp", SRCAD_PY, JAX, None),
    ("rnn", SRCAD_PY, HAND, 2.0), ("rnn", SRCAD_PY, AUTOGRAD, 0.5), ("rnn", HAND, AUTOGRAD, None),
    ("rnn", SRCAD_PY, JAX + ", lax.scan", None), ("rnn", SRCAD_NUMBA, JAX + ", lax.scan", 1.0),
    ("logistic", SRCAD_NUMBA, JAX, 1.0), ("mlp", SRCAD_NUMBA, JAX, 1.0),
]


def targets(suite: Suite):
    """[(description, measured ratio or None, target text, met: True/False/None, why)]"""
    cases = suite.extra.get("arrays cases")
    if not cases:
        return []
    out = []
    for key, a, b, limit in TARGETS:
        case = cases[key]
        rows = [suite.find(S5, case, name) for name in (a, b)]
        interleaved = not b.startswith(JAX)
        value = (suite.extra.get(f"arrays {key}: {a} / {b}") if interleaved
                 else ratio(*rows))
        why = ""
        for name, row in zip((a, b), rows):
            if row is None or not row.ok:
                why = why or f"{name}: {'not run' if row is None else row.status}"
        how = "timed interleaved" if interleaved else "medians, each timed back to back"
        desc = f"{a} / {b}, {case}, {how}"
        if limit is None:
            out.append((desc, value, "(information)", None, why))
        else:
            out.append((desc, value, f"<= {limit:g}", None if value is None else value <= limit,
                        why))
    tape = suite.extra.get("arrays rnn tape")
    if tape:
        T, H = tape["steps"], tape["hidden"]
        out.append((f"reverse-mode tape of the RNN ({cases['rnn']}): distinct arrays kept alive "
                    f"beyond the inputs, bytes", None, f"<= T*H*8 = {T * H * 8:,}",
                    tape["bytes kept"] <= T * H * 8 and tape["err"] <= 1e-6,
                    f"{tape['arrays kept']} arrays, {tape['bytes kept']:,} bytes; "
                    f"{tape['pushes']} references"))
    return out
