"""Friedman, Nemenyi, pairwise Wilcoxon/sign and Bayesian pairs against scipy and the peers."""

from __future__ import annotations

import io
import itertools
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from heldout.comparison.multiple import holm
from heldout.resampling.many_datasets import (
    ScoreTable,
    friedman,
    mean_ranks,
    nemenyi,
    pairwise,
    rank_table,
    read_scores,
    scores_from_cross_validate,
    scores_from_frame,
    signed_rank_pairs,
)


def _table(seed, n=12, k=5, ties=False):
    g = np.random.default_rng(seed)
    s = g.uniform(0.6, 0.9, (n, k)) + np.linspace(0, 0.08, k)
    return np.round(s, 2) if ties else s


@pytest.mark.parametrize("seed,n,k,ties", [(1, 12, 5, False), (2, 6, 3, True), (3, 30, 20, True)])
def test_friedman_matches_scipy_and_iman_davenport(seed, n, k, ties):
    s = _table(seed, n, k, ties)
    res = friedman(s)
    # scipy ranks ascending; the statistic is the same for reversed ranks
    ref = stats.friedmanchisquare(*s.T)
    assert res.statistic == pytest.approx(ref.statistic, rel=1e-10)
    assert res.p_value == pytest.approx(ref.pvalue, rel=1e-9)
    f = (n - 1) * ref.statistic / (n * (k - 1) - ref.statistic)
    assert res.f == pytest.approx(f, rel=1e-10)
    assert res.f_p_value == pytest.approx(stats.f.sf(f, k - 1, (k - 1) * (n - 1)), rel=1e-9)
    assert res.mean_ranks == pytest.approx(stats.rankdata(-s, axis=1).mean(axis=0))


def test_friedman_perfect_agreement_and_all_ties():
    s = np.tile([0.9, 0.8, 0.7], (5, 1))
    res = friedman(s)
    assert res.statistic == pytest.approx(10.0) and res.f == np.inf and res.f_p_value == 0.0
    flat = friedman(np.full((4, 3), 0.5))
    assert (flat.statistic, flat.p_value) == (0.0, 1.0)


def test_ranks_lower_is_better_and_ties():
    s = [[0.1, 0.2, 0.2], [0.3, 0.1, 0.2]]
    assert rank_table(s, higher_is_better=False).tolist() == [[1, 2.5, 2.5], [3, 1, 2]]
    assert mean_ranks(s, False).tolist() == [2.0, 1.75, 2.25]


@pytest.mark.parametrize("seed,n,k,ties", [(1, 12, 5, False), (4, 8, 4, True), (5, 40, 20, False)])
def test_nemenyi_p_values_match_scikit_posthocs(seed, n, k, ties):
    import scikit_posthocs as sp

    s = _table(seed, n, k, ties)
    res = nemenyi(s)
    # scikit-posthocs ranks ascending: the same absolute differences of mean ranks
    ref = sp.posthoc_nemenyi_friedman(s).to_numpy()
    assert res.p_values == pytest.approx(ref, abs=1e-9)


