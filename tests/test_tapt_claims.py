"""tapt's claims ledger (evalsci.studies.tapt.claims) and the exact laws its uncertainties come
from (evalsci.studies.tapt.spread, evalsci.stats.permutation.sign_flip_law), on the author's
released accuracies."""

from __future__ import annotations

import itertools
from decimal import Decimal

import numpy as np
import pytest
from scipy.stats import binom

from evalsci.stats.permutation import (
    monte_carlo_pvalues,
    paired_mean_test,
    sign_flip_law,
    sign_flip_tails,
)
from evalsci.studies.tapt import claims, data, permutation, spread, table1
from evalsci.studies.tapt.hierarchical import num_correct

BUNDLE = "kddubey-pretrain-on-test/analysis"


def _load(mirror, root, pattern="*/*/*/*/accuracies.csv"):
    return data.load_accuracies(sorted((mirror / BUNDLE / root).glob(pattern)))


def test_table1_bias_double_rounding(mirror):
    """Table 1's two bias cells that do not round to the paper's print (m50 n50 BERT 0.19%,
    m50 n200 BERT -0.39%) are the paper's double rounding: the exact means (0.1848%, -0.3848%)
    rounded once to 2 decimals give the print's neighbour (0.18%, -0.38%), rounded first to 3
    decimals and then to 2 they give the print. Rounded twice, all 16 bias cells give the
    paper's print; rounded once, exactly these 2 do not."""
    acc = _load(mirror, "accuracies_from_paper")
    exact = claims.exact_mean_percent(acc, "bias")
    paper = table1.paper_table1().set_index(["m", "n", "lm"])["bias_paper"]
    printed = {k: Decimal(str(round(100 * v, 4))).quantize(Decimal("0.01")) for k, v in paper.items()}
    once = {k: claims.round_half_up(v, 2) for k, v in exact.items()}
    twice = {k: claims.round_half_up(claims.round_half_up(v, 3), 2) for k, v in exact.items()}
    assert twice == printed
    off = {k for k in exact if once[k] != printed[k]}
    assert off == {(50, 50, "bert"), (50, 200, "bert")}
    assert exact[(50, 50, "bert")] == Decimal("0.1848")
    assert (once[(50, 50, "bert")], printed[(50, 50, "bert")]) == (Decimal("0.18"), Decimal("0.19"))
    assert exact[(50, 200, "bert")] == Decimal("-0.3848")
    assert once[(50, 200, "bert")] == Decimal("-0.38")
    assert printed[(50, 200, "bert")] == Decimal("-0.39")
    # the exact means are Table 1's float means (the rule's table1.csv) to float precision
    t = table1.table1(acc).set_index(["m", "n", "lm"])["bias_mean"]
    assert all(abs(float(exact[k]) - 100 * t[k]) < 1e-12 for k in exact)


def test_sign_flip_law_is_the_enumerated_law():
    d = np.array([3, -1, 2, 0, 5, -2, 1, 4])
    law, total = sign_flip_law(d)
    sums = [int(np.dot(s, d)) for s in itertools.product([1, -1], repeat=len(d))]
    assert np.array_equal(np.bincount(np.array(sums) + total, minlength=2 * total + 1) / 256, law)
    below, on, above = sign_flip_tails(d)
    s = int(d.sum())
    assert (below, on, above) == (
        np.mean(np.array(sums) < s),
        np.mean(np.array(sums) == s),
        np.mean(np.array(sums) > s),
    )
    with pytest.raises(ValueError, match="integers"):
        sign_flip_law([0.5, 1.0])


def test_monte_carlo_law_matches_real_seeds(mirror):
    """The law of scipy's Monte Carlo p-value (a multinomial over below / on / above the
    observed statistic) against real seeds of paired_mean_test: app_reviews' footnote-4 test
    at 2,000 resamples over 60 seeds."""
    acc = _load(mirror, "accuracies_gpt2_epochs_2", "m50/n50/*/app_reviews/accuracies.csv")
    g = acc.sort_values("subsample")
    x, y = num_correct(g["extra"], 50), num_correct(g["base"], 50)
    tails = sign_flip_tails(x - y)
    assert tails[0] + tails[1] == pytest.approx(0.049758, abs=1e-6)  # exact p, below 0.05
    real = np.array(
        [paired_mean_test(x, y, alternative="less", n_resamples=2000, rng=s)[1] for s in range(60)]
    )
    law = monte_carlo_pvalues(tails, 2000, 100_000, rng=1)["less"]
    assert real.mean() == pytest.approx(law.mean(), abs=4 * law.std() / np.sqrt(60))
    assert 0.6 < real.std() / law.std() < 1.4


def test_footnote4_count_law(mirror):
    """Footnote 4's "16 of 25" is a Monte Carlo count: its limit is 17 (app_reviews' exact p
    0.04976), and at 10,000 resamples it is 16 or 17, each about half the time."""
    acc = _load(mirror, "accuracies_gpt2_epochs_2", "m50/n50/*/*/accuracies.csv")
    tails = spread.task_tails(acc, "boost")
    assert (spread.limit_pvalue(tails, "less") < 0.05).sum() == 17
    q = spread.crossing_probability(tails, "less", 0.05, 10_000)
    pmf = spread.count_law(q)
    assert pmf[16] + pmf[17] == pytest.approx(1.0, abs=1e-9)
    p = 0.049758
    assert 0.45 < pmf[17] < 0.6 and pmf[17] == pytest.approx(binom.cdf(499, 10_000, p), abs=0.01)
    # the rule's seeded count is one of the two
    tests = permutation.permutation_tests(acc, seed=20241122, n_resamples=10_000)
    less = tests[(tests["comparison"] == "boost") & (tests["alternative"] == "less")]
    assert (less["p_value"] < 0.05).sum() in (16, 17)


def test_holm_and_bh_min():
    p = np.array([0.01, 0.04, 0.03, 0.2])
    # Holm by hand: sorted 0.01 x 4, 0.03 x 3, 0.04 x 2, 0.2 x 1, running max
    assert claims.holm(p) == pytest.approx([0.04, 0.09, 0.09, 0.2])
    from scipy.stats import false_discovery_control

    assert spread.bh_min(p)[0] == pytest.approx(false_discovery_control(p).min())
