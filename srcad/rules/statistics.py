"""Statistics along axes: np.prod, var, std (ddof=), ptp, nansum, nanmean, nanmax, nanmin,
average, median, quantile, percentile, with `axis=` (None, an int, a tuple; negative
counts from the end) and `keepdims=`. Each rule is a weighting `w` of the operand's
elements: the tangent is np.sum(g * w) over the reduced axes, the adjoint the seed spread
back, times w (one vectorized NumPy expression each).

| primitive          | w (the partial derivative of the result by each element)          |
|--------------------|-------------------------------------------------------------------|
| np.prod(x)         | the product of the other elements (exact where x has zeros, to    |
|                    | second order)                                                     |
| np.var(x, ddof=d)  | 2 (x - mean) / (n - d)          (std: that / (2 std))             |
| np.ptp(x)          | 1/count at the maxima minus 1/count at the minima                 |
| np.nanmax(x)       | 1/count at the maxima, 0 at NaN (nansum, nanmean: 0 at NaN)        |
| np.quantile(x, q)  | linear interpolation's weights on the sorted positions            |

At ties the derivative is JAX's: max, min, ptp, nanmax and nanmin split g equally among the
tied extrema; median and quantile give it to the tied element that comes first (a stable
sort), as JAX does. std' at a constant sample is NaN (0/0), as in JAX; of a sample of one
element (std is 0 whatever it holds) it is 0.
"""

from __future__ import annotations

from srcad.errors import SrcadError
from srcad.rules.reductions import _axes, _expanded, _result_shape, _spelled
from srcad.rules.rule_type import linear


def refuse_unfollowed(name, keywords, **defaults):
    """Refuse, naming it, a keyword whose value srcad does not follow (out=, dtype=, ...)."""
    for key, default in defaults.items():
        value = keywords.get(key, default)
        if value != default:
            raise SrcadError(f"`{key}={value!r}` of np.{name}: srcad differentiates "
                             f"np.{name} with {key}={default!r} only", construct=name,
                             hint=f"leave out `{key}=`" + (" and assign the result"
                                                           if key == "out" else ""))


def weighted(name, rank, keywords, weights):
    """The rule of a reduction whose derivative by the elements is `weights` (an expression
    of `x` with keepdims=True reductions)."""
    axis, keepdims = keywords.get("axis"), bool(keywords.get("keepdims", False))
    axes = _axes(axis, rank)
    w = weights(f"axis={axes!r}", axes)
    shape, result_rank = _result_shape(rank, axes, keepdims)
    return linear(name, "x", (f"np.sum(g * {w}{_spelled(axis, keepdims)})",
                              f"{_expanded('g', axes, axis, keepdims)} * {w}"),
                  shape=shape, rank=result_rank)


def _count(axes):
    return " * ".join(f"x_shape[{a}]" for a in axes) or "1"


def product_of_others(x: str, ax: str) -> str:
    """The expression of w[i], the product of the elements of `x` but x[i] along the axes
    `ax` (`axis=...`), exact where x has zeros, and so is its first derivative, which second
    order takes by differentiating this expression: np.prod(x) / x[i] where x[i] is not 0;
    where it is, the product of the other elements that are not 0 times that of the other
    zeros (1 if there are none, their sum if there is one other: 0, with its derivative 1)."""
    zero = f"({x} == 0.0)"
    nonzero = f"np.where({zero}, 1.0, {x})"
    count = f"np.sum({zero}, {ax}, keepdims=True)"
    zeros_sum = f"np.sum(np.where({zero}, {x}, 0.0), {ax}, keepdims=True)"
    other_zeros = f"np.where({count} == 1, 1.0, np.where({count} == 2, {zeros_sum} - {x}, 0.0))"
    return (f"np.where({zero}, np.prod({nonzero}, {ax}, keepdims=True) * {other_zeros}, "
            f"np.prod({x}, {ax}, keepdims=True) / {nonzero})")


def prod(ranks, keywords):
    refuse_unfollowed("prod", keywords, dtype=None, out=None)
    return weighted("prod", ranks[0], keywords, lambda ax, axes: product_of_others("x", ax))


def variance(name):
    def select(ranks, keywords):
        refuse_unfollowed(name, keywords, dtype=None, out=None)
        ddof = keywords.get("ddof", 0)
        if not isinstance(ddof, (int, float)) or isinstance(ddof, bool):
            raise SrcadError(f"ddof={ddof!r} of np.{name}", construct=name,
                             hint="ddof is a number literal")

        def weights(ax, axes):
            w = f"2.0 * (x - np.mean(x, {ax}, keepdims=True)) / ({_count(axes)} - {ddof!r})"
            if name == "std":
                ans = "ans" if keywords.get("keepdims") or keywords.get("axis") is None \
                    else f"np.expand_dims(ans, {axes if len(axes) > 1 else axes[0]!r})"
                # a sample of one element: std is 0 whatever it is, and so is its
                # derivative (x - mean is 0; a constant sample of more is NaN, as in JAX)
                w = f"{w} / (2.0 * np.where({_count(axes)} == 1, 1.0, {ans}))"
            return w
        return weighted(name, ranks[0], keywords, weights)
    return select


