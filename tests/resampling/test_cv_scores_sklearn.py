"""paired_scores with scikit-learn splitters and pipelines, and from_cross_validate,
against scikit-learn's own cross_validate on the same splits."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import (
    GridSearchCV,
    GroupKFold,
    RepeatedStratifiedKFold,
    StratifiedKFold,
    TimeSeriesSplit,
    cross_validate,
)
from sklearn.naive_bayes import GaussianNB
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from heldout.resampling.bayes import correlated_t_rope
from heldout.resampling.cv import corrected_t
from heldout.resampling.cv_scores import from_cross_validate, paired_scores

GEN = np.random.default_rng(0)
X = GEN.normal(size=(240, 3))
Y = (X[:, 0] + GEN.normal(size=240) > 0).astype(int)
GROUPS = np.repeat(np.arange(24), 10)  # 24 "writers" of 10 items each


def _sk(est, cv, groups=None):
    return cross_validate(est, X, Y, cv=cv, groups=groups, return_indices=True)


@pytest.mark.parametrize(
    "cv,groups,fraction",
    [
        (StratifiedKFold(5, shuffle=True, random_state=1), None, 0.2),
        (GroupKFold(4), GROUPS, 0.25),
        (RepeatedStratifiedKFold(n_splits=4, n_repeats=3, random_state=2), None, 0.25),
        (TimeSeriesSplit(4), None, None),
    ],
)
def test_splitters_give_cross_validate_s_scores(cv, groups, fraction):
    a = make_pipeline(StandardScaler(), LogisticRegression())
    b = GaussianNB()
    s = paired_scores(a, b, X, Y, cv, groups=groups)
    ra, rb = _sk(a, cv, groups), _sk(b, cv, groups)
    assert s.scores_a == pytest.approx(ra["test_score"])
    assert s.scores_b == pytest.approx(rb["test_score"])
    assert s.design == type(cv).__name__
    sizes = [len(te) / (len(tr) + len(te)) for tr, te in zip(*ra["indices"].values(), strict=True)]
    assert s.test_fraction == pytest.approx(np.mean(sizes))
    if fraction is not None:
        assert s.test_fraction == pytest.approx(fraction)
    if groups is not None:  # no writer on both sides of any split
        for tr, te in zip(ra["indices"]["train"], ra["indices"]["test"], strict=True):
            assert not set(groups[tr]) & set(groups[te])
    fc = from_cross_validate(ra, rb)
    assert (fc.scores_a, fc.scores_b) == (pytest.approx(s.scores_a), pytest.approx(s.scores_b))
    assert fc.test_fraction == pytest.approx(s.test_fraction)


def test_tuning_inside_every_fold_and_results_feed_the_tests():
    tuned = GridSearchCV(LogisticRegression(), {"C": [0.01, 1.0]}, cv=3)
    cv = StratifiedKFold(5, shuffle=True, random_state=3)
    s = paired_scores(tuned, GaussianNB(), X, Y, cv)
    ref = _sk(tuned, cv)["test_score"]
    assert s.scores_a == pytest.approx(ref)
    t = corrected_t(*s, s.test_fraction)
    post = correlated_t_rope(*s, s.test_fraction, rope=0.0)
    assert post.a_better == pytest.approx(1 - corrected_t(*s, 0.2, alternative="greater").p_value)
    assert 0 <= t.p_value <= 1


def test_refusals_name_the_argument():
    cv = StratifiedKFold(5, shuffle=True, random_state=1)
    ra = _sk(GaussianNB(), cv)
    rb = _sk(GaussianNB(), StratifiedKFold(5, shuffle=True, random_state=2))
    with pytest.raises(ValueError, match="same splits"):
        from_cross_validate(ra, rb)
    with pytest.raises(ValueError, match="result_a"):
        from_cross_validate({"fit_time": 1}, rb)
    with pytest.raises(ValueError, match="test_fraction is needed"):
        from_cross_validate({"test_score": [0.1, 0.2]}, {"test_score": [0.2, 0.3]})
    plain = from_cross_validate(
        {"test_score": [0.1, 0.2]}, {"test_score": [0.2, 0.3]}, test_fraction=0.5
    )
    assert plain.test_fraction == 0.5
    with pytest.raises(ValueError, match="groups"):
        paired_scores(GaussianNB(), GaussianNB(), X, Y, "kfold", groups=GROUPS)
    with pytest.raises(ValueError, match="groups"):
        paired_scores(GaussianNB(), GaussianNB(), X, Y, GroupKFold(3), groups=GROUPS[:5])
    with pytest.raises(ValueError, match="design"):
        paired_scores(GaussianNB(), GaussianNB(), X, Y, GroupKFold(3))  # no groups
