"""Which names may hold the same array at each statement, and which writes another name sees.

srcad follows arrays by name (analysis/writes.py), so a second name for an array that is
written later is refused unless transform/normalize/views.py can resolve it. Many second
names are harmless: double buffering (`u = v` at the end of an iteration, `v` bound to a new
array at the start of the next before it is written; `u, v = v, u`), or a row kept for the
next iteration (`prev = row`, read there before `row` is written again). No execution can tell
such a binding from a copy: the sharing is never observed.

Two analyses over the structured body (after normalization: no `continue`, a `break` last in
its block, one `return` at the end):

- points-to: each statement that makes a new array is an allocation site; the most recent
  array a site made is told apart from its older ones (the recency abstraction), so the `v`
  made in this iteration is not the `u` that holds the last iteration's. A name, a
  subscript, `x.T`, a view call (`viewed_array`), the branches of a conditional expression
  and the entries of a tuple or list may share the arrays of the names they mention. Only
  the names that may share an array with another are followed (`_sharing_names`): the others
  take part in no conflict, and a float bound in a branch would double the configurations.
- parts: a view `A[e]` with an int index affine in names holds the row `e` of `A`
  (analysis/array_rows.py): rows whose indices differ by a constant are apart, and so is a
  row kept from earlier steps of a `for` variable that no number of steps brings back
  (GradBench's lstm keeps `state[2 * i]` while the next layer writes `state[2 * i + 2]`);
  other views hold a part that may meet any other.
- liveness (analysis/loop_liveness.py): a name is live after a statement when some path
  reads it before rebinding it.
  The arguments, and names the function reads but never binds, are live at the end (the
  caller sees the arguments' contents).

A write through `X` (an element or slice store, `X += ...`, an array passed to a call made
for its effect) conflicts with every other name live after it that may hold one of the arrays
`X` may hold, unless it is `X[i] = ...` in a loop over `i` from 0 that reads the other name,
holding the same whole array, only as `other[i]` in that statement (each element is read
before it is written, as from a copy). `Sharing.unobservable(binding)` says when a binding
`a = b` (b an array or a view of one) may become `a = b.copy()`: when no array `b` may hold
there takes part in any conflict, or when `a` takes part in none and no other name is ever
bound to `a` or a view of it (its array then reaches no other name). Anything the analyses
do not model (a `try`, a `with`, a nested definition) makes `analyse_sharing` return None:
nothing is claimed.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import gast

from srcad.analysis.array_bindings import viewed_array
from srcad.analysis.array_rows import UNKNOWN, may_overlap, rebound, row_part
from srcad.analysis.loop_liveness import MAX_ROUNDS, Liveness, NotModelled, target_names
from srcad.frontend import syntax as S

_SIMPLE = (gast.Assign, gast.AugAssign, gast.Expr, gast.Pass, gast.Return, gast.Break)
_MAX_CONFIGURATIONS = 256


@dataclass
class Sharing:
    """The result: the points-to state before each statement and the conflicts."""

    before: dict  # id(statement) -> configurations {name: frozenset of (site, most recent?)}
    conflict_sites: set = field(default_factory=set)
    conflict_names: set = field(default_factory=set)
    sources: set = field(default_factory=set)  # names some other name may share arrays with
    written_sites: set = field(default_factory=set)  # the sites of the arrays written
    carried: dict = field(default_factory=dict)  # id(loop) -> names live at its head

    def held_sites(self, binding, source: str) -> set:
        """The sites of the arrays `source` may hold where `binding` runs."""
        return {o[0] for c in self.before.get(id(binding), ()) for o in _held(dict(c), source)}

    def unobservable(self, binding, target: str, source: str) -> bool:
        """May `target = <view of source>` (the statement `binding`) become a copy?"""
        if id(binding) not in self.before:
            return False
        held = set().union(*(_held(dict(c), source) for c in self.before[id(binding)]))
        if not {o[0] for o in held} & self.conflict_sites:
            return True
        return target not in self.conflict_names and target not in self.sources


def analyse_sharing(norm) -> Sharing | None:
    """The points-to and conflict analysis of `norm.body` (module docstring), or None when
    the body holds a statement it does not model."""
    try:
        flow = _PointsTo(norm, _sharing_names(norm, norm.body))
        flow.block(norm.body, frozenset({frozenset((p, frozenset({(p, False, None)}))
                                                   for p in norm.params
                                                   if p in flow.tracked)}))
        bound = set().union(*(S.bound_names(s) for s in flow.statements))
        loaded = set().union(*(S.loaded_names(s) for s in flow.statements))
        live = Liveness()
        live.block(norm.body, set(norm.params) | (loaded - bound))
    except NotModelled:
        return None
    sharing = Sharing(flow.before, sources=flow.sources, carried=live.head)
    for stmt in flow.statements:
        for writer in _written(stmt) & flow.tracked:  # the others share no array
            for frozen in flow.before[id(stmt)]:
                config = dict(frozen)
                sharing.written_sites |= {o[0] for o in _held(config, writer)}
                for other in live.after.get(id(stmt), set()) & flow.tracked - {writer}:
                    shared = _overlap(_held(config, writer), _held(config, other))
                    if shared and not _same_element_map(flow, live, stmt, writer, other,
                                                        config):
                        sharing.conflict_sites |= shared
                        sharing.conflict_names |= {writer, other}
    return sharing


def _same_element_map(flow, live, stmt, writer, other, config) -> bool:
    """Is `stmt` `X[i] = ...` in `for i in range(...)` (from 0 or more), where `other` holds
    the same whole array as X and the loop reads it only as `other[i]` in `stmt` itself and
    never after? Each element is then read before it is written, as from a copy
    (`out[i] = h[i] * w[i]` with `h` the array `out` at run time)."""
    loop = flow.loop_of.get(id(stmt))
    if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1
            and isinstance(loop, gast.For) and isinstance(loop.target, gast.Name)):
        return False
    target, i = stmt.targets[0], loop.target.id
    start = loop.iter.args[0] if _ascending_step(loop) and len(loop.iter.args) == 2 else None
    if _ascending_step(loop) is None or (start is not None and not (
            isinstance(start, gast.Constant) and type(start.value) is int and start.value >= 0)):
        return False  # a negative index would write an element read later: x[-1], x[n - 1]
    if not (isinstance(target, gast.Subscript) and isinstance(target.value, gast.Name)
            and target.value.id == writer and _is_name(target.slice, i)):
        return False
    whole = all(o[2] is None for o in _held(config, writer) | _held(config, other))
    if not whole or other in live.after.get(id(loop), set()):
        return False
    allowed = {id(n.value) for n in S.walk(stmt.value) if isinstance(n, gast.Subscript)
               and _is_name(n.value, other) and _is_name(n.slice, i)}
    return all(id(n) in allowed for s in loop.body for n in S.walk(s)
               if isinstance(n, gast.Name) and n.id == other)


def _sharing_names(norm, stmts) -> set:
    """The names that may share an array with another name: those a binding shares arrays
    with (`shared_names` of its value), and those bound to a value that shares or views one.
    Every other name only ever holds arrays (or numbers) of its own that no other name
    holds, so it takes part in no conflict: it is left out of the configurations, whose
    number it would otherwise multiply (a float bound in one branch of each of k `if`s
    makes 2**k configurations)."""
    out: set = set()
    for stmt in stmts:
        if isinstance(stmt, gast.Assign):
            names, value = [n for t in stmt.targets for n in target_names(t)], stmt.value
        elif isinstance(stmt, gast.For):
            names, value = target_names(stmt.target), _iterated(stmt.iter)
        else:
            names, value = [], None
        if value is not None:
            shared = shared_names(norm, value)
            out |= shared
            if shared or viewed_array(norm, value) is not None:
                out |= set(names)
        for field_ in ("body", "orelse"):
            block = getattr(stmt, field_, None)
            if isinstance(block, list):
                out |= _sharing_names(norm, block)
    return out


def _is_name(node, name) -> bool:
    return isinstance(node, gast.Name) and node.id == name


def shared_names(norm, value) -> set:
    """The names whose arrays `value` may share (a view, an alias, a conditional
    expression's branches, a tuple's or list's entries)."""
    viewed = viewed_array(norm, value)
    if viewed is not None:
        return {viewed}
    if isinstance(value, gast.IfExp):
        return shared_names(norm, value.body) | shared_names(norm, value.orelse)
    if isinstance(value, (gast.Tuple, gast.List)):
        return set().union(*(shared_names(norm, e) for e in value.elts))
    if isinstance(value, gast.BoolOp):
        return set().union(*(shared_names(norm, e) for e in value.values))
    return set()


def _written(stmt) -> set:
    """The names `stmt` (a simple statement) writes the arrays of."""
    out = set()
    targets = stmt.targets if isinstance(stmt, gast.Assign) else \
        [stmt.target] if isinstance(stmt, gast.AugAssign) else []
    for t in targets:
        for node in S.walk(t):
            if isinstance(node, gast.Subscript):
                out.add(S.target_name(node))
    if isinstance(stmt, gast.AugAssign) and isinstance(stmt.target, gast.Name):
        out.add(stmt.target.id)  # in place for an array
    for node in S.walk(stmt):
        if isinstance(node, gast.Call):
            if isinstance(stmt, gast.Expr) and node is stmt.value:  # a call for its effect
                out |= S.loaded_names(node)
            out |= {n for k in node.keywords if k.arg == "out" for n in S.loaded_names(k.value)}
    return out - {None}


def _held(config, name) -> frozenset:
    """The arrays `name` may hold in one configuration, as (site, most recent?, part) (a
    name the function never binds holds its own, whole)."""
    return config.get(name, frozenset({(name, False, None)}))


def _overlap(a: frozenset, b: frozenset) -> set:
    """The sites of the arrays `a` and `b` may share an element of."""
    return {x[0] for x in a for y in b if x[:2] == y[:2] and may_overlap(x[2], y[2])}


class _PointsTo:
    """A state is a set of configurations, each mapping names to the arrays they may hold
    (a set of states rather than their merge: after `u, v = v, u` in a loop, `u` holds either
    array and `v` the other, never the same one)."""

    def __init__(self, norm, tracked: set):
        self.norm = norm
        self.tracked = tracked  # the names followed (`_sharing_names`)
        self.before: dict = {}  # id(statement) -> set of configurations (dicts)
        self.statements: list = []
        self.sources: set = set()
        self.exits: list = []  # the states at the breaks of each enclosing loop
        self.loops: list = []  # the loops around the statement walked
        self.loop_of: dict = {}  # id(statement) -> the innermost loop around it

    def block(self, stmts, state: frozenset) -> frozenset:
        for stmt in stmts:
            state = self.statement(stmt, state)
        return state

    def statement(self, stmt, state: frozenset) -> frozenset:
        if id(stmt) not in self.before:
            self.statements.append(stmt)
            self.loop_of[id(stmt)] = self.loops[-1] if self.loops else None
        self.before[id(stmt)] = self.before.get(id(stmt), frozenset()) | state
        if len(self.before[id(stmt)]) > _MAX_CONFIGURATIONS:
            raise NotModelled
        if isinstance(stmt, gast.If):
            return self.block(stmt.body, state) | self.block(stmt.orelse, state)
        if isinstance(stmt, (gast.For, gast.While)):
            return self._loop(stmt, state)
        if not isinstance(stmt, _SIMPLE):
            raise NotModelled
        if isinstance(stmt, gast.Break):
            self.exits[-1].append(state)
        if isinstance(stmt, gast.Assign):
            return self._bind(stmt, [n for t in stmt.targets for n in target_names(t)], stmt.value,
                              state)
        if isinstance(stmt, gast.AugAssign) and isinstance(stmt.target, gast.Name):
            return self._stale(state, {stmt.target.id}, None)  # `c += 1`: rows of c go stale
        return state

    def _loop(self, stmt, state: frozenset) -> frozenset:
        """Each configuration is followed on its own (the statements map each one alone), so
        a round runs the body on the configurations no round entered it with yet: the same
        fixpoint as running it on all of them each round, without redoing the old ones."""
        self.exits.append([])
        self.loops.append(stmt)
        ends, seen, new_ends = frozenset(), frozenset(), None
        step = _ascending_step(stmt)
        if isinstance(stmt, gast.For):
            target, iterated = target_names(stmt.target), _iterated(stmt.iter)
        for _ in range(MAX_ROUNDS):
            if isinstance(stmt, gast.For):  # from before the loop, and the next iteration
                entered = self._bind(stmt, target, iterated, new_ends, step) \
                    if new_ends is not None else self._bind(stmt, target, iterated, state)
            else:
                entered = new_ends if new_ends is not None else state
            entered = entered - seen
            if not entered:
                break
            seen = seen | entered
            end = self.block(stmt.body, entered)
            new_ends = end - ends
            ends = ends | end
        else:
            raise NotModelled
        head = state | ends
        self.loops.pop()
        out = self.block(stmt.orelse, head)
        for exit_state in self.exits.pop():
            out = out | exit_state
        return out

    def _bind(self, stmt, names, value, state: frozenset, step=None) -> frozenset:
        shared = shared_names(self.norm, value) if value is not None else set()
        self.sources |= shared
        fresh = value is None or viewed_array(self.norm, value) is None
        site = id(stmt)
        out = set()
        # the configurations of a state share most of their sets: each set is rewritten once,
        # in one pass (a new array ages the site's older ones, then the rebound rows go stale)
        aged, rewritten, rebound_names = {}, {}, set(names)

        def age(objects):
            if not fresh:
                return objects
            found = aged.get(objects)
            if found is None:
                found = aged[objects] = _older(objects, site)
            return found

        def rewrite(objects):
            return _stale_objects(age(objects), rebound_names, step)

        if not any(n in self.tracked for n in names) \
                and all(_unchanged(frozen, rewritten, rewrite) for frozen in state):
            return state  # most statements: no configuration changes, none is rebuilt
        for frozen in state:
            config = dict(frozen)
            held = frozenset().union(*(age(_held(config, n)) for n in shared))
            if fresh:
                held = held | {(site, True, None)}
            elif not isinstance(value, gast.Name):  # a view: a row, or a part srcad can't tell
                part = row_part(value.slice) if isinstance(value, gast.Subscript) \
                    and isinstance(value.value, gast.Name) \
                    and not isinstance(value.slice, (gast.Slice, gast.Tuple)) else UNKNOWN
                held = frozenset((s, r, part if p is None else UNKNOWN) for s, r, p in held)
            config = _mapped(config, rewritten, rewrite)
            for n in names:
                if n in self.tracked:
                    config[n] = held
            out.add(frozenset(config.items()))
        return frozenset(out)

    @staticmethod
    def _stale(state, names, step):
        memo: dict = {}
        return frozenset(frozenset(_stale_config(dict(c), names, step, memo).items())
                         for c in state)


def _stale_config(config, names: set, step, memo: dict) -> dict:
    """The configuration (changed in place) once `names` are rebound: the rows indexed by
    them go stale (the sets without a row kept as they are: most are, and a first call
    rebuilds thousands). `memo`: the sets already rewritten for these `names` and `step`."""
    return _mapped(config, memo, lambda objects: _stale_objects(objects, names, step))


def _stale_objects(objects: frozenset, names: set, step) -> frozenset:
    """`objects` once `names` are rebound (the same set when it holds no row)."""
    if not any(type(p) is tuple for _, _, p in objects):
        return objects
    return frozenset((s, r, rebound(p, names, step)) for s, r, p in objects)


def _mapped(config: dict, memo: dict, rewrite) -> dict:
    """`config` (a configuration's own dict: changed in place) with each name's set of arrays
    rewritten, each distinct set once (`memo`: set -> its rewrite, shared by the
    configurations of one state)."""
    for name_, objects in config.items():
        new = memo.get(objects)
        if new is None:
            new = memo[objects] = rewrite(objects)
        if new is not objects:
            config[name_] = new  # an existing key: the iteration goes on
    return config


def _unchanged(frozen: frozenset, memo: dict, rewrite) -> bool:
    """Does `_mapped` leave the configuration `frozen` as it is (each set equal to its
    rewrite)?"""
    for _, objects in frozen:
        new = memo.get(objects)
        if new is None:
            new = memo[objects] = rewrite(objects)
        if new is not objects and new != objects:
            return False
    return True


def _older(objects: frozenset, site) -> frozenset:
    """`objects` with the array `site` made most recently told as an older one."""
    if not any(recent and s == site for s, recent, _ in objects):
        return objects
    return frozenset((s, recent and s != site, part) for s, recent, part in objects)


def _ascending_step(loop) -> str | None:
    """The variable of `for v in range(a)` or `range(a, b)`: each iteration adds one."""
    if isinstance(loop, gast.For) and isinstance(loop.target, gast.Name) \
            and isinstance(loop.iter, gast.Call) and isinstance(loop.iter.func, gast.Name) \
            and loop.iter.func.id == "range" and 1 <= len(loop.iter.args) <= 2:
        return loop.target.id
    return None




def _iterated(iterable):
    """What a loop variable may share: the rows of an array iterated over (`range(...)`
    makes ints)."""
    if isinstance(iterable, gast.Call) and isinstance(iterable.func, gast.Name) \
            and iterable.func.id == "range":
        return None
    return iterable