def test_critical_difference_matches_autorank_and_demsar_table():
    from autorank import autorank

    s = _table(7, 12, 5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = autorank(pd.DataFrame(s, columns=list("ABCDE")), force_mode="nonparametric")
    res = nemenyi(s)
    assert ref.omnibus == "friedman" and ref.posthoc == "nemenyi"
    assert res.cd == pytest.approx(ref.cd, rel=1e-4)
    assert friedman(s).p_value == pytest.approx(ref.pvalue, rel=1e-9)
    ranks = ref.rankdf.meanrank.reindex(list("ABCDE")).to_numpy()
    assert res.mean_ranks == pytest.approx(ranks)
    # Demšar (2006), Table 5(a): q_0.05 for k = 2..10, printed with three decimals
    table = [1.960, 2.343, 2.569, 2.728, 2.850, 2.949, 3.031, 3.102, 3.164]
    for k, q in zip(range(2, 11), table, strict=True):
        assert nemenyi(_table(k, 10, k)).q == pytest.approx(q, abs=1e-3)


@pytest.mark.parametrize("seed,k", [(8, 6), (9, 12), (10, 20)])
def test_groups_are_the_maximal_runs_not_separated(seed, k):
    s = _table(seed, 10, k, ties=True)
    res = nemenyi(s, alpha=0.1)
    order, ranks = res.order, res.mean_ranks
    pos = {int(j): i for i, j in enumerate(order)}
    runs = [(pos[g[0]], pos[g[-1]]) for g in res.groups]
    # brute force: every run [i, j] of the sorted learners whose ends are not separated
    ok = [
        (i, j)
        for i in range(k)
        for j in range(i + 1, k)
        if ranks[order[j]] - ranks[order[i]] < res.cd
    ]
    maximal = [r for r in ok if not any(o != r and o[0] <= r[0] and r[1] <= o[1] for o in ok)]
    assert sorted(runs) == sorted(maximal)
    for g in res.groups:  # inside a bar no pair is declared different
        for a, b in itertools.combinations(g, 2):
            assert res.p_values[a, b] > res.alpha


@pytest.mark.parametrize("ties", [False, True])
def test_wilcoxon_holm_matches_scikit_posthocs(ties):
    import scikit_posthocs as sp

    s = _table(11, 15, 6, ties)
    names = list("ABCDEF")
    df = pd.DataFrame(s, columns=names)
    long = df.reset_index().melt(id_vars="index", var_name="g", value_name="v")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = sp.posthoc_wilcoxon(long, val_col="v", group_col="g", p_adjust="holm")
        res = pairwise(df)
    m = np.ones((6, 6))
    m[res.first, res.second] = m[res.second, res.first] = res.p_adjusted
    assert m == pytest.approx(ref.loc[names, names].to_numpy(), abs=1e-12)
    assert res.learners == tuple(names)


def test_sign_test_against_control_with_binomtest_and_holm():
    s = _table(12, 9, 4, ties=True)
    res = pairwise(s, method="sign", control=3)
    raw = []
    for j in range(3):
        d = s[:, 3] - s[:, j]
        w, losses = int(np.sum(d > 0)), int(np.sum(d < 0))
        raw.append(stats.binomtest(w, w + losses, 0.5).pvalue)
    assert res.second.tolist() == [0, 1, 2] and res.first.tolist() == [3, 3, 3]
    assert res.p_value == pytest.approx(raw, abs=1e-12)
    assert res.p_adjusted == pytest.approx(holm(raw), abs=1e-12)


def test_control_by_name_and_other_adjustments():
    from heldout.comparison.multiple import benjamini_yekutieli, hommel

    df = pd.DataFrame(_table(13, 10, 4), columns=["a", "b", "c", "d"])
    res = pairwise(df, control="b", adjust="hommel")
    assert res.names() == [("b", "a"), ("b", "c"), ("b", "d")]
    assert res.p_adjusted == pytest.approx(hommel(res.p_value))
    by = pairwise(df, adjust="by")
    assert by.p_adjusted == pytest.approx(benjamini_yekutieli(by.p_value))
    low = pairwise(-df.to_numpy(), higher_is_better=False, control=1)
    assert low.p_value == pytest.approx(res.p_value)
    with pytest.raises(ValueError, match="control must be one of"):
        pairwise(df, control="z")


def test_signed_rank_pairs_match_baycomp_to_monte_carlo_error():
    import baycomp

    s = _table(14, 10, 3)
    res = signed_rank_pairs(s, rope=0.01, draws=20_000, seed=5)
    for t, (i, j) in enumerate(zip(res.first, res.second, strict=True)):
        ref = baycomp.SignedRankTest.probs(s[:, i], s[:, j], rope=0.01, nsamples=20_000)
        ours = (res.a_better[t], res.equivalent[t], res.b_better[t])
        # two independent runs of 20,000 draws: standard error of a difference <= 0.005
        assert ours == pytest.approx(ref, abs=0.02)


def test_readers_agree_on_one_table(tmp_path):
    text = "dataset,fold,a,b,c\niris,1,0.9,0.8,0.7\niris,2,0.95,0.85,0.7\n"
    text += "# a comment\nwine,1,0.7,0.9,0.6\nwine,2,0.75,0.8,0.65\n"
    path = tmp_path / "s.csv"
    path.write_text(text)
    t = read_scores(str(path))
    assert t.scores.shape == (2, 2, 3) and t.datasets == ("iris", "wine")
    assert t.means == pytest.approx(np.array([[0.925, 0.825, 0.7], [0.725, 0.85, 0.625]]))
    frame = pd.read_csv(io.StringIO(text), comment="#").set_index(["dataset", "fold"])
    f = scores_from_frame(frame)
    assert np.array_equal(f.scores, t.scores) and f.learners == t.learners
    cv = {
        d: {name: {"test_score": t.scores[i, :, j]} for j, name in enumerate(t.learners)}
        for i, d in enumerate(t.datasets)
    }
    c = scores_from_cross_validate(cv)
    assert np.array_equal(c.scores, t.scores)
    assert friedman(t).mean_ranks.tolist() == friedman(t.means).mean_ranks.tolist()
    assert friedman(t).learners == ("a", "b", "c")
    assert isinstance(t, ScoreTable)


def test_from_sklearn_cross_validate():
    from sklearn.datasets import load_iris, load_wine
    from sklearn.model_selection import cross_validate
    from sklearn.naive_bayes import GaussianNB
    from sklearn.tree import DecisionTreeClassifier

    learners = {"nb": GaussianNB(), "tree": DecisionTreeClassifier(max_depth=2, random_state=0)}
    res = {
        name: {k: cross_validate(m, *loader(return_X_y=True), cv=3) for k, m in learners.items()}
        for name, loader in (("iris", load_iris), ("wine", load_wine))
    }
    t = scores_from_cross_validate(res)
    assert t.scores.shape == (2, 3, 2)
    assert t.scores[1, :, 0] == pytest.approx(res["wine"]["nb"]["test_score"])


@pytest.mark.parametrize(
    "text,match",
    [
        ("dataset,a\nx,1\n", "at least 2 learners"),
        ("dataset,a,b\nx,1,oops\n", "line 2 holds a score that is not a number"),
        ("dataset,a,b\nx,1\n", "line 2 has 2 cells"),
        ("dataset,a,b\nx,1,2\nx,1,2\n", "appears twice"),
        ("dataset,a,b\nx,1,nan\n", "not finite"),
        ("dataset,a,b\nx,1,2\n", "at least 2 data sets"),
        ("dataset,a,a\nx,1,2\ny,1,2\n", "distinct"),
        ("dataset,fold,a,b\nx,1,1,2\nx,2,1,2\ny,1,1,2\n", "same number of folds"),
        ("", "no header"),
    ],
)
def test_bad_files_are_refused_by_name(text, match):
    with pytest.raises(ValueError, match=match):
        read_scores(io.StringIO(text), "t.csv")


@pytest.mark.parametrize(
    "call,match",
    [
        (lambda: friedman([[1, 2, 3]]), "at least 2 data sets"),
        (lambda: friedman([[1], [2]]), "at least 2 learners"),
        (lambda: friedman([1, 2, 3]), "2-d table"),
        (lambda: friedman([[1, np.nan], [1, 2]]), "finite"),
        (lambda: nemenyi([[1, 2], [2, 1]], alpha=1.5), "alpha"),
        (lambda: pairwise([[1, 2], [2, 1]], method="t"), "method"),
        (lambda: pairwise([[1, 2], [2, 1]], adjust="x"), "adjust"),
        (lambda: friedman([[True, False], [False, True]]), "scores"),
        (lambda: signed_rank_pairs([[1, 2], [2, 1]], draws=10), "draws"),
    ],
)
def test_bad_arguments_are_refused_by_name(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_work_cap_is_checked_before_the_work(monkeypatch):
    import heldout.resampling.many_datasets as md

    monkeypatch.setattr(md, "MAX_CELLS", 10)
    with pytest.raises(ValueError, match="would need 12 steps"):
        friedman(np.zeros((4, 3)))


@pytest.mark.parametrize("n", [4, 7, 14, 25, 60])
def test_wilcoxon_pvalues_equal_scipy_column_by_column(n):
    from heldout.resampling.many_datasets import wilcoxon_pvalues

    g = np.random.default_rng(n)
    d = np.round(g.normal(0.2, 1, (n, 12)), 1)  # ties
    d[:, :4] = g.normal(0.2, 1, (n, 4))  # no ties
    d[0, 5] = 0.0  # a zero
    d[:, 6] = 0.0  # all zeros: p-value 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = [stats.wilcoxon(d[:, j]).pvalue for j in range(12)]
    ref = np.nan_to_num(ref, nan=1.0)
    assert wilcoxon_pvalues(d) == pytest.approx(ref, abs=1e-12)
