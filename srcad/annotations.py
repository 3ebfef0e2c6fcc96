"""Enzyme-style argument annotations and modes.

A bare argument means `Const`. `Duplicated(x, dx)`: in reverse mode the derivative is ADDED
into `dx`; in forward mode `dx` is the tangent seed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


class Annotation:
    __slots__ = ()  # the subclasses too (slots=True): one is built per argument per call
    kind = "const"


@dataclass(slots=True)
class Const(Annotation):
    """No derivative; the value is read (and possibly written) as is. A bare argument is
    `Const` too.

    >>> import srcad
    >>> def f(x, a):
    ...     return a * x * x
    >>> srcad.autodiff(srcad.Reverse, f, srcad.Active(3.0), srcad.Const(2.0))
    (12.0, None)
    """

    value: Any
    kind = "const"


@dataclass(slots=True)
class Active(Annotation):
    """A float scalar whose derivative is returned (reverse mode).

    >>> import srcad
    >>> def f(x, a):
    ...     return a * x * x
    >>> srcad.autodiff(srcad.Reverse, f, srcad.Active(3.0), 2.0)
    (12.0, None)
    """

    value: Any
    kind = "active"


@dataclass(slots=True)
class Duplicated(Annotation):
    """A float array with a shadow of the same shape and dtype: reverse mode adds the
    derivative into the shadow; forward mode reads the shadow as the tangent.

    >>> import numpy as np, srcad
    >>> def f(x):
    ...     return float(np.sum(x * x))
    >>> x, dx = np.array([1.0, 2.0]), np.zeros(2)
    >>> srcad.autodiff(srcad.Reverse, f, srcad.Duplicated(x, dx))
    (None,)
    >>> dx
    array([2., 4.])
    >>> srcad.autodiff(srcad.Forward, f, srcad.Duplicated(x, np.array([1.0, 0.0])))
    2.0
    """

    value: Any
    shadow: Any
    kind = "duplicated"


@dataclass(slots=True)
class DuplicatedNoNeed(Duplicated):
    """Like Duplicated; the primal result may be skipped (srcad computes it anyway).

    >>> import numpy as np, srcad
    >>> def f(x):
    ...     return float(np.sum(x * x))
    >>> dx = np.zeros(2)
    >>> srcad.autodiff(srcad.Reverse, f, srcad.DuplicatedNoNeed(np.array([1.0, 2.0]), dx))
    (None,)
    >>> dx
    array([2., 4.])
    """

    kind = "duplicated"


@dataclass(frozen=True)
class Mode:
    """A mode of differentiation, the first argument of `autodiff` and `source`: one of
    `srcad.Reverse`, `srcad.ReverseWithPrimal`, `srcad.Forward`, `srcad.ForwardWithPrimal`.

    >>> import srcad
    >>> srcad.Reverse
    srcad.Reverse
    """

    name: str
    reverse: bool
    with_primal: bool

    def __repr__(self):
        return f"srcad.{self.name}"


Reverse = Mode("Reverse", True, False)
"""Reverse mode (adjoint): one derivative per argument in one pass, the derivative of an
`Active` argument returned, that of a `Duplicated` one added into its shadow.

>>> import srcad
>>> srcad.autodiff(srcad.Reverse, lambda x, y: x * y, srcad.Active(3.0), srcad.Active(4.0))
(4.0, 3.0)
"""
ReverseWithPrimal = Mode("ReverseWithPrimal", True, True)
"""Reverse mode that returns `(derivatives, value)`: the value of `f` too.

>>> import srcad
>>> srcad.autodiff(srcad.ReverseWithPrimal, lambda x: x * x, srcad.Active(3.0))
((6.0,), 9.0)
"""
Forward = Mode("Forward", False, False)
"""Forward mode (tangent): the derivative of the return value in the direction of the
shadows of the `Duplicated` arguments, in one pass.

>>> import srcad
>>> srcad.autodiff(srcad.Forward, lambda x: x * x * x, srcad.Duplicated(2.0, 1.0))
12.0
"""
ForwardWithPrimal = Mode("ForwardWithPrimal", False, True)
"""Forward mode that returns `(tangent, value)`: the value of `f` too.

>>> import srcad
>>> srcad.autodiff(srcad.ForwardWithPrimal, lambda x: x * x, srcad.Duplicated(3.0, 1.0))
(6.0, 9.0)
"""


@dataclass(slots=True)
class BatchDuplicated(Annotation):
    """A float (scalar or array) with W shadows: a sequence of W shadows, or one array whose
    leading axis is W. Forward mode propagates all W tangent directions in one call.

    >>> import numpy as np, srcad
    >>> def f(x):
    ...     return float(np.sum(x * x))
    >>> x = np.array([1.0, 2.0])
    >>> srcad.autodiff(srcad.Forward, f, srcad.BatchDuplicated(x, np.eye(2)))
    array([2., 4.])
    """

    value: Any
    shadows: Any
    kind = "batch"


@dataclass(slots=True)
class BatchDuplicatedNoNeed(BatchDuplicated):
    """Like BatchDuplicated; the primal result may be skipped (srcad computes it anyway).

    >>> import numpy as np, srcad
    >>> def f(x):
    ...     return float(np.sum(x * x))
    >>> x = np.array([1.0, 2.0])
    >>> srcad.autodiff(srcad.Forward, f, srcad.BatchDuplicatedNoNeed(x, np.eye(2)))
    array([2., 4.])
    """

    kind = "batch"


# Contexts of the operators (DifferentiationInterface style): every argument but the one we
# differentiate with respect to says what it is.
@dataclass(slots=True)
class Constant:
    """Read-only data of an operator call: no derivative flows through it.

    >>> import srcad
    >>> def f(x, a):
    ...     return a * x * x
    >>> srcad.gradient(f, 3.0, srcad.Constant(2.0))
    12.0
    """

    value: Any


@dataclass(slots=True)
class Cache:
    """Scratch storage: its value on entry does not matter and f may overwrite it; srcad owns
    its shadow (allocated at preparation, zeroed on each call).

    >>> import numpy as np, srcad
    >>> def f(x, buf):
    ...     buf[0] = x * x
    ...     return buf[0] * 2.0
    >>> srcad.gradient(f, 3.0, srcad.Cache(np.zeros(1)))
    12.0
    """

    value: Any


@dataclass(slots=True)
class Output:
    """An array f writes its result into (f returns None): `f(y, x, ...)`.

    >>> import numpy as np, srcad
    >>> def f(y, x):
    ...     y[0] = x[0] * x[1]
    ...     y[1] = x[1]
    >>> srcad.jacobian(f, srcad.Output(np.zeros(2)), np.array([2.0, 3.0]))
    array([[3., 2.],
           [0., 1.]])
    """

    value: Any
