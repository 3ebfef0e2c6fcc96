"""Forward mode of `return`: the tangent of a float, of a tuple of variables and of an array
variable returned (a part of `ForwardTransform`).
"""

from __future__ import annotations

import gast

from srcad.analysis.types import FLOAT, Array, is_float_like
from srcad.frontend import syntax as S
from srcad.transform.forward.styles import Looped


class ForwardReturns:
    """The return statements of `ForwardTransform`: each sets `self.result` and the names of the
    result's tangents, one per style lane (`self.result_tangents`)."""

    def ret(self, stmt):
        if stmt.value is None:
            return []
        self.result = self.namer.fresh("result")
        assign = gast.copy_location(S.assign(S.name(self.result), stmt.value), stmt)
        if S.is_tuple_return(stmt):
            return self.tuple_return(stmt, assign)
        rtype = self.types.of(stmt.value)
        if isinstance(rtype, Array) and rtype.is_float:
            return self.array_return(stmt, assign)
        if "<return>" not in self.activity.active or rtype != FLOAT:
            return [assign]
        self.active.add(self.result)
        self.types.env[self.result] = FLOAT
        for k, style in enumerate(self.styles):
            self.names[k, self.result] = self.namer.fresh(style.name(self.result))
        self.result_tangents = [self.names[k, self.result] for k in range(len(self.styles))]
        return self.assign(assign, assign.targets[0], assign.value, None)

    def tuple_return(self, stmt, assign):
        """`return a, b` (each element a variable): the tangent is a tuple of the elements'
        tangents (0.0, or zeros, for an element that carries none)."""
        out = [assign]
        self.result_tangents = []
        for k, style in enumerate(self.styles):
            if isinstance(style, Looped):
                raise self.norm.parsed.error(stmt, "return", "a tuple return in vector mode "
                                             "with lanes in arrays is not supported",
                                             hint="use batch='unrolled'")
            elements = []
            for element in stmt.value.elts:
                etype = self.types[element.id]
                if element.id in self.active and etype == FLOAT:
                    elements.append(S.name(self.tangent_name(k, element.id)))
                elif element.id in self.active and isinstance(etype, Array):
                    shadow = self.tangent_name(k, element.id)
                    returned = style.returned(shadow, etype.ndim)
                    elements.append(S.name(shadow) if returned is None else returned)
                elif isinstance(etype, Array) and etype.is_float:
                    elements.append(style.zeros_result(element.id))
                else:
                    elements.append(S.const(0.0) if is_float_like(etype) else S.const(None))
            tangent = self.namer.fresh(style.name(self.result))
            out.append(S.assign(S.name(tangent), gast.Tuple(elts=elements, ctx=gast.Load())))
            self.result_tangents.append(tangent)
        return out

    def array_return(self, stmt, assign):
        """`return y` for an array: its tangent is y's shadow (zeros when y is inactive)."""
        value = stmt.value
        if not isinstance(value, gast.Name):
            raise self.norm.parsed.error(stmt, "return of an array", "only an array variable "
                                         "can be returned", hint="return y after writing its "
                                         "elements")
        out = [assign]
        self.result_tangents = []
        ndim = self.types.of(value).ndim  # a local, or a global array returned as it is
        for k, style in enumerate(self.styles):
            if value.id in self.active:
                shadow = self.tangent_name(k, value.id)
                returned = style.returned(shadow, ndim)
                if returned is None:
                    self.result_tangents.append(shadow)
                    continue
            else:
                returned = style.zeros_result(value.id)
            tangent = self.namer.fresh(style.name(self.result))
            out.append(S.assign(S.name(tangent), returned))
            self.result_tangents.append(tangent)
        return out
