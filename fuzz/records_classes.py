"""The record classes the record programs take and build (fuzz/grammar_records.py): importable
by the program modules, which run in the fuzzer's process."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np


@dataclass
class Layer:
    W: np.ndarray
    b: np.ndarray
    g: float


class Pair(NamedTuple):
    u: np.ndarray
    c: float


@dataclass
class State:
    h: float
    v: np.ndarray
    k: float = 0.5


class Model:
    """A model whose method is differentiated bound: its attributes are constants."""

    def __init__(self, scale, A):
        self.scale, self.A = scale, A

    def loss(self, x, a):
        return self.scale * np.sum(self.A * x) * a + self.inner(x)

    def inner(self, x):
        return np.sum(x * x) * self.scale
