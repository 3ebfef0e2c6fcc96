from . import integrate, linalg, signal, special, stats  # noqa
