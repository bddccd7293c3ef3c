"""The reproduction ledger: statuses, values against independent computations, the table.

A row whose value drifts out of the article's rounding, or whose status changes,
fails here.  Reproduced values are also recomputed independently (mpmath at high
precision, exact fractions, integer arithmetic) so that the ledger's own plumbing
is checked, not only its bookkeeping.  The MNIST rows are skipped when the MNIST
experiment has not been run (no digits or no cached predictions) and checked
otherwise.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction
from pathlib import Path

import mpmath as mp
import pytest
import yaml

from heldout import ledger

ROOT = Path(__file__).resolve().parents[1]
KEYS = [c.key for c in ledger.ARTICLE]
PLAIN = [k for k in KEYS if not ledger.CHECKS[k].mnist]
MNIST = [k for k in KEYS if ledger.CHECKS[k].mnist]


@pytest.fixture(scope="module")
def rows() -> dict[str, ledger.Row]:
    return {r.key: r for r in ledger.ledger(mnist=False)}


# --------------------------------------------------------------------------- structure
def test_every_claim_has_exactly_one_check():
    assert len(KEYS) == len(set(KEYS)), "duplicate ledger keys"
    assert set(KEYS) == set(ledger.CHECKS)


def test_every_article_is_covered():
    assert {c.source for c in ledger.ARTICLE} == set(ledger.SOURCES)
    for name in ledger.SOURCES.values():
        assert re.fullmatch(r"00[0-4]_[0-9a-f]{16}\.txt", name)


def test_chapters_exist_and_are_in_the_toc():
    toc = (ROOT / "_toc.yml").read_text()
    for key, check in ledger.CHECKS.items():
        assert (ROOT / "notebooks" / f"{check.chapter}.ipynb").exists(), key
        assert f"notebooks/{check.chapter}" in toc, key
        assert check.expected in ledger.STATUSES, key
        if check.expected == "differs":
            assert check.reason, f"{key}: a 'differs' row needs a one-line reason"
            assert "\n" not in check.reason and len(check.reason) < 110, key
        assert (check.expected == "data-dependent") == check.mnist, key


def test_claim_lookup_rejects_unknown_key():
    with pytest.raises(ValueError, match="key"):
        ledger.claim("no-such-row")
    with pytest.raises(ValueError, match="key"):
        ledger.ledger(["no-such-row"])


def test_mnist_article_values_agree_with_the_mnist_chapter():
    """The two places that type the article's MNIST figures must say the same."""
    models = pytest.importorskip("heldout.models")
    for name, (model, part) in ledger._MNIST_MODEL.items():
        ref_key = "cnn_test" if (model, part) == ("cnn", "test") else model
        ref = models.ARTICLE_RESULTS[ref_key]
        assert ledger.claim(f"mnist-acc-{name}").value == pytest.approx(ref["accuracy"], abs=1e-12)
        assert ledger.claim(f"mnist-sd-{name}").value == pytest.approx(ref["se"], abs=1e-12)
    assert (
        ledger.claim("mnist-fisher-svc").value
        == models.ARTICLE_COMPARISONS[("svc_rbf", "svc_poly3")]
    )
    assert ledger.claim("mnist-fisher-cnn").value == models.ARTICLE_COMPARISONS[("svc_rbf", "cnn")]


# --------------------------------------------------------------------------- statuses
@pytest.mark.parametrize("key", PLAIN)
def test_status_is_the_expected_one(rows, key):
    row = rows[key]
    assert row.status == row.expected, (
        f"{key}: article {row.printed}, book {row.book_text} ({row.rule}) is now {row.status}, "
        f"expected {row.expected}"
    )


@pytest.mark.parametrize("key", PLAIN)
def test_discrepancy_agrees_with_the_status(rows, key):
    row = rows[key]
    assert row.discrepancy is not None and row.discrepancy >= 0
    if row.status == "reproduced":
        assert row.discrepancy <= 1 + 1e-6
    else:
        assert row.discrepancy > 1 - 1e-6


def test_status_counts(rows):
    counts = ledger.status_counts(list(rows.values()))
    assert sum(counts.values()) == len(PLAIN)
    assert counts["reproduced"] >= 30 and counts["differs"] >= 5
    assert counts["data-dependent"] == 0  # the MNIST rows were left out


# --------------------------------------------------------------------------- independent values
mp.mp.dps = 40


@pytest.fixture(autouse=True)
def _mp_precision():
    """Every test here computes at 40 digits, whatever another module left behind."""
    with mp.workdps(40):
        yield


def _mp_binom_cdf(k: int, m: int, p) -> mp.mpf:
    return mp.fsum(mp.binomial(m, i) * p**i * (1 - p) ** (m - i) for i in range(k + 1))


def _mp_invert(k: int, m: int, delta: float) -> float:
    return float(
        mp.findroot(
            lambda p: _mp_binom_cdf(k, m, p) - delta,
            (mp.mpf("0.01"), mp.mpf("0.99")),
            solver="anderson",
        )
    )


