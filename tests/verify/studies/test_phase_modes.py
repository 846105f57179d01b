"""``sigrec phase`` picks one of five diagrams for a model (verify.studies.phase_mode), and the region
modes compose the certificate with what is drawn and checked beside it."""

import numpy as np
import pytest

from sigrec.theory import Model, ModelBox, certify
from sigrec.verify.studies import heads_grid, phase_mode, phase_region

K2 = "onehot(k=2)"


@pytest.mark.parametrize("model, flags, mode", [
    (Model(1.0, 0.5, prior=K2, heads=2), (False, None, False), "heads"),
    (Model(1.0, 0.5, prior=K2), (True, None, False), "region-k2"),
    (Model(1.0, 0.5, prior=K2), (False, None, False), "transition"),
    (Model(1.0, 0.5), (False, None, False), "region"),
    (Model(1.0, 0.5), (False, None, True), "grid"),
])
def test_each_model_and_flags_pick_one_mode(model, flags, mode):
    assert phase_mode(model, *flags) == mode


@pytest.mark.parametrize("flags", [(True, None, False), (False, 100, False)])
def test_the_k2_region_flags_are_refused_for_a_scalar_prior(flags):
    with pytest.raises(ValueError, match="--region and --max-boxes"):
        phase_mode(Model(1.0, 0.5), *flags)


def test_the_scalar_region_is_the_serial_certificate_with_its_proposition_and_boundaries():
    found = phase_region(Model(1.0, 0.5), 5.0, 1e-4, 0.125)
    ref = certify(ModelBox((0.0, 5.0), (1e-4, 1.0)), min_width=0.125, log_alpha=True)
    assert found.certificate.boxes == ref.boxes and found.proposition.contradictions == ()
    assert [line.label for line in found.lines] == [r"closed form $\alpha_c(\theta)$", r"$\beta\theta=1$"]


def test_the_heads_grid_is_linear_in_theta_and_logarithmic_in_alpha():
    thetas, alphas = heads_grid(4.0, 0.05, 4, 3)
    assert np.allclose(thetas, [1, 2, 3, 4]) and np.allclose(alphas, [0.05, np.sqrt(0.05), 1.0])
    assert heads_grid(4.0, 0.3, 2, 1)[1].tolist() == [0.3]
    with pytest.raises(ValueError, match="alpha-min"):
        heads_grid(4.0, 1.0, 2, 2)
