"""The code of a parallel loop run on all its iterations at once (srcad/transform/parallel_loops.py
decides which loops are): its statements on arrays of a block of iterations, the writes done
after every value, an `if` chosen per iteration with np.where, and the loop itself kept for when
the guards (srcad/transform/parallel_guards.py) or NumPy's floating-point checks fail."""

from __future__ import annotations

import gast

from srcad.frontend import syntax as S
from srcad.transform.parallel_arrays import lane_slice, mapped, parts_of
from srcad.transform.parallel_blocks import Blocks, strip_mined
from srcad.transform.parallel_guards import run_guards


class LiftedCode:
    """The lifted code of a loop that passed the checks of `parallel_loops._Loop`."""

    def __init__(self, checked):
        self.loop, self.live, self.namer = checked.loop, checked.live, checked.namer
        self.bounds, self.var = checked.bounds, checked.var
        self.assigned, self.uniform = checked.assigned, checked.uniform
        self.written, self.arrays = checked.written, checked.arrays
        self.lane_arrays, self.scalars = checked.lane_arrays, checked.scalars
        self.before_if = checked.before_if

    def statements(self, statements):
        """The statements replacing the loop: a comment, then `if` the guards hold, the blocks
        of iterations run lifted, else the loop itself."""
        fresh = self.namer.fresh
        self.column = fresh("lane_column") if self.lane_arrays else None
        first_lane = sorted(self.lane_arrays)[0] if self.lane_arrays else None
        names = [fresh(n) for n in ("iterations", "block", "block_start", "block_stop")]
        self.blocks = Blocks(self.var, self.bounds, self.assigned - self.uniform, names[2],
                             names[3], self.column)
        lifted, writes, pending = [], [], []
        for statement in statements:
            lifted += self._lifted(statement, writes, pending, fresh, 0)
        lifted = [self.blocks.read(s) for s in mapped(lifted, self.column)]
        loaded = {n.id for s in lifted for n in gast.walk(s)
                  if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)}
        if self.var in loaded:  # the iterations as numbers (else only slices of the block)
            lifted.insert(0, S.assign(S.name(self.var), S.call(
                "np.arange", S.name(names[2]), S.name(names[3]))))
        if self.column in loaded:
            lifted[:0] = S.parse_stmts(
                f"{self.column} = np.arange({first_lane}.shape[0])[:, None]")
        after = self.live(self.loop, (self.assigned - self.uniform) | {self.var})
        restores = [S.parse_stmts(f"{n} = {n}[..., -1][()] if np.ndim({n}) else {n}")[0]
                    for n in sorted(after - {self.var})]
        if self.var in after:
            restores += S.parse_stmts(f"{self.var} = {names[3]} - 1")
        guards = run_guards(self.bounds, self.arrays, self.written, self.lane_arrays,
                            self.scalars)
        guards += self.blocks.guards()
        errstate = S.parse_stmts("with np.errstate(divide='raise', over='raise', "
                                 "invalid='raise'):\n    pass")[0]
        errstate.body = lifted
        attempt = [*pending, errstate, *writes, *restores]
        # the block's values let go before the next block computes its own (else two blocks'
        # values are held at once); the names read after keep their last iteration's value
        held = sorted({n.id for s in attempt for n in gast.walk(s) if isinstance(n, gast.Name)
                       and isinstance(n.ctx, gast.Store)} - after)
        attempt += S.parse_stmts(" = ".join(held) + " = None") if held else []
        test = S.parse_expr(" and ".join(f"({g})" for g in guards))
        return [S.comment("a parallel loop run on all its iterations at once, a block at a "
                          "time (srcad/transform/parallel_loops.py), the loop if that fails"),
                gast.If(test=test, body=strip_mined(self.loop, self.bounds, attempt, names,
                                                    first_lane),
                        orelse=[S.clone(self.loop)])]

    def _lifted(self, statement, writes, pending, fresh, depth):
        if S.is_comment(statement):
            return [statement]
        if isinstance(statement, gast.For):  # an inner loop: a loop over whole arrays
            body = []
            for s in statement.body:
                body += self._lifted(s, writes, pending, fresh, depth + 1)
            return [gast.For(target=S.clone(statement.target), iter=S.clone(statement.iter),
                             body=body or [gast.Pass()], orelse=[], type_comment=None)]
        target = statement.targets[0] if isinstance(statement, gast.Assign) \
            else getattr(statement, "target", None)
        if isinstance(target, gast.Name):
            value = S.clone(statement.value)
            if isinstance(statement, gast.AugAssign):  # a new array, never one in place
                value = gast.BinOp(S.name(target.id), statement.op, value)
            return [S.assign(S.name(target.id), value)]
        if target is not None:  # a write: index and value now, written after every value
            base = target.value.id
            index, value = fresh(f"{base}_index"), fresh(f"{base}_value")
            operator = statement.op if isinstance(statement, gast.AugAssign) else None
            write = S.assign(S.parse_expr(f"{base}[{index}]"), S.name(value)) \
                if operator is None else \
                S.aug_assign(S.parse_expr(f"{base}[{index}]"), operator, S.name(value))
            S.set_store(write.targets[0] if operator is None else write.target)
            lines = [S.assign(S.name(index), self._write_index(target)),
                     S.assign(S.name(value), S.clone(statement.value))]
            if depth == 0:
                writes.append(write)
                return lines
            # inside an inner loop: each pass's index and value kept, written in order
            kept = fresh(f"{base}_writes")
            pending.append(S.parse_stmts(f"{kept} = []")[0])
            loop = S.parse_stmts(f"for {index}, {value} in {kept}:\n    pass")[0]
            loop.body = [write]
            writes.append(loop)
            return lines + S.parse_stmts(f"{kept}.append(({index}, {value}))")
        return self._select(statement, writes, pending, fresh, depth)

    def _write_index(self, target):
        sliced = self.blocks.write_index(target.value.id, parts_of(target))
        if sliced is not None:
            return sliced
        parts = [S.clone(p) for p in parts_of(target)]
        if lane_slice(parts[0]):
            parts[0] = S.name(self.column)
        return parts[0] if len(parts) == 1 else gast.Tuple(parts, gast.Load())

    def _select(self, statement, writes, pending, fresh, depth):
        """`if`: both branches for every iteration, each name chosen with np.where (a name
        bound in one branch only and not before is never read after: checked)."""
        chosen = fresh("chosen")
        before = self.before_if[id(statement)]
        bound = [{n.id for s in block for n in gast.walk(s)
                  if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}
                 for block in (statement.body, statement.orelse)]
        names = sorted(n for n in bound[0] | bound[1]
                       if n in before or (n in bound[0] and n in bound[1]))
        kept = {n: fresh(f"{n}_kept") for n in names if n in before}
        then = {n: fresh(f"{n}_then") for n in names}
        lines = [S.assign(S.name(chosen), S.clone(statement.test))]
        lines += [S.assign(S.name(kept[n]), S.name(n)) for n in kept]
        for s in statement.body:
            lines += self._lifted(s, writes, pending, fresh, depth)
        lines += [S.assign(S.name(then[n]), S.name(n)) for n in names]
        lines += [S.assign(S.name(n), S.name(kept[n])) for n in kept]
        for s in statement.orelse:
            lines += self._lifted(s, writes, pending, fresh, depth)
        lines += [S.parse_stmts(f"{n} = np.where({chosen}, {then[n]}, {n})")[0]
                  for n in names]
        return lines
