"""Checking one fuzz program module with srcad: import it, run `srcad.testing.check_grads`
under a time limit, and classify the outcome (agreed, refused, disagreed, fd-noise, crashed,
timeout) with a signature that groups failures of the same kind.
"""

from __future__ import annotations

import ast
import importlib.util
import itertools
import os
import re
import signal
import sys
import tempfile
import traceback

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path[:0] = [p for p in (ROOT, HERE) if p not in sys.path]

import cells  # noqa: E402
import closure_check  # noqa: E402
import composition_check  # noqa: E402
import lanes_check  # noqa: E402
import sparse_check  # noqa: E402
import stacked_check  # noqa: E402
import transforms_check  # noqa: E402
from grammar_lambdas import ENTRY  # noqa: E402

import srcad  # noqa: E402
import srcad.build.cache  # noqa: E402
from srcad.testing import check_grads  # noqa: E402
from srcad.transform import parallel_blocks  # noqa: E402

_TMP = None
_COUNTER = itertools.count()


def tmpdir() -> str:
    global _TMP
    if _TMP is None:
        _TMP = tempfile.mkdtemp(prefix="srcad_fuzz_")
    return _TMP


class Timeout(BaseException):
    """Raised by SIGALRM; a BaseException so that `except Exception` cannot swallow it."""


def _alarm(signum, frame):
    raise Timeout()


def load_module(text: str):
    if cells.enabled():  # run.py --cells: as IPython runs a cell (fuzz/cells.py)
        return cells.load_cell(text)
    path = os.path.join(tmpdir(), f"fz_{os.getpid()}_{next(_COUNTER)}.py")
    with open(path, "w") as fh:
        fh.write(text)
    name = os.path.splitext(os.path.basename(path))[0]
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    return module, name


def normalize_message(msg: str) -> str:
    msg = re.sub(r"^\S*:\d+: ", "", msg)
    msg = re.sub(r"`[^`]*`", "`_`", msg)
    msg = re.sub(r"'[^']*'", "'_'", msg)
    msg = re.sub(r"\d+(\.\d+)?", "N", msg)
    return msg[:140]


def _srcad_frame(tb) -> str:
    where = "?"
    for frame in traceback.extract_tb(tb):
        fn = frame.filename
        if "/srcad/" in fn or fn.startswith("<srcad"):
            base = "generated" if fn.startswith("<srcad") else os.path.relpath(fn, ROOT)
            where = f"{base}:{frame.name}"
    return where


def _failing_labels(message: str, rtol=1e-6, atol=1e-8):
    m = re.search(r"\(all: (\{.*\})\)\s*$", message, re.S)
    if not m:
        return ("?",)
    text = re.sub(r"\bnan\b", "None", m.group(1))
    text = re.sub(r"\binf\b", "1e999", text)
    try:
        results = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return ("?",)
    fd = results.get("finite differences")
    vals = [abs(v) for v in results.values() if v is not None]
    scale = max(max(vals, default=1.0), 1.0)
    bad = []
    for label, value in results.items():
        if label == "finite differences":
            continue
        if value is None or fd is None or not abs(value - fd) <= atol + rtol * scale:
            bad.append(label)
    return tuple(bad)


# The modes each program is checked in, one check_grads call each (so that a crash in one
# mode does not hide the others): forward, 2-lane vector, reverse.
MODES = ("fwd", "vec", "rev")

# Worst first: the overall outcome of a program is its worst mode's.
SEVERITY = ("crashed", "disagreed", "timeout", "fd-noise", "refused", "agreed")


def _check(f, args, eps, timeout, mode):
    signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, timeout, 1.0)
    try:
        with np.errstate(all="ignore"):
            check_grads(f, *args, eps=eps, modes=(mode,),
                        backend=os.environ.get("SRCAD_FUZZ_BACKEND", "python"))
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


