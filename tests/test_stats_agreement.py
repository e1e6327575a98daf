"""The one matches / within noise / differs rule (evalsci.stats.agreement), at its edges."""

import pytest
from scipy.stats import norm

from evalsci.stats.agreement import LEVEL, Z, verdict, verdict_bound


def test_level_and_quantile():
    assert LEVEL == 0.95
    assert Z == pytest.approx(norm.isf(0.025))


@pytest.mark.parametrize(
    ("ours", "paper", "kw", "want"),
    [
        # the paper's 0.47 covers [0.465, 0.475]: its rounding is uncertainty
        (0.475, 0.47, {"paper_decimals": 2}, "matches"),
        (0.4651, 0.47, {"paper_decimals": 2}, "matches"),
        (0.476, 0.47, {"paper_decimals": 2}, "differs"),
        # ... then widened by z times the combined SE: 0.005 + 1.96 * 0.05 = 0.103
        (0.42, 0.47, {"paper_decimals": 2, "se": 0.03, "paper_se": 0.04}, "within noise"),
        (0.367, 0.47, {"paper_decimals": 2, "se": 0.03, "paper_se": 0.04}, "differs"),
        # exact numbers (counts): no noise band
        (12, 13, {}, "differs"),
        (13, 13, {}, "matches"),
    ],
)
def test_verdict_edges(ours, paper, kw, want):
    assert verdict(ours, paper, **kw) == want


def test_within_noise_band_is_rounding_plus_z_combined_se():
    se, pse = 0.03, 0.04  # combined SE 0.05 (3-4-5)
    band = 0.005 + Z * 0.05
    assert verdict(0.47 + band - 1e-6, 0.47, se=se, paper_se=pse, paper_decimals=2) == (
        "within noise"
    )
    assert verdict(0.47 + band + 1e-6, 0.47, se=se, paper_se=pse, paper_decimals=2) == "differs"


@pytest.mark.parametrize(
    ("ours", "se", "want"),
    [(0.62, 0.0, "matches"), (0.22, 0.0, "differs"), (0.51, 0.01, "within noise")],
)
def test_bound_claims(ours, se, want):
    assert verdict_bound(ours, 0.5, ">", se=se) == want
    flipped = {"matches": "differs", "differs": "matches"}.get(want, want)
    assert verdict_bound(ours, 0.5, "<", se=se) == flipped


@pytest.mark.parametrize("bad", [float("nan"), None, float("inf")])
def test_non_numbers_are_refused(bad):
    with pytest.raises(ValueError, match="finite"):
        verdict(bad, 0.5)
