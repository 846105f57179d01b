"""Hypothesis strategies for the theory tests (users get theirs from sigrec.verify.strategies)."""

from hypothesis import strategies as st

from sigrec.theory import Model

thetas = st.floats(0.0, 20.0, allow_nan=False)
alphas = st.one_of(st.just(0.0), st.floats(1e-6, 1.0), st.sampled_from([1e-6, 1.0, 0.5]))
betas = st.floats(0.05, 10.0)
sigma2s = st.floats(0.05, 10.0)
priors = st.sampled_from(["fixed", "rademacher"])


@st.composite
def models(draw, theta=thetas, alpha=alphas, beta=betas, sigma2=sigma2s, prior=priors):
    return Model(theta=draw(theta), alpha=draw(alpha), beta=draw(beta), sigma2=draw(sigma2), prior=draw(prior))
