from numpy import *  # noqa
from numpy import __version__  # noqa
from . import fft, linalg, random  # noqa