def check_mode(f, args, mode: str, timeout: float):
    """Outcome of one mode against central differences: (category, signature, detail)."""
    try:
        _check(f, args(), 1e-6, timeout, mode)
        return "agreed", None, ""
    except srcad.SrcadError as err:
        return "refused", f"{type(err).__name__}: {normalize_message(str(err))}", str(err)
    except Timeout:
        return "timeout", "timeout", f"no answer within {timeout} s"
    except AssertionError as err:
        first = str(err)
        labels = _failing_labels(first)
        for eps in (1e-5, 1e-7):
            try:
                _check(f, args(), eps, timeout, mode)
                return "fd-noise", None, first
            except AssertionError:
                pass
        return "disagreed", f"disagrees with FD: {', '.join(labels)}", first
    except Exception as err:  # noqa: BLE001
        return _crashed(err)


def _fd_hessian(f, x, h):
    """Central differences of srcad's own gradient (itself checked by check_grads)."""
    grad = srcad.grad(f, backend=os.environ.get("SRCAD_FUZZ_BACKEND", "python"))
    return np.stack([(grad(x + h * e) - grad(x - h * e)) / (2 * h)
                     for e in np.eye(x.size)], axis=1)


def _check_second_order(f, x, timeout):
    backend = os.environ.get("SRCAD_FUZZ_BACKEND", "python")
    signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, timeout, 1.0)
    try:
        with np.errstate(all="ignore"):
            H = srcad.hessian(f, x.copy(), backend=backend)
            v = np.linspace(-1.0, 1.0, x.size) + 0.3
            Hv = srcad.hvp(f, x.copy(), tangent=v, backend=backend)
            for h in (1e-5, 1e-4, 1e-6):
                expected = _fd_hessian(f, x, h)
                scale = max(1.0, float(np.abs(expected).max()))
                if np.allclose(H, expected, rtol=1e-5, atol=1e-6 * scale):
                    break
            else:
                raise AssertionError(f"hessian {H.tolist()} != finite differences of the "
                                     f"gradient {expected.tolist()}")
            if not np.allclose(Hv, H @ v, rtol=1e-9, atol=1e-9 * scale):
                raise AssertionError(f"hvp {Hv.tolist()} != hessian @ v {(H @ v).tolist()}")
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


def check_second_order(f, args, timeout: float):
    """hessian against central differences of srcad's gradient, hvp against the hessian."""
    return _outcome(lambda: _check_second_order(f, args()[0].value, timeout), timeout,
                    "hessian or hvp disagrees")


def check_against_jax_hessian(f, jax_source: str, args, timeout: float):
    """srcad.hessian against jax.hessian of the same program written with jax.numpy."""
    def check():
        import jax  # noqa: PLC0415 - only these programs need it
        import jax.numpy as jnp  # noqa: PLC0415
        import jax.scipy.linalg  # noqa: PLC0415, F401
        jax.config.update("jax_enable_x64", True)
        namespace = {"jax": jax, "jnp": jnp}
        exec(jax_source, namespace)
        x = args()[0].value
        want = np.asarray(jax.hessian(namespace["f_jax"])(x))
        with np.errstate(all="ignore"):
            H = srcad.hessian(f, x.copy(), backend=os.environ.get("SRCAD_FUZZ_BACKEND",
                                                                   "python"))
        scale = max(1.0, float(np.abs(want).max()))
        if not np.allclose(H, want, rtol=1e-8, atol=1e-9 * scale):
            raise AssertionError(f"hessian {H.tolist()} != jax.hessian {want.tolist()}")
    return _outcome(check, timeout, "hessian disagrees with jax.hessian")


def check_transforms(f, args, timeout: float):
    """jvp, vjp and the hessian transform (fuzz/transforms_check.py)."""
    return _outcome(lambda: transforms_check.check(f, args()[0].value, timeout, _alarm),
                    timeout, "jvp, vjp or the hessian transform disagrees")


