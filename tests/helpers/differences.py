"""Central finite differences: the reference every derivative test compares against."""
import numpy as np


def central(f, x, *rest, h=1e-6):
    """The derivative of f (float or array valued) at x (a float or an array) by central
    differences along every element of x: shape f's output + x's shape. `rest` is passed after x
    unchanged. Each evaluation gets its own copy of x, so f may write its argument."""
    if np.ndim(x) == 0:
        return (np.asarray(f(x + h, *rest)) - np.asarray(f(x - h, *rest))) / (2 * h)
    x = np.asarray(x, dtype=float)
    columns = []
    for k in range(x.size):
        e = np.zeros(x.size)
        e[k] = h
        e = e.reshape(x.shape)
        columns.append((np.asarray(f(x + e, *rest)) - np.asarray(f(x - e, *rest))) / (2 * h))
    out_shape = np.shape(columns[0])
    return np.moveaxis(np.array(columns), 0, -1).reshape(out_shape + x.shape)
