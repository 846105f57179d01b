"""Signal laws: the law of the signal ``s_i`` of an informative token, scalar or k-dimensional.

Only the law of ``s`` enters the model, through its moment generating function
``M(t) = E exp(t s)`` (docs/design.md section 1.2). A prior is written as a short
spec, parsed without ``eval``:

=====================================  ==============================================
spec                                   law of ``s``
=====================================  ==============================================
``fixed``                              ``s = 1`` (the paper's model)
``rademacher`` / ``rademacher(p)``     ``+1`` with probability ``p`` (default 1/2), else ``-1``
``bernoulli(p)``                       ``1`` with probability ``p``, else ``0`` (silent tokens)
``gaussian(mu, tau)``                  ``N(mu, tau^2)``
``discrete(values=[...], probs=[...])``  any finite law
=====================================  ==============================================

Laws with ``E s < 0`` are refused: the law of ``-s`` gives the mirror image
(``xi -> -xi``, ``rho -> -rho``), so ``E s >= 0`` loses nothing and keeps ``+xi`` the
recovered direction. Arguments may be positional or named (``gaussian(mu=1, tau=0.5)``); numbers are read
exactly as fractions (``0.3`` is ``3/10``, ``1/3`` is allowed), so a spec names one
law exactly and its canonical form (:attr:`Prior.spec`) is the key by which models,
derivations and stores identify it.

A spec is parsed once, at the boundary (:func:`parse_prior`, called by
:class:`theory.Model` and by every public function that takes a ``prior``); inside
``theory`` a prior travels as the frozen :class:`Prior`, whose ``str()`` is the canonical
spec (what every record, report and store prints).

Numerically, every evaluator works with the *tilted law* of ``s``,
``P_t(s) ∝ exp(t s) P(s)``: ``log M(t)``, its mean ``mu1(t) = M'/M`` and its variance
``v(t) = M''/M - mu1^2 >= 0``. These never overflow where ``M`` itself does (log-sum-exp
for finite laws, closed forms for the Gaussian), and the same formulas run in numpy,
mpmath and python-flint ball arithmetic.

Layout: :mod:`._syntax` (reading and printing specs), :mod:`._parse` (validation of the
law, :func:`parse_prior`), :mod:`._law` (:class:`Prior`: identity, moments, MGF),
:mod:`._tilted` (the tilted law in numpy, mpmath and arb), :mod:`._sample` (the sampler),
:mod:`._ranged` (a prior whose parameters are ranges ``LO:HI``, for region certificates),
:mod:`._vector` (:class:`SignalLaw`: a law of ``s`` in ``R^k``, the scalar priors as ``k = 1``;
the one type :class:`theory.Model` holds).
"""

from ._law import Prior
from ._parse import canonical_prior, parse_prior
from ._ranged import BallPrior, RangedPrior, parse_ranged_prior
from ._syntax import FAMILIES
from ._vector import LAW_FAMILIES, SignalLaw, parse_law

__all__ = ["FAMILIES", "LAW_FAMILIES", "BallPrior", "Prior", "RangedPrior", "SignalLaw", "canonical_prior", "parse_law",
           "parse_prior", "parse_ranged_prior"]
