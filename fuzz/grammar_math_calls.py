"""The math functions of srcad's rule table no other grammar writes (`run.py --shapes
math-calls`): inverse and hyperbolic trigonometry (`math.asin`, `math.acos`, `math.atanh`,
`math.asinh`, `math.acosh`, `math.sinh`, `math.tan`), other bases (`math.log2`, `math.log10`,
`math.exp2`, `math.ldexp`), `math.cbrt`, `math.erfc`, `math.degrees`/`math.radians` and their
NumPy spellings on a number (`np.arcsin`, `np.cosh`, `np.tan`, `np.power`, `np.negative`,
`np.float64`, ...), each with its domain respected by construction
(`math.asin(0.9 * math.tanh(e))`).

In the scalar grammar (fuzz/grammar_expressions.py), a math call the seed's program makes is
replaced, by chance, with one of these around the same operand. The choice comes from a
random stream of its own (`random.Random(f"math calls {seed}")`) and is made after the
program's own draw, so the rest of the program is the one the seed gives without it.
"""

from __future__ import annotations

import random

# the chance a math call of the program is replaced
MATH_CALL_CHANCE = 0.4
# smooth everywhere on the operand's range: no kink the inputs would have to avoid
MATH_CALLS = (
    "math.asin(0.9 * math.tanh({0}))", "math.acos(0.9 * math.sin({0}))",
    "math.atanh(0.9 * math.tanh({0}))", "math.asinh({0})", "math.acosh(1.5 + ({0}) * ({0}))",
    "math.sinh(math.tanh({0}))", "math.tan(0.5 * math.tanh({0}))",
    "math.log2(1.0 + ({0}) * ({0}))", "math.log10(1.5 + ({0}) * ({0}))",
    "math.exp2(math.sin({0}))", "math.ldexp({0}, 2)", "math.cbrt(1.5 + ({0}) * ({0}))",
    "math.erfc({0})", "0.01 * math.degrees({0})", "math.radians({0}) * 3.0",
    "np.arcsin(0.9 * np.tanh({0}))", "np.arccos(0.9 * np.sin({0}))", "np.cosh(np.sin({0}))",
    "np.tan(0.5 * np.tanh({0}))", "np.arctan2({0}, 2.0 + np.cos({0}))",
    "np.power(1.5 + ({0}) ** 2, 0.5)", "np.negative({0})", "np.expm1(np.tanh({0}))",
    "np.log10(1.5 + ({0}) * ({0}))", "np.sinh(np.tanh({0}))",
    "np.float64({0}) * np.hypot({0}, 1.0)",  # NumPy's float of a number (and its division)
)


class MathCallGrammar:
    def math_call(self, chosen: str, operand: str) -> str:
        """`chosen` (a call the program's own stream drew around `operand`), or with
        `math-calls`, by chance, another function of the rule table around it."""
        if "math-calls" not in self.shapes:
            return chosen
        if not hasattr(self, "_math_calls_rng"):
            self._math_calls_rng = random.Random(f"math calls {self.seed}")
        rng = self._math_calls_rng
        if rng.random() >= MATH_CALL_CHANCE:
            return chosen
        return rng.choice(MATH_CALLS).format(operand)
