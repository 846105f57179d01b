"""A generator wrapper shared by the long-context tests: it logs every draw, per call, so that a
replay can serve the same numbers to another kernel."""

from __future__ import annotations

from collections import deque

import numpy as np


class DrawRecorder:
    """A generator that logs every draw, per call."""

    def __init__(self, gen):
        self.gen, self.log = gen, deque()

    def standard_normal(self, size=None, out=None):
        x = self.gen.standard_normal(size, out=out)
        self.log.append(("normal", np.array(out if out is not None else x, copy=True)))
        return x

    def standard_gamma(self, shape):
        x = self.gen.standard_gamma(shape)
        self.log.append(("gamma", x))
        return x

    def integers(self, low, high, size):
        x = self.gen.integers(low, high, size=size)
        self.log.append(("integers", x))
        return x
