"""What `srcad show` prints: the plain derivative first, and the names of the variants srcad
generates besides it (which `--variants` prints too).

In reverse mode srcad may generate more than one piece of code for a call:

- the python backend checkpoints a time-stepping loop when its tape would exceed the default
  memory budget (docs/checkpointing.md): the code it runs holds both the
  loop taped whole and the binomial checkpointing schedule, several times the plain code;
- the numba backend checks that budget before such a loop and runs a separately generated
  checkpointed variant when it is exceeded;
- a loop whose bindings may change the shape of an array it carries is checked at run time,
  and a variant that records the shapes runs when one changed (srcad/build/shape_fallback.py).

`show` prints the plain derivative (loops taped whole) and names on stderr each variant it left
out, with the line of its loop; `show --variants` prints the code as srcad runs it by default
followed by each variant. The variants are read from markers the reverse transform writes into
the code it generates (the comments and raises of transform/reverse/checkpoint.py and
shape_guards.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from srcad.build.arguments import _arguments
from srcad.build.differentiate import _compiled, _target
from srcad.runtime.checkpointing import DEFAULT_MEMORY, MEASURED

_CHECKPOINTED = re.compile(r"# line (\d+): (.*?) checkpointed: binomial schedule .*, when its "
                           r"tape would exceed the default memory budget")
_GUARDED = re.compile(r"# line (\d+): its tape over the default memory budget: checkpointed "
                      r"by the caller")
_SHAPE_CHECK = re.compile(r"raise LoopShapeError\(\s*'(\w+)',\s*(?:'[^']*'|\"[^\"]*\")\s*,"
                          r"\s*(\d+),")


@dataclass(frozen=True)
class Variant:
    what: str  # the variant, in a sentence fragment
    request: object  # the Request that generates it (None: the default code itself)


@dataclass(frozen=True)
class Shown:
    code: str  # what `show` prints
    left_out: list  # the Variants not printed


def shown(f, mode, args, backend: str, variants: bool) -> Shown:
    """The code `srcad show` prints for `f` called with the annotated `args` in `mode`."""
    f = _target(f)
    request = _arguments(f, mode, args, None, backend).request(mode, backend, None)
    default = _compiled(f, request).source
    if not mode.reverse:
        return Shown(default, [])
    found = _variants(default, request)
    plain = default
    if any(v.request is None for v in found):  # the checkpointing is in the default code
        plain = _compiled(f, replace(request, memory=0)).source
    if not variants:
        return Shown(plain, found)
    parts = [plain]
    in_default = [v.what for v in found if v.request is None]
    if in_default:
        parts.append("# variant: the code srcad runs by default, holding "
                     + "; ".join(in_default) + "\n" + default)
    for v in found:
        if v.request is not None:
            parts.append(f"# variant: {v.what}\n" + _compiled(f, v.request).source)
    return Shown("\n\n".join(parts), [])


def _variants(code: str, request) -> list:
    budget = f"{DEFAULT_MEMORY // 2**20} MiB (srcad.runtime.checkpointing.DEFAULT_MEMORY)"
    found = []
    for line, header in _CHECKPOINTED.findall(code):
        found.append(Variant(f"the checkpointed reverse of the loop at line {line} "
                             f"(`{header}`), run when its tape would exceed {budget}", None))
    for (line,) in (m.groups() for m in _GUARDED.finditer(code)):
        found.append(Variant(f"the checkpointed code run instead when the tape of the loop "
                             f"at line {line} would exceed {budget}",
                             replace(request, memory=MEASURED)))
    shapes = sorted({(int(line), name) for name, line in _SHAPE_CHECK.findall(code)})
    if shapes:
        where = ", ".join(f"`{name}` at line {line}" for line, name in shapes)
        found.append(Variant(f"the code recording shapes, run when a loop changes the shape "
                             f"of an array it carries ({where})",
                             replace(request, shapes_recorded=True)))
    return found


def note(left_out: list) -> str:
    """The stderr lines naming the variants `show` left out ('' when none)."""
    if not left_out:
        return ""
    lines = [f"srcad show: the plain derivative; left out {len(left_out)} variant"
             f"{'s' if len(left_out) > 1 else ''} (--variants prints them):"]
    lines += [f"  - {v.what}" for v in left_out]
    return "\n".join(lines) + "\n"
