from numpy.random import *  # noqa
