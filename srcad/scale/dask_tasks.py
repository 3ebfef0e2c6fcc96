"""The tasks srcad.dask runs on Dask workers, and how a gradient submits them to a client.

A chunk task computes (value, gradient) of f on one chunk of rows; `add_partials` adds such
pairs. For data persisted on a distributed Client (`data = data.persist()`, the form an
optimizer's repeated gradients want), `value_and_gradient_on` submits plain tasks:

- the persisted array holds one future per chunk. A gradient is `client.map` of the chunk task
  over those futures: one message to the scheduler naming C small tasks, with no array graph
  to build, optimize or ship.
- the C partial results (one float and the gradient each) come back to the client in one
  gather and are added there in chunk order: no addition tasks, no partial result moving from
  worker to worker. Only when they would exceed GATHERED_FLOATS floats in all are they added
  on the workers instead, in a tree of SPLIT_EVERY at a time. While the client waits for
  them it counts the finished chunks on a progress bar (srcad.build.progress: shown only when
  one gradient takes more than a couple of seconds).
"""

from __future__ import annotations

import importlib
import sys
from dataclasses import dataclass

import numpy as np

from srcad.annotations import Duplicated, ReverseWithPrimal
from srcad.build.differentiate import autodiff
from srcad.build.progress import Progress
from srcad.errors import ArgumentError
from srcad.scale.shipped_source import ShippedFunction

SPLIT_EVERY = 8  # partial results added per reduction task on the workers
GATHERED_FLOATS = 2**22  # partial results added on the client up to this many floats in all


@dataclass(frozen=True)
class FunctionReference:
    """f by module and qualified name: what a task sends instead of f's code (a function of
    `__main__`, which workers cannot import, is sent as its source text: ShippedFunction; so
    is one its module does not hold under its name, as a doctest's or an exec'd one)."""

    module: str
    qualname: str

    @classmethod
    def of(cls, f) -> FunctionReference:
        f = getattr(f, "__srcad_wrapped__", f)
        module, qualname = getattr(f, "__module__", None), getattr(f, "__qualname__", "")
        if module == "__main__":  # a script's or a notebook's: sent as its source text
            return ShippedFunction.of(f)
        if module is None or "<locals>" in qualname:
            raise ArgumentError(f"srcad.dask sends {getattr(f, '__name__', f)!r} to the workers "
                                "by module and name, and it is not importable there "
                                f"({'defined inside a function' if module else 'no module'})",
                                construct="srcad.dask", hint="define f at the top level of a "
                                "module the workers can import (client.upload_file ships one), "
                                "of a script or of a notebook")
        if not _found_as(f, module, qualname):  # a doctest's, exec'd, or its name rebound since
            return ShippedFunction.of(f)
        return cls(module, qualname)

    def resolve(self):
        target = importlib.import_module(self.module)
        for part in self.qualname.split("."):
            target = getattr(target, part)
        return target


def _found_as(f, module: str, qualname: str) -> bool:
    """Whether `module.qualname` is f here (else a worker importing it would find another
    function, or none); a module this process has not imported is taken on trust."""
    target = sys.modules.get(module)
    if target is None:
        return True
    for part in qualname.split("."):
        target = getattr(target, part, None)
    return getattr(target, "__srcad_wrapped__", target) is f


def chunk_value_and_gradient(chunk, reference, params, contexts, backend):
    """On a worker: (value, gradient) of f on one chunk of rows."""
    f = reference.resolve()
    gradient = np.zeros_like(params)
    _, value = autodiff(ReverseWithPrimal, f, Duplicated(params, gradient), np.asarray(chunk),
                        *contexts, backend=backend)
    return float(value), gradient


def add_partials(*partials):
    """The sum of (value, gradient) pairs, added in the order given."""
    value, gradient = partials[0][0], partials[0][1].copy()
    for v, g in partials[1:]:
        value += v
        gradient += g
    return value, gradient


def chunk_futures(client, data):
    """data's chunks of rows as futures of `client`, in row order; None when data is not
    persisted on that client."""
    from dask.core import flatten
    from distributed import Future

    graph = data.__dask_graph__()
    futures = [graph.get(key) for key in flatten(data.__dask_keys__())]
    if all(isinstance(future, Future) and future.client is client for future in futures):
        return futures
    return None


def value_and_gradient_on(client, futures, reference, params, contexts, backend):
    """(value, gradient) of the function `reference` names over the chunks of rows that
    `futures` (of `client`, in row order) hold, computed where they live."""
    # pure=False: the keys are one random token and the chunk's index (Dask tokenizes neither
    # params nor contexts)
    partials = client.map(chunk_value_and_gradient, futures, key="srcad-chunk", pure=False,
                          reference=reference, params=params, contexts=contexts,
                          backend=backend)
    if len(partials) * (params.size + 1) <= GATHERED_FLOATS:
        _follow(partials)
        return add_partials(*client.gather(partials))
    while len(partials) > 1:
        partials = [client.submit(add_partials, *partials[k:k + SPLIT_EVERY], pure=False)
                    for k in range(0, len(partials), SPLIT_EVERY)]
    return partials[0].result()


def _follow(partials) -> None:
    """Wait for the chunk tasks, counting them on a progress bar (shown when one gradient
    takes more than a couple of seconds: srcad.build.progress)."""
    from distributed import as_completed

    with Progress(len(partials), "srcad.dask chunks") as progress:
        for _ in as_completed(partials):
            progress.step()