def test_example_2_bounds_against_mpmath(rows):
    m, k, d = 100, 38, mp.mpf("0.05")
    assert rows["bound-occam"].book == pytest.approx(
        float(mp.mpf(k) / m + mp.sqrt(mp.log(m / d) / (2 * m))), abs=1e-12
    )
    assert rows["bound-chernoff"].book == pytest.approx(
        float(mp.mpf(k) / m + mp.sqrt(mp.log(1 / d) / (2 * m))), abs=1e-12
    )
    assert rows["bound-exact"].book == pytest.approx(_mp_invert(38, 100, 0.05), abs=1e-9)
    # The article's 0.4565 is the exact bound for 37 errors (Appendix C sums i < k).
    assert rows["bound-program"].book == pytest.approx(_mp_invert(37, 100, 0.05), abs=1e-9)
    assert math.floor(_mp_invert(37, 100, 0.05) * 1e4) / 1e4 == ledger.claim("bound-exact").value


def test_hoeffding_size_by_integer_arithmetic(rows):
    # smallest k with 2 exp(-2 k t^2 / U^2) <= eps  <=>  k >= ln(2/eps) U^2 / (2 t^2)
    need = mp.log(mp.mpf(2) / mp.mpf("0.05")) * 14**2 / (2 * mp.mpf("0.1") ** 2)
    assert rows["hoeffding-size"].book == int(mp.ceil(need))
    assert rows["hoeffding-range"].book == pytest.approx(
        float(-2 * mp.log(mp.mpf("0.01"), 2)), rel=1e-14
    )


def test_split_fraction_against_mpmath(rows):
    share = mp.sqrt(mp.mpf("1.6")) / (mp.sqrt(mp.mpf("1.6")) + mp.sqrt(79))
    assert rows["split-test"].book == pytest.approx(float(share), rel=1e-13)
    assert rows["split-train"].book == pytest.approx(float(1 - share), rel=1e-13)


def test_beta_posterior_against_exact_fractions(rows):
    a, b = 97, 5
    mean = Fraction(a, a + b)
    var = Fraction(a * b, (a + b) ** 2 * (a + b + 1))
    assert rows["posterior-mean"].book == pytest.approx(float(mean), rel=1e-15)
    assert rows["posterior-sd"].book == pytest.approx(math.sqrt(var), rel=1e-14)
    lo = mp.findroot(
        lambda x: mp.betainc(a, b, 0, x, regularized=True) - mp.mpf("0.025"), mp.mpf("0.9")
    )
    assert rows["posterior-range-low"].book == pytest.approx(float(lo), abs=1e-10)


def test_probability_a_beats_b_against_mpmath(rows):
    # P(X > Y), X ~ Beta(96, 4), Y ~ Beta(98, 2): integral of f_X(x) F_Y(x).
    f = lambda x: mp.betainc(98, 2, 0, x, regularized=True) * x**95 * (1 - x) ** 3 / mp.beta(96, 4)  # noqa: E731
    exact = mp.quad(f, [0, mp.mpf("0.9"), 1])
    assert rows["compare-prob"].book == pytest.approx(float(exact), abs=1e-10)


def _mp_fisher_less(c1: int, c2: int, n: int) -> float:
    # P(X <= c1) for X hypergeometric: c1 + c2 successes, 2n items, n drawn.
    s = c1 + c2
    total = mp.binomial(2 * n, s)
    return float(
        mp.fsum(mp.binomial(n, i) * mp.binomial(n, s - i) for i in range(max(0, s - n), c1 + 1))
        / total
    )


def test_fisher_p_values_against_hypergeometric_sums(rows):
    assert rows["mnist-fisher-svc"].book == pytest.approx(
        _mp_fisher_less(4090, 4070, 4200), rel=1e-8
    )
    assert rows["mnist-fisher-cnn"].book == pytest.approx(
        _mp_fisher_less(4090, 4127, 4200), rel=1e-8
    )
    assert rows["compare-significant"].book is True
    assert _mp_fisher_less(96, 98, 100) > 0.05


def test_acceptance_numbers_against_mpmath(rows):
    z = -mp.sqrt(2) * mp.erfinv(2 * mp.mpf("0.01") - 1)
    assert rows["accept-z"].book == pytest.approx(float(z), rel=1e-12)
    assert rows["accept-margin"].book == pytest.approx(
        float(z * mp.sqrt(mp.mpf("0.16") / 1000)), rel=1e-12
    )
    assert rows["accept-500"].book == pytest.approx(
        float(mp.mpf("0.8") + z * mp.sqrt(mp.mpf("0.16") / 500)), rel=1e-12
    )
    assert rows["accept-07"].book == pytest.approx(
        float(z * mp.sqrt(mp.mpf("0.21") / 1000)), rel=1e-12
    )
    assert rows["accept-68"].book == pytest.approx(float(mp.erf(1 / mp.sqrt(2))), rel=1e-12)


def test_lost_bias_is_one_over_k_squared(rows):
    # Under the article's assumption E[a_hat] = a/k + p(1 - 1/k), so E[alpha] = a / k^2.
    assert rows["lost-unbiased"].book == pytest.approx(1 / ledger._LOST["batches"] ** 2, rel=1e-12)
    assert rows["lost-upper"].book is False


