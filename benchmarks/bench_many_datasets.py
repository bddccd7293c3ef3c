"""Cost of the many-data-set comparison against scikit-posthocs in the same process.

One table of accuracies, 100 data sets x 20 learners: Friedman's test, Nemenyi's pairwise
p-values and the Wilcoxon signed-rank test of every pair with Holm's adjustment, by
``heldout.resampling.many_datasets`` (ranks once, every pair's Wilcoxon p-value in one
vectorised pass) and by ``scipy.stats.friedmanchisquare`` with scikit-posthocs'
``posthoc_nemenyi_friedman`` and ``posthoc_wilcoxon(p_adjust="holm")`` (a scipy call per
pair).  Both must give the same p-values; the ratio of their times is printed.

Run:  .venv/bin/python benchmarks/bench_many_datasets.py  (--tiny: 20 data sets x 5 learners)
"""

from __future__ import annotations

import sys
import time
import warnings

import numpy as np
import pandas as pd
import scikit_posthocs as sp
from scipy import stats

from heldout import config
from heldout.resampling.many_datasets import friedman, nemenyi, pairwise

TARGET = 5.0  # heldout should be at least this many times faster than scikit-posthocs


def _best(func, repeat: int) -> float:
    best = np.inf
    for _ in range(repeat):
        start = time.perf_counter()
        func()
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    tiny = "--tiny" in sys.argv
    n, k = (20, 5) if tiny else (100, 20)
    g = np.random.default_rng(config.SEED)
    sizes = np.round(np.exp(g.uniform(np.log(100), np.log(5000), (n, 1)))).astype(int)
    scores = g.binomial(sizes, g.uniform(0.6, 0.9, (n, 1)) + np.linspace(0, 0.04, k)) / sizes
    names = [f"L{j}" for j in range(k)]
    frame = pd.DataFrame(scores, columns=names)
    long = frame.reset_index().melt(id_vars="index", var_name="learner", value_name="score")

    def ours():
        return friedman(scores), nemenyi(scores), pairwise(scores)

    def theirs():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fr = stats.friedmanchisquare(*scores.T)
            ne = sp.posthoc_nemenyi_friedman(scores)
            wi = sp.posthoc_wilcoxon(long, val_col="score", group_col="learner", p_adjust="holm")
        return fr, ne, wi

    (fr, ne, pw), (fr2, ne2, wi2) = ours(), theirs()
    full = np.ones((k, k))
    full[pw.first, pw.second] = full[pw.second, pw.first] = pw.p_adjusted
    same = (
        np.isclose(fr.p_value, fr2.pvalue, rtol=1e-9)
        and np.allclose(ne.p_values, ne2.to_numpy(), atol=1e-9)
        and np.allclose(full, wi2.loc[names, names].to_numpy(), atol=1e-12)
    )
    repeat = 3 if tiny else 5
    t_ours, t_theirs = _best(ours, repeat), _best(theirs, max(1, repeat // 2))
    ratio = t_theirs / t_ours
    print(f"{'table':>10} {'heldout ms':>11} {'scikit-posthocs ms':>19} {'ratio':>7} {'same':>5}")
    print(
        f"{f'{n}x{k}':>10} {1e3 * t_ours:>11.1f} {1e3 * t_theirs:>19.1f} {ratio:>7.1f} {same!s:>5}"
    )
    met = "met" if ratio >= TARGET and same else "missed"
    print(
        f"TARGET many-datasets-friedman-nemenyi-wilcoxon-holm: {ratio:.1f}x scikit-posthocs "
        f"(target {TARGET:g}x) {met}"
    )


if __name__ == "__main__":
    main()
