"""One column-kind rule for in-memory ``evaluate`` and the out-of-core engine (issue 30)."""

from __future__ import annotations

import numpy as np
import pytest

from heldout.metrics.column_kinds import kind_of_summary
from heldout.metrics.engine import evaluate_files
from heldout.metrics.evaluate import evaluate
from heldout.metrics.prediction_files import column_kind


def _direct(col: np.ndarray) -> str:
    """The rule written out on the values themselves (whole -> labels, [0, 1] -> probabilities)."""
    if np.all(np.floor(col) == col):
        return "labels"
    return "probabilities" if col.min() >= 0 and col.max() <= 1 else "scores"


@pytest.mark.parametrize("seed", range(40))
def test_the_summary_rule_matches_the_rule_on_the_values(seed):
    rng = np.random.default_rng(seed)
    maker = [
        lambda: rng.integers(0, 2, 50).astype(float),
        lambda: rng.integers(-3, 7, 50).astype(float),
        lambda: rng.random(50),
        lambda: rng.normal(size=50),
        lambda: np.r_[rng.random(49), 1.0],
    ][seed % 5]
    col = maker()
    whole = bool(np.all(np.round(col) == col))
    assert kind_of_summary(whole, col.min(), col.max()) == _direct(col) == column_kind(col)


def test_whole_numbers_outside_the_unit_interval_are_not_probabilities(tmp_path):
    y = np.array([0, 1, 0, 1, 1, 0, 1, 0])
    m = np.array([0, 2, 0, 1, 3, 0, 1, 0], dtype=float)
    with pytest.raises(ValueError, match="read as probabilities but holds values outside"):
        evaluate(y, {"m": m}, kinds="probabilities", n_resamples=100, seed=1)
    path = tmp_path / "p.csv"
    path.write_text("label,m\n" + "".join(f"{a},{b:g}\n" for a, b in zip(y, m, strict=True)))
    with pytest.raises(ValueError, match="read as probabilities but holds values outside"):
        evaluate_files(path, label="label", kinds="probabilities")
    # given as scores they are read as scores by both paths
    assert (
        evaluate(y, {"m": m}, kinds="scores", n_resamples=100, seed=1)["models"]["m"]["kind"]
        == "scores"
    )
