"""Which numpy SIMD kernels this CPU runs, and how to turn the AVX-512 families off.

numpy picks the kernels of its transcendental ufuncs (``tanh``, ``arctanh``, ``exp``,
``log``, ...) at import time from the CPU's features. numpy 2.4 names the AVX-512
targets ``X86_V4``, ``AVX512_ICL`` and ``AVX512_SPR``; older releases ``AVX512F``,
``AVX512_SKX`` and so on. :func:`avx512_targets` lists the ones this numpy dispatches
to and this CPU has, in the spelling ``NPY_DISABLE_CPU_FEATURES`` expects, so a test
(and ``.ci/run``) can run the same code on the AVX2 kernels of another machine.
"""

from __future__ import annotations


def avx512_targets() -> list[str]:
    """The AVX-512 dispatch targets numpy would use here (empty on an AVX2-only CPU)."""
    from numpy._core import _multiarray_umath as m

    have = m.__cpu_features__
    return [n for n in m.__cpu_dispatch__ if (n == "X86_V4" or n.startswith("AVX512")) and have.get(n)]


if __name__ == "__main__":  # used by .ci/run
    print(" ".join(avx512_targets()))