def ptp(ranks, keywords):
    refuse_unfollowed("ptp", keywords, out=None)

    def weights(ax, axes):
        hi = f"(x == np.max(x, {ax}, keepdims=True))"
        lo = f"(x == np.min(x, {ax}, keepdims=True))"
        return f"({hi} / np.sum({hi}, {ax}, keepdims=True) - {lo} / np.sum({lo}, {ax}, " \
            "keepdims=True))"
    return weighted("ptp", ranks[0], keywords, weights)


def nan_reduction(name):
    def select(ranks, keywords):
        refuse_unfollowed(name, keywords, dtype=None, out=None)

        def weights(ax, axes):
            if name == "nansum":
                return "(~np.isnan(x))"
            return f"(~np.isnan(x) / np.sum(~np.isnan(x), {ax}, keepdims=True))"
        return weighted(name, ranks[0], keywords, weights)
    return select


def nan_extremum(name):
    def select(ranks, keywords):
        refuse_unfollowed(name, keywords, out=None)

        def weights(ax, axes):
            hits = f"(x == np.{name}(x, {ax}, keepdims=True))"
            return f"({hits} / np.sum({hits}, {ax}, keepdims=True))"
        return weighted(name, ranks[0], keywords, weights)
    return select


def average(ranks, keywords):
    """np.average(x, axis, weights): the mean, or with weights w (an operand) the sum of
    x * w / sum(w) over the axes."""
    refuse_unfollowed("average", keywords, returned=False)
    if keywords.get("weights"):
        return _weighted_average(ranks, keywords)
    return weighted("average", ranks[0], keywords,
                    lambda ax, axes: f"(np.ones_like(x) / ({_count(axes)}))")


def _weighted_average(ranks, keywords):
    """x's partials are the normalized weights w / sum(w); w's are (x - ans) / sum(w). A 1-D
    w of an axis= (NumPy's other form) is laid along that axis."""
    rank, axis, keepdims = ranks[0], keywords.get("axis"), bool(keywords.get("keepdims"))
    axes = _axes(axis, rank)
    if ranks[1] == rank:
        laid, back = "w", "{}"
    elif ranks[1] == 1 and isinstance(axis, int) and rank > 0:
        shape = tuple(-1 if a == axes[0] else 1 for a in range(rank))
        laid = f"np.reshape(w, {shape!r})"
        others = tuple(a for a in range(rank) if a != axes[0])
        back = f"np.sum({{}}, axis={others!r})" if others else "{}"
    else:
        raise SrcadError(f"np.average of an array of rank {rank} with weights of rank "
                         f"{ranks[1]}", construct="average", hint="weights shaped like the "
                         "array, or a vector along the one axis= given")
    ax = f"axis={axes!r}"
    total = f"np.sum({laid} * np.ones_like(x), {ax}, keepdims=True)"
    share = f"({laid} / {total})"
    spread = f"((x - {_expanded('ans', axes, axis, keepdims)}) / {total})"
    seed, spelled = _expanded("g", axes, axis, keepdims), _spelled(axis, keepdims)
    laid_g = laid.replace("w", "g", 1)
    shape, result_rank = _result_shape(rank, axes, keepdims)
    return linear("average", "x w", (f"np.sum(g * {share}{spelled})", f"{seed} * {share}"),
                  (f"np.sum({laid_g} * {spread}{spelled})", back.format(f"{seed} * {spread}")),
                  shape=shape, rank=result_rank)


def quantile(name):
    """np.median, np.quantile(x, q), np.percentile(x, q) with method='linear' and q a
    number: the derivative is linear interpolation's weight on the two sorted elements."""
    def select(ranks, keywords):
        refuse_unfollowed(name, keywords, out=None, method="linear")
        q = 0.5 if name == "median" else keywords.get("q")
        if not isinstance(q, (int, float)) or isinstance(q, bool):
            raise SrcadError(f"q={q!r} of np.{name}", construct=name,
                             hint="q is one number literal (one call per quantile)")
        q = q / 100.0 if name == "percentile" else float(q)
        axis = keywords.get("axis")
        if isinstance(axis, tuple):
            raise SrcadError(f"axis={axis!r} of np.{name}", construct=name,
                             hint="reduce along one axis, or all (axis=None)")
        rank = ranks[0]

        def weights(ax, axes):
            if axis is None:
                r = "np.reshape(np.argsort(np.argsort(x, axis=None, kind='stable'), " \
                    "kind='stable'), np.shape(x))"
            else:
                r = f"np.argsort(np.argsort(x, axis={axes[0]}, kind='stable'), " \
                    f"axis={axes[0]}, kind='stable')"
            position = f"({q!r} * ({_count(axes)} - 1))"
            low = f"np.floor({position})"
            return f"(({r} == {low}) * (1.0 - ({position} - {low})) + ({r} == {low} + 1.0)" \
                f" * ({position} - {low}))"
        if rank == 0:
            return linear(name, "x", ("g", "g"), shape="x_shape", rank=0)
        return weighted(name, rank, keywords, weights)
    return select
