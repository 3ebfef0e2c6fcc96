from numpy.fft import *  # noqa