def check_composition(f, args, timeout: float, third_order: bool, containers: bool = False,
                      closures: str = ""):
    """Transforms of transforms (fuzz/composition_check.py); `closures`: the program's text
    when it is also read through a closure over a pytree (fuzz/closure_check.py)."""
    return _outcome(lambda: composition_check.check(f, args()[0].value, timeout, _alarm,
                                                    third_order, containers, closures),
                    timeout, "a composition of transforms disagrees")


def _outcome(check, timeout: float, disagreement: str):
    """(outcome, signature, detail) of running `check`, which raises AssertionError when
    srcad's answer disagrees with its reference."""
    try:
        check()
        return "agreed", None, ""
    except srcad.SrcadError as err:
        return "refused", f"{type(err).__name__}: {normalize_message(str(err))}", str(err)
    except Timeout:
        return "timeout", "timeout", f"no answer within {timeout} s"
    except AssertionError as err:
        return "disagreed", disagreement, str(err)
    except Exception as err:  # noqa: BLE001
        return _crashed(err)


def _crashed(err):
    """A crash's signature (the exception at srcad's innermost frame) and its traceback tail."""
    where = _srcad_frame(err.__traceback__)
    sig = f"{type(err).__name__} at {where}: {normalize_message(str(err))}"
    detail = "".join(traceback.format_exception(type(err), err, err.__traceback__)[-6:])
    return "crashed", sig, detail


def run_check(text: str, timeout: float = 20.0, per_mode: dict | None = None):
    """Outcome of one program module, its worst mode's: (category, signature, detail); the
    signature names the mode. `per_mode`, when given, receives each mode's outcome."""
    module, name = load_module(text)
    block = parallel_blocks.BLOCK  # fuzz/grammar_parallel_blocks.py: small blocks
    parallel_blocks.BLOCK = getattr(module, "LIFT_BLOCK", block)
    try:
        f = getattr(module, ENTRY, module.f)  # a program passed as a lambda (--lambdas)
        outcomes = {mode: check_mode(f, module.args, mode, timeout) for mode in MODES}
        if getattr(module, ENTRY, None) is None:  # batched reverse (fuzz/lanes_check.py)
            outcomes["lanes"] = _outcome(lambda: lanes_check.check(
                f, module.args, timeout, _alarm), timeout,
                "batched reverse lanes disagree with one reverse call")
        if getattr(module, "SECOND_ORDER", False):  # fuzz/grammar_second_order.py
            outcomes["hess"] = check_second_order(f, module.args, timeout)
            outcomes["jax"] = check_transforms(f, module.args, timeout)
            outcomes["compose"] = check_composition(
                f, module.args, timeout, composition_check.third_order_drawn(text),
                composition_check.containers_drawn(text),
                text if closure_check.closures_drawn(text) else "")
        if getattr(module, "STACKED_LANES", False):  # fuzz/grammar_parallel_nests.py
            outcomes["stacked"] = _outcome(lambda: stacked_check.check(
                f, module.args, timeout, _alarm), timeout,
                "stacked lanes disagree with one forward call per lane")
            outcomes["sparse"] = _outcome(lambda: sparse_check.check(
                f, module.args, timeout, _alarm), timeout,
                "the sparse jacobian disagrees with the dense one")
        if getattr(module, "JAX_SOURCE", None):  # fuzz/grammar_second_order_reach.py
            outcomes["jaxh"] = check_against_jax_hessian(f, module.JAX_SOURCE, module.args,
                                                         timeout)
    finally:
        sys.modules.pop(name, None)
        srcad.build.cache.clear()
        parallel_blocks.BLOCK = block
    if per_mode is not None:
        per_mode.update(outcomes)
    mode, (category, sig, detail) = min(outcomes.items(),
                                        key=lambda item: SEVERITY.index(item[1][0]))
    if category in ("crashed", "disagreed", "timeout"):
        sig = f"{mode}: {sig}"
    return category, sig, detail
