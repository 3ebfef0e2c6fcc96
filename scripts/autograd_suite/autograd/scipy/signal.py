from scipy.signal import *  # noqa
