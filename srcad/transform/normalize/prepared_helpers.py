"""A module-level helper's body made ready for inlining (lowered, its nested calls
rewritten, checked, desugared: `Inliner._inlined_body`) once per build, not once per call.

That preparation depends only on the helper's parsed function and the namer made from it,
both fresh copies at every call of the helper within one build (`parse_function` under
`parsing_once`), so every call prepares the same body and leaves the parsed function and
the namer in the same state: the first call's outcome is kept, and each later call gets a
copy of that body and has its parsed function and namer set to copies of that state. Not
kept: a helper defining local functions, a local function, a call passing functions (the
preparation then depends on what is passed), or a preparation that raised.
"""

from __future__ import annotations

import copy

from srcad.frontend import syntax as S
from srcad.frontend.parse import copy_parsed


class PreparedHelpers:
    """The prepared bodies of the helpers of one build (shared by the inliners of the
    functions inlined into it)."""

    def __init__(self):
        self._kept: dict = {}  # id(helper) -> (helper, parsed, namer state, body)

    def prepared(self, callee, cparsed, cnamer, prepare) -> tuple[list, dict]:
        """`prepare()` -> (body, the local functions it defines), run once per `callee`;
        a later call sets `cparsed` and `cnamer` (in place) to the state it left them in."""
        kept = self._kept.get(id(callee))
        if kept is not None and kept[0] is callee:
            _, parsed, namer_state, body = kept
            vars(cparsed).update(vars(copy_parsed(parsed)))
            vars(cnamer).update(_state(namer_state))
            return S.clone(body), {}
        body, local_functions = prepare()
        if not local_functions:  # the helper's object kept with it: its id stays unique
            self._kept[id(callee)] = (callee, copy_parsed(cparsed), _state(vars(cnamer)),
                                      S.clone(body))
        return body, local_functions


def _state(attributes: dict) -> dict:
    """A copy of a namer's attributes (its sets and dicts of names copied)."""
    return {k: copy.copy(v) for k, v in attributes.items()}