def test_lucky_models_by_direct_summation(rows):
    expected = 100 * sum(math.comb(100, e) * 0.05**e * 0.95 ** (100 - e) for e in range(4))
    from heldout.bounds import binomial_tail

    assert 100 * binomial_tail(3, 100, 0.05) == pytest.approx(expected, rel=1e-12)
    assert rows["many-lucky"].book is (expected >= 2)


def test_two_sigma_rule_and_the_program_for_m_1000(rows):
    # mean + 2 sd misses badly for small p: with p = 0.001 and m = 100, zero errors (probability
    # 0.999^100) give the "bound" 0 < p, and any error gives a bound above p.
    from heldout.bounds import coverage

    assert coverage(0.001, 100, 0.05, "two_sigma") == pytest.approx(1 - 0.999**100, rel=1e-12)
    assert rows["bound-two-sigma"].book is True
    assert rows["bound-program-1000"].book is False


def test_mnist_error_bars_from_the_article_accuracies(rows):
    for name in ledger._MNIST_MODEL:
        k, n = ledger._article_count(name)
        assert rows[f"mnist-sd-{name}"].book == pytest.approx(
            math.sqrt(k / n * (1 - k / n) / (n + 3)), rel=1e-12
        )


# --------------------------------------------------------------------------- rules
def test_rules_round_truncate_and_compare():
    assert ledger.Decimals(4).matches(0.5749, 0.574947)
    assert not ledger.Decimals(4).matches(0.4565, 0.466753)
    assert ledger.Decimals(2, scale=100).matches(0.0037, 0.003662)
    assert not ledger.Decimals(2, scale=100).matches(0.0037, 0.003649)
    assert ledger.Truncated(4).matches(0.4565, 0.45656)
    assert not ledger.Decimals(4).matches(0.4565, 0.45656)
    assert ledger.SignificantFigures(1).matches(1e4, 9900.0)
    assert not ledger.SignificantFigures(2).matches(1e4, 9900.0)
    assert ledger.MonteCarlo(1_000_000).matches(0.184565, 0.184303)
    assert not ledger.MonteCarlo(1_000_000).matches(0.1870, 0.184303)
    assert ledger.Holds().matches(True, True) and not ledger.Holds().matches(True, False)
    assert ledger.Relative(1e-12).matches(0.9509803921568627, 97 / 102)


# --------------------------------------------------------------------------- the rendered table
def test_frame_and_html(rows):
    pd = pytest.importorskip("pandas")
    some = [rows[k] for k in ("bound-exact", "bound-occam", "split-test")]
    frame = ledger.to_frame(some)
    assert isinstance(frame, pd.DataFrame)
    assert list(frame.index) == ["bound-exact", "bound-occam", "split-test"]
    assert list(frame["status"]) == ["differs", "reproduced", "reproduced"]
    html = ledger.to_html(some)
    assert html.count("<tr>") == 4
    assert 'href="test_set_bound.html"' in html and 'href="variational_split.html"' in html


# --------------------------------------------------------------------------- MNIST rows
@pytest.fixture(scope="module")
def mnist_table():
    try:
        return ledger.mnist_results()
    except ledger.MnistUnavailable as exc:
        pytest.skip(str(exc))


def _model_part(key: str) -> tuple[str, str]:
    if key == "mnist-dense-ceiling":
        return "dense_nn", "val"
    return ledger._MNIST_MODEL[key.removeprefix("mnist-acc-")]


@pytest.mark.mnist
@pytest.mark.parametrize("key", [k for k in MNIST if k != "mnist-relu-gain"])
def test_mnist_rows(mnist_table, key):
    row = ledger.evaluate(key)
    assert row.status == "data-dependent" and not row.error
    model, part = _model_part(key)
    hit = mnist_table[(mnist_table["model"] == model) & (mnist_table["part"] == part)]
    assert len(hit) == 1
    correct, n = int(hit["correct"].iloc[0]), int(hit["n"].iloc[0])
    assert row.book == pytest.approx(correct / n, abs=1e-15)
    a, b = Fraction(correct + 1), Fraction(n - correct + 1)
    assert row.uncertainty == pytest.approx(
        math.sqrt(a * b / ((a + b) ** 2 * (a + b + 1))), rel=1e-12
    )
    assert 0 < row.uncertainty < 0.05
    # The uncertainty shown is the Beta posterior's spread: close to the article's error bar formula.
    assert row.uncertainty == pytest.approx(
        math.sqrt(row.book * (1 - row.book) / (n + 3)), rel=0.2, abs=1e-3
    )


def test_the_relu_row_says_it_is_not_run():
    row = ledger.evaluate("mnist-relu-gain")
    assert row.status == "data-dependent" and row.book is None
    assert "not run" in row.error and "not run" in row.book_text


def test_ledger_page_glues_every_row():
    import json

    nb = json.loads((ROOT / "notebooks" / "reproduction_ledger.ipynb").read_text())
    code = "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code")
    assert "ledger.ledger(" in code and "glue(" in code
    cfg = yaml.safe_load((ROOT / "_toc.yml").read_text())
    assert "notebooks/reproduction_ledger" in json.dumps(cfg)
