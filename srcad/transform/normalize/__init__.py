"""Normalization: the user's function rewritten into the small core every mode differentiates
(stage.py runs the passes in order; the numba hoisting and the array-name passes run after)."""
