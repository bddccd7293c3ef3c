"""The six weekly problem sets of the six-week plan (``book/teaching.md``).

Each set mixes Concept, Derivation, Computation and Data parts with points.  Every
numeric answer is a function that calls ``heldout`` when the key or a check is built;
the common wrong answers are computed the same way.  The data parts read the example
files of the repository (:mod:`heldout.book.course.data`).

Examples
--------
>>> [s.key for s in PROBLEM_SETS]
['ps1', 'ps2', 'ps3', 'ps4', 'ps5', 'ps6']
>>> all(s.points == 20 for s in PROBLEM_SETS)
True
"""

from __future__ import annotations

import math

import numpy as np

from heldout.book.course import data
from heldout.book.course.items import Assessment, Mistake, Part, Problem, one_sided_hoeffding

__all__ = ["PROBLEM_SETS"]

Z = 1.959963984540054  # the normal quantile of 0.975 (scipy.stats.norm.ppf(0.975))


def _wald(k, n, z=Z):
    p = k / n
    h = z * math.sqrt(p * (1 - p) / n)
    return (p - h, p + h)


# ---------------------------------------------------------------- week 1
def _w1_zero():
    from heldout.accuracy.bounds import exact_upper

    return exact_upper(0, 250, 0.05)


def _w1_cp():
    from heldout.accuracy.bounds import clopper_pearson

    return tuple(clopper_pearson(12, 500, alpha=0.05))


def _w1_cp_alpha_twice():
    from heldout.accuracy.bounds import clopper_pearson

    return tuple(clopper_pearson(12, 500, alpha=0.10))


def _w1_post():
    from heldout.accuracy.posterior import beta_params

    post = beta_params(12, 488, prior="uniform")
    from scipy.stats import beta

    return beta.cdf(0.04, post.a, post.b)


def _w1_post_noprior():
    from scipy.stats import beta

    return beta.cdf(0.04, 12, 488)


def _model_errors(column: int) -> int:
    y, pred = data.predictions()
    return int(np.sum(pred[:, column] != y))


def _w1_data_bound():
    from heldout.accuracy.bounds import exact_upper

    return exact_upper(_model_errors(2), 2000, 0.05)


def _w1_data_two_sided():
    from heldout.accuracy.bounds import exact_upper

    return exact_upper(_model_errors(2), 2000, 0.025)


# The duplicate finder pairs the parts below with each other and with the exam's and the
# quizzes': they are exercises written as data of one shape (Part's fields), not logic
# said twice; what they share is built once (_problem_set here, _quiz, items.Part).
def _problem_set(week: int, **fields) -> Assessment:
    """Problem set ``week`` (key ``ps<week>``): its title, reading, intro and problems."""
    return Assessment(key=f"ps{week}", kind="problem set", week=week, **fields)


PS1 = _problem_set(
    1,
    title="How sure is one score?",
    reading=("test_set_bound", "beta_posterior", "hoeffding_sizing"),
    intro="Exact binomial bounds and intervals for one error rate, and a Beta posterior.",
    problems=(
        Problem(
            "Zero errors",
            "A classifier makes no error on a test set of $n = 250$ independent items.",
            (
                Part(
                    "a",
                    "Concept",
                    3,
                    'A colleague reports the error rate as "0 plus or minus 0", from the mean '
                    "plus or minus two standard errors. In three or four sentences, say what is "
                    "wrong with this report and what to report instead.",
                    model="The estimated standard error $\\sqrt{\\hat p(1-\\hat p)/n}$ is 0 when "
                    "$\\hat p = 0$, so the interval has no width whatever $n$ is; yet a true error "
                    "rate near 1 % gives no error in 250 items with probability about 8 %. Report "
                    "the exact one-sided upper bound, the largest rate under which zero errors "
                    "still had probability at least $\\delta$.",
                    full="Names the zero standard error at $\\hat p=0$ (the interval collapses), "
                    "gives a reason a positive rate is still plausible, and proposes the exact "
                    "(Clopper-Pearson) upper bound.",
                    partial="Says the interval is too narrow or the sample too small without the "
                    "mechanism, or proposes a fix (rule of three) without saying why.",
                    none='Accepts "0 plus or minus 0" or proposes a larger multiple of the '
                    "same standard error.",
                ),
                Part(
                    "b",
                    "Derivation",
                    3,
                    "Show that the exact one-sided upper bound at level $1-\\delta$ with zero "
                    "errors is $\\bar p = 1 - \\delta^{1/n}$, and that it is close to "
                    "$\\ln(1/\\delta)/n$ when $n$ is large.",
                    model="$P(K = 0 \\mid p) = (1-p)^n$ falls in $p$; the bound is the $p$ at "
                    "which it equals $\\delta$: $(1-\\bar p)^n = \\delta$, so "
                    "$\\bar p = 1-\\delta^{1/n} = 1 - e^{-\\ln(1/\\delta)/n} \\approx "
                    "\\ln(1/\\delta)/n$ by $e^{-x} \\approx 1 - x$.",
                    full="Sets $(1-p)^n=\\delta$, solves, and expands the exponential.",
                    partial="Correct equation but no approximation, or the approximation "
                    "asserted without the expansion.",
                    none="Starts from the normal approximation.",
                ),
                Part(
                    "c",
                    "Computation",
                    2,
                    "Compute that bound for $n=250$, $\\delta = 0.05$.",
                    answer=_w1_zero,
                    model="`heldout.accuracy.bounds.exact_upper(0, 250, 0.05)`, or "
                    "$1 - 0.05^{1/250}$.",
                    full="The exact value.",
                    partial="The rule of three, $3/n$ (1 point).",
                    none="0, or a two-sided bound.",
                    mistakes=(
                        Mistake(
                            "Wald interval at zero errors",
                            lambda: _wald(0, 250)[1],
                            "This is the mean plus two standard errors: at zero errors its "
                            "standard error is zero. Use the exact binomial bound.",
                        ),
                        Mistake(
                            "rule of three",
                            lambda: 3 / 250,
                            "This is the rule of three, an approximation of the bound; solve "
                            "the exact equation instead.",
                        ),
                    ),
                ),
            ),
        ),
        Problem(
            "Twelve errors",
            "Another model makes $k = 12$ errors on $n = 500$ independent test items.",
            (
                Part(
                    "a",
                    "Computation",
                    4,
                    "Give the two-sided 95 % Clopper-Pearson interval for its error rate, as "
                    "`[low, high]`.",
                    answer=_w1_cp,
                    model="`clopper_pearson(12, 500, alpha=0.05)`; the ends are Beta quantiles "
                    "$B^{-1}(0.025; 12, 489)$ and $B^{-1}(0.975; 13, 488)$.",
                    full="Both ends, to the decimals asked.",
                    partial="One end right, or the right method at the wrong level (2 points).",
                    none="A Wald interval.",
                    mistakes=(
                        Mistake(
                            "Wald interval",
                            lambda: _wald(12, 500),
                            "This is the normal (Wald) interval, symmetric about 12/500; the "
                            "question asks for the exact binomial interval.",
                        ),
                        Mistake(
                            "each tail at alpha",
                            _w1_cp_alpha_twice,
                            "Each tail of a two-sided 95 % interval holds 2.5 %, not 5 %.",
                        ),
                    ),
                ),
                Part(
                    "b",
                    "Computation",
                    3,
                    "With a uniform prior on the error rate, what is the posterior probability "
                    "that the error rate is below 4 %?",
                    answer=_w1_post,
                    model="The posterior is Beta(1 + 12, 1 + 488); its CDF at 0.04.",
                    full="The probability, to the decimals asked.",
                    partial="The right posterior, a slip in evaluating it (1 point).",
                    none="A frequentist p-value.",
                    mistakes=(
                        Mistake(
                            "no prior",
                            _w1_post_noprior,
                            "Your posterior leaves out the uniform prior: Beta(1, 1) adds one "
                            "to each parameter.",
                        ),
                    ),
                ),
            ),
        ),
        Problem(
            "Data: model C",
            "Load `examples/predictions.csv` (2,000 digits, the true `label` and four models' "
            "predictions; `heldout.book.course.data.predictions()` returns them as arrays). "
            "Treat the items as independent.",
            (
                Part(
                    "a",
                    "Data",
                    2,
                    "How many errors does `model_c` make?",
                    answer=lambda: _model_errors(2),
                    digits=0,
                    model="Count the rows where `model_c` differs from `label`.",
                    full="The count.",
                    partial="-",
                    none="Any other count.",
                    mistakes=(
                        Mistake(
                            "counted correct items",
                            lambda: 2000 - _model_errors(2),
                            "That is the number of correct predictions, not of errors.",
                        ),
                    ),
                ),
                Part(
                    "b",
                    "Data",
                    3,
                    "Give the exact one-sided 95 % upper bound on `model_c`'s error rate.",
                    answer=_w1_data_bound,
                    model="`exact_upper(k, 2000, 0.05)` with the count of (a).",
                    full="The bound, to the decimals asked.",
                    partial="The upper end of the two-sided 95 % interval (2 points).",
                    none="A normal-approximation bound.",
                    mistakes=(
                        Mistake(
                            "two-sided end",
                            _w1_data_two_sided,
                            "This is the upper end of a two-sided interval; a one-sided bound "
                            "puts all of the 5 % in one tail.",
                        ),
                    ),
                ),
            ),
        ),
    ),
)


# ---------------------------------------------------------------- week 2
def _w2_hoeff():
    from heldout.accuracy.sizing import hoeffding_size

    return hoeffding_size(1.0, 0.03, 0.05)


def _w2_exact():
    from heldout.accuracy.sizing import binomial_size

    return binomial_size(0.03, 0.05)


def _w2_critical():
    from heldout.accuracy.acceptance import critical_count

    return critical_count(1000, 0.95, 0.05)


def _w2_pvalue():
    from heldout.accuracy.acceptance import p_value_exact

    return p_value_exact(962, 1000, 0.95)


def _w2_pvalue_normal():
    from heldout.accuracy.acceptance import p_value_normal

    return p_value_normal(962, 1000, 0.95)


def _w2_outcomes_correct() -> int:
    return int(data.outcomes()[:400].sum())


def _w2_data_p():
    from heldout.accuracy.acceptance import p_value_exact

    return p_value_exact(_w2_outcomes_correct(), 400, 0.88)


def _w2_data_p_normal():
    from heldout.accuracy.acceptance import p_value_normal

    return p_value_normal(_w2_outcomes_correct(), 400, 0.88)


PS2 = _problem_set(
    2,
    title="How big a test set?",
    reading=("acceptance_testing", "variational_split"),
    intro="Sizing a test set by an inequality and exactly, and accepting a model against a "
    "required accuracy.",
    problems=(
        Problem(
            "Sizing for a tolerance",
            "You want the test error rate within $t = 0.03$ of the true error rate, except "
            "with probability at most $\\alpha = 0.05$ (either direction).",
            (
                Part(
                    "a",
                    "Derivation",
                    3,
                    "From Hoeffding's inequality $P(|\\hat p - p| \\ge t) \\le 2e^{-2nt^2}$ "
                    "derive the smallest $n$ it certifies.",
                    model="Require $2e^{-2nt^2} \\le \\alpha$: $n \\ge \\ln(2/\\alpha)/(2t^2)$, "
                    "rounded up.",
                    full="The inequality solved for $n$ with the ceiling.",
                    partial="Drops the factor 2 (the one-sided size) or the ceiling.",
                    none="A size from the normal approximation.",
                ),
                Part(
                    "b",
                    "Computation",
                    2,
                    "Compute that size.",
                    answer=_w2_hoeff,
                    digits=0,
                    model="`hoeffding_size(1, 0.03, 0.05)`.",
                    full="The integer.",
                    partial="-",
                    none="Any other number.",
                    mistakes=(
                        one_sided_hoeffding(
                            0.03,
                            0.05,
                            "The deviation may go either way: the inequality has a factor 2.",
                        ),
                    ),
                ),
                Part(
                    "c",
                    "Computation",
                    3,
                    "Compute the smallest size for which the exact binomial probability of a "
                    "deviation larger than $t$ is at most $\\alpha$ for every true error rate "
                    "and every larger size.",
                    answer=_w2_exact,
                    digits=0,
                    model='`binomial_size(0.03, 0.05)` (rule "stable"); the worst rate is near '
                    "1/2.",
                    full="The integer.",
                    partial="A size from the normal approximation at $p=1/2$ (1 point).",
                    none="The Hoeffding size.",
                    mistakes=(
                        Mistake(
                            "Hoeffding size",
                            _w2_hoeff,
                            "That is Hoeffding's certified size, which is conservative; the "
                            "exact binomial probability allows a smaller test set.",
                        ),
                    ),
                ),
            ),
        ),
        Problem(
            "Acceptance",
            "A contract requires accuracy above $0.95$. The acceptance test is the exact "
            "one-sided binomial test at level $0.05$ on $n = 1000$ independent items.",
            (
                Part(
                    "a",
                    "Computation",
                    3,
                    "What is the smallest number of correct items with which the model passes?",
                    answer=_w2_critical,
                    digits=0,
                    model="`critical_count(1000, 0.95, 0.05)`: the smallest $c$ with "
                    "$P(\\mathrm{Bin}(1000, 0.95) \\ge c) \\le 0.05$.",
                    full="The integer.",
                    partial="Off by one from a strict/non-strict slip (1 point).",
                    none="951, accepting on the point estimate.",
                    mistakes=(
                        Mistake(
                            "point estimate",
                            lambda: 951,
                            "This accepts whenever the observed accuracy beats 0.95: with no "
                            "margin a model of exactly 0.95 would pass about half the time.",
                        ),
                    ),
                ),
                Part(
                    "b",
                    "Computation",
                    3,
                    "The model gets 962 right. Give the exact p-value.",
                    answer=_w2_pvalue,
                    model="`p_value_exact(962, 1000, 0.95)` = $P(\\mathrm{Bin}(1000, 0.95) "
                    "\\ge 962)$.",
                    full="The p-value, to the decimals asked.",
                    partial="$P(\\ge 963)$ (strict tail, 2 points).",
                    none="A two-sided p-value.",
                    mistakes=(
                        Mistake(
                            "normal approximation",
                            _w2_pvalue_normal,
                            "This is the normal approximation; the question asks for the exact "
                            "binomial tail.",
                        ),
                    ),
                ),
            ),
        ),
        Problem(
            "Data: outcomes in order",
            "`examples/outcomes.txt` holds 3,000 outcomes (1 = correct) of one model, in the "
            "order they were labelled (`heldout.book.course.data.outcomes()`).",
            (
                Part(
                    "a",
                    "Data",
                    3,
                    "Use only the first 400 outcomes. Give the exact one-sided p-value of the "
                    "null hypothesis that the accuracy is at most 0.88.",
                    answer=_w2_data_p,
                    model="Count $c$ correct among the first 400; `p_value_exact(c, 400, 0.88)`.",
                    full="The p-value, to the decimals asked.",
                    partial="The right tail from a wrong count (1 point).",
                    none="A normal-approximation p-value.",
                    mistakes=(
                        Mistake(
                            "normal approximation",
                            _w2_data_p_normal,
                            "This is the normal approximation; compute the binomial tail.",
                        ),
                    ),
                ),
                Part(
                    "b",
                    "Concept",
                    0 + 3,
                    "Your colleague looks at the p-value after 100, 200, 300 and 400 outcomes "
                    "and stops at the first that falls below 0.05. Why is the 0.05 no longer the "
                    "test's level, and what does the book offer instead?",
                    model="Each look is another chance of a false rejection; stopping at the "
                    "first success makes the probability of ever rejecting a true null larger "
                    "than 0.05. Use a confidence sequence (or a sequential test) that holds at "
                    "every look at once.",
                    full="Names the repeated chances and an anytime-valid remedy.",
                    partial="One of the two.",
                    none="Says more data always helps.",
                ),
            ),
        ),
    ),
)


# ---------------------------------------------------------------- week 3
def _correct() -> np.ndarray:
    y, pred = data.predictions()
    return pred == y[:, None]


def _w3_counts():
    c = _correct()
    return (int(np.sum(c[:, 0] & ~c[:, 2])), int(np.sum(~c[:, 0] & c[:, 2])))


def _w3_mcnemar():
    from heldout.comparison.paired import mcnemar_exact

    return mcnemar_exact(*_w3_counts())


def _w3_unpaired_p():
    from scipy.stats import norm

    c = _correct()
    pa, pc = c[:, 0].mean(), c[:, 2].mean()
    pool = (pa + pc) / 2
    z = (pa - pc) / math.sqrt(pool * (1 - pool) * 2 / 2000)
    return 2 * norm.sf(abs(z))


def _w3_small():
    from heldout.comparison.paired import mcnemar_exact

    return mcnemar_exact(9, 2)


def _w3_interval():
    from heldout.comparison.paired import diff_interval

    r = diff_interval(*_w3_counts(), 2000)
    return (r.low, r.high)


def _w3_holm():
    from heldout.comparison.multiple import all_pairs

    return int(np.sum(all_pairs(_correct(), alpha=0.05, method="holm").reject))


def _w3_raw():
    from heldout.comparison.multiple import all_pairs

    return int(np.sum(all_pairs(_correct(), alpha=0.05).p_value <= 0.05))


def _w3_leader():
    from heldout.accuracy.bounds import exact_lower

    c = _correct()
    best = int(np.argmax(c[:1000].mean(axis=0)))
    return exact_lower(int(c[1000:, best].sum()), 1000, 0.05)


def _w3_leader_same():
    from heldout.accuracy.bounds import exact_lower

    c = _correct()
    best = int(np.argmax(c[:1000].mean(axis=0)))
    return exact_lower(int(c[:1000, best].sum()), 1000, 0.05)


PS3 = _problem_set(
    3,
    title="Two models, many models",
    reading=("two_models", "many_models", "beyond_accuracy"),
    intro="Paired comparisons on the same items, and what changes when there are many models.",
    problems=(
        Problem(
            "McNemar's test",
            "Two models are scored on the same $n$ items. Let $b$ count the items only A gets "
            "right and $c$ those only B gets right.",
            (
                Part(
                    "a",
                    "Derivation",
                    3,
                    "Show that under the null hypothesis of equal accuracy, and given "
                    "$d = b + c$, $b \\sim \\mathrm{Binomial}(d, 1/2)$; write the exact "
                    "two-sided p-value.",
                    model="Items both get right or both get wrong carry no information on the "
                    "difference $(b-c)/n$. Under the null each discordant item is A's win with "
                    "probability 1/2 independently, so $b \\mid d \\sim \\mathrm{Bin}(d, 1/2)$; "
                    "$p = \\min(1, 2P(\\mathrm{Bin}(d,1/2) \\ge \\max(b,c)))$.",
                    full="Conditions on $d$, gives the Binomial, doubles the smaller tail.",
                    partial="The Binomial without the conditioning argument.",
                    none="A two-sample test of proportions.",
                ),
                Part(
                    "b",
                    "Concept",
                    2,
                    "Why is a test that treats the two accuracies as independent samples wrong "
                    "here, and in which direction does it usually err?",
                    model="The same items are hard for both models, so their outcomes are "
                    "positively correlated; the variance of the difference is smaller than the "
                    "independent-samples formula says, which is then conservative (too large "
                    "p-values, too wide intervals).",
                    full="Positive correlation through shared items, and conservative.",
                    partial="Mentions pairing without the direction.",
                    none="Says it is anti-conservative with no reason.",
                ),
                Part(
                    "c",
                    "Computation",
                    2,
                    "Without the package (scipy or by hand): compute the exact two-sided p-value "
                    "for $b = 9$, $c = 2$.",
                    answer=_w3_small,
                    model="$2P(\\mathrm{Bin}(11, 1/2) \\ge 9) = 2 \\cdot 67/2048$; "
                    "`mcnemar_exact(9, 2)`.",
                    full="The p-value from the binomial tail.",
                    partial="The one-sided tail (1 point).",
                    none="A chi-square approximation.",
                    mistakes=(
                        Mistake(
                            "one-sided",
                            lambda: _w3_small() / 2,
                            "This is one tail; the question asks for the two-sided p-value.",
                        ),
                    ),
                ),
            ),
        ),
        Problem(
            "Data: A against C",
            "Use `examples/predictions.csv`: models A (`model_a`) and C (`model_c`) on the same "
            "2,000 items.",
            (
                Part(
                    "a",
                    "Data",
                    2,
                    "Give $[b, c]$: items only A gets right, items only C gets right.",
                    answer=_w3_counts,
                    digits=0,
                    model="Cross-tabulate the two correctness vectors.",
                    full="Both counts.",
                    partial="-",
                    none="Accuracies instead of counts.",
                ),
                Part(
                    "b",
                    "Data",
                    3,
                    "Give the exact two-sided McNemar p-value.",
                    answer=_w3_mcnemar,
                    model="`mcnemar_exact(b, c)`.",
                    full="Right to the decimals asked.",
                    partial="The chi-square McNemar test (2 points).",
                    none="An unpaired test.",
                    mistakes=(
                        Mistake(
                            "unpaired test",
                            _w3_unpaired_p,
                            "This compares the accuracies as if they came from different items; "
                            "the models were scored on the same items.",
                        ),
                    ),
                ),
                Part(
                    "c",
                    "Data",
                    2,
                    "Give the 95 % interval for the difference in accuracy A - C by Tango's score "
                    "method, as `[low, high]`.",
                    answer=_w3_interval,
                    model='`diff_interval(b, c, 2000)` (method "tango").',
                    full="Both ends, to the decimals asked.",
                    partial="A Wald interval for the paired difference (1 point).",
                    none="An unpaired interval.",
                ),
            ),
        ),
        Problem(
            "Data: four models",
            "Still `examples/predictions.csv`, now all four models.",
            (
                Part(
                    "a",
                    "Data",
                    3,
                    "Run McNemar's exact test on all six pairs. How many pairs differ at "
                    "family-wise level 0.05 with Holm's correction?",
                    answer=_w3_holm,
                    digits=0,
                    model='`all_pairs(correct, method="holm").reject.sum()`.',
                    full="The count.",
                    partial="-",
                    none="The uncorrected count.",
                    mistakes=(
                        Mistake(
                            "no correction",
                            _w3_raw,
                            "Six tests at 0.05 each: the chance of some false rejection is larger "
                            "than 0.05. Adjust the p-values for the six comparisons.",
                        ),
                    ),
                ),
                Part(
                    "b",
                    "Data",
                    3,
                    "Choose the model with the highest accuracy on items 1-1,000 only. Give the "
                    "exact one-sided 95 % lower bound on its accuracy from items 1,001-2,000.",
                    answer=_w3_leader,
                    model="The leader on the first half; `exact_lower(correct, 1000, 0.05)` on "
                    "the second half.",
                    full="The bound from the second half.",
                    partial="The right bound for the wrong model (1 point).",
                    none="A bound from the items that chose the model.",
                    mistakes=(
                        Mistake(
                            "leader tested on the items that chose it",
                            _w3_leader_same,
                            "You bounded the leader on the items used to choose it; the winner's "
                            "score there is biased upwards. Use the other half.",
                        ),
                    ),
                ),
            ),
        ),
    ),
)


# ---------------------------------------------------------------- week 4
def _w4_pred():
    y, a, _ = data.scores()
    return y, (a >= 0.5).astype(int)


def _w4_precision():
    from heldout.metrics.rates import rates

    y, pred = _w4_pred()
    p = rates(y, pred).precision
    return (p.value, p.low, p.high)


def _w4_precision_all_n():
    from heldout.accuracy.bounds import clopper_pearson

    y, pred = _w4_pred()
    tp = int(np.sum((pred == 1) & (y == 1)))
    tp_fp = int(np.sum(pred == 1))
    lo, hi = clopper_pearson(round(tp / tp_fp * y.size), y.size)
    return (tp / tp_fp, lo, hi)


def _w4_auc():
    from heldout.metrics.auc import auc_interval

    y, a, _ = data.scores()
    r = auc_interval(y, a, method="wald")
    return (r.value, r.low, r.high)


def _w4_small_auc():
    from heldout.metrics.auc import auc

    return auc([1, 1, 1, 0, 0, 0], [0.9, 0.6, 0.4, 0.7, 0.4, 0.2])


def _w4_diff():
    from heldout.metrics.auc import auc_difference

    y, a, b = data.scores()
    return auc_difference(y, a, b, method="delong").p_value


def _w4_diff_unpaired():
    from scipy.stats import norm

    from heldout.metrics.auc import delong

    y, a, b = data.scores()
    da, db = delong(y, a), delong(y, b)
    z = (da.auc - db.auc) / math.sqrt(float(da.cov) + float(db.cov))
    return 2 * norm.sf(abs(z))


PS4 = _problem_set(
    4,
    title="Beyond accuracy",
    reading=("auc", "operating_points", "regression_metrics"),
    intro="Intervals for rates with their own denominators, and for the AUC of one model and "
    "of a difference.",
    problems=(
        Problem(
            "Rates and their denominators",
            "`examples/scores.csv` holds 1,000 items with a 0/1 `label` and two models' "
            "predicted probabilities (`heldout.book.course.data.scores()`). Model A predicts "
            "positive when its probability is at least 0.5.",
            (
                Part(
                    "a",
                    "Data",
                    4,
                    "Give model A's precision and its 95 % Clopper-Pearson interval, as "
                    "`[precision, low, high]`.",
                    answer=_w4_precision,
                    model="Precision is TP/(TP+FP); its interval is Clopper-Pearson on TP out of "
                    "TP+FP (`heldout.metrics.rates.rates(y, pred).precision`).",
                    full="Value and both ends.",
                    partial="The value right, the interval on another denominator (1 point).",
                    none="An interval for accuracy.",
                    mistakes=(
                        Mistake(
                            "all items as denominator",
                            _w4_precision_all_n,
                            "Your interval uses all 1,000 items as its denominator: precision is "
                            "a proportion of the predicted positives only.",
                        ),
                    ),
                ),
                Part(
                    "b",
                    "Concept",
                    3,
                    "Why can the F1 score not get a Clopper-Pearson interval the same way, and "
                    "what does the book use instead?",
                    model="F1 is not a proportion of a fixed set of items (its denominator "
                    "$2TP+FP+FN$ is random and mixes two rates); use an interval built for it "
                    "(the delta method or a bootstrap of items), as in the lesson.",
                    full="Not a binomial proportion, and a suitable method.",
                    partial="One of the two.",
                    none="Says Clopper-Pearson applies.",
                ),
            ),
        ),
        Problem(
            "AUC",
            "Same file, the probabilities themselves.",
            (
                Part(
                    "a",
                    "Derivation",
                    3,
                    "Show that the AUC equals the fraction of (positive, negative) pairs in "
                    "which the positive item scores higher (ties count one half), that is the "
                    "Mann-Whitney statistic divided by $n_1 n_0$.",
                    model="The ROC curve is a step function; the area under the step at each "
                    "negative's score is the fraction of positives scoring above it. Summing "
                    "over negatives gives the count of correctly ordered pairs over "
                    "$n_1 n_0$; a tie makes a diagonal step with half the area.",
                    full="The area summed by negatives, and ties.",
                    partial="Without ties.",
                    none="Asserts the identity.",
                ),
                Part(
                    "b",
                    "Computation",
                    2,
                    "By hand: positives score 0.9, 0.6 and 0.4, negatives 0.7, 0.4 and 0.2. "
                    "Compute the AUC from the pairs.",
                    answer=_w4_small_auc,
                    model="Of the 9 pairs, 6 are ordered right and one is tied: "
                    "$(6 + 0.5)/9$; `heldout.metrics.auc.auc`.",
                    full="The value, with the tie counted one half.",
                    partial="The tie counted as 0 or 1 (1 point).",
                    none="An accuracy at a threshold.",
                    mistakes=(
                        Mistake(
                            "tie as a loss",
                            lambda: 6 / 9,
                            "Count a tied pair as one half, not as a misordered pair.",
                        ),
                    ),
                ),
                Part(
                    "c",
                    "Data",
                    4,
                    "Give model A's AUC and DeLong's 95 % Wald interval, as `[auc, low, high]`.",
                    answer=_w4_auc,
                    model='`auc_interval(y, a, method="wald")`: AUC plus or minus $z$ times '
                    "DeLong's standard error.",
                    full="All three, to the decimals asked.",
                    partial="The AUC right (1 point).",
                    none="Accuracy at 0.5.",
                ),
                Part(
                    "d",
                    "Data",
                    4,
                    "Test whether models A and B have the same AUC on these items: DeLong's "
                    "paired two-sided p-value.",
                    answer=_w4_diff,
                    model='`auc_difference(y, a, b, method="delong").p_value`: the variance '
                    "of the difference includes the covariance of the two AUCs.",
                    full="Right to the decimals asked.",
                    partial="-",
                    none="An unpaired comparison.",
                    mistakes=(
                        Mistake(
                            "covariance ignored",
                            _w4_diff_unpaired,
                            "Your variance of the difference leaves out the covariance of the "
                            "two AUCs, measured on the same items.",
                        ),
                    ),
                ),
            ),
        ),
    ),
)


# ---------------------------------------------------------------- week 5
def _w5_deff():
    from heldout.dependent.clustered import design_effect, effective_size

    return effective_size(1200, design_effect(0.05, 20))


def _w5_clustered():
    from heldout.dependent.clustered import clustered_mean

    right, writer = data.items()
    r = clustered_mean(right, writer, method="t", correction="CR1")
    return (r.low, r.high)


def _w5_iid():
    right, _ = data.items()
    return _wald(int(right.sum()), right.size)


def _w5_deff_data():
    from heldout.dependent.clustered import clustered_mean

    right, writer = data.items()
    return clustered_mean(right, writer, method="t", correction="CR1").design_effect


def _w5_clusters():
    from heldout.dependent.cluster_sizing import clusters_for_half_width

    return clusters_for_half_width(0.02, 0.05, 20, accuracy=0.9, method="normal").clusters


def _w5_clusters_iid():
    return math.ceil(Z**2 * 0.9 * 0.1 / 0.02**2 / 20)


PS5 = _problem_set(
    5,
    title="Items that are not independent",
    reading=("not_independent", "judged_scores", "benchmarks", "label_until_sure"),
    intro="Design effects, cluster-robust intervals and sizing in clusters.",
    problems=(
        Problem(
            "The design effect",
            "A test set holds 1,200 digits written by 60 writers, 20 digits each. Whether the "
            "model is right has intra-class correlation $\\rho = 0.05$ within a writer.",
            (
                Part(
                    "a",
                    "Derivation",
                    3,
                    "Show that the variance of the mean of $m$ outcomes of one cluster, with "
                    "variance $\\sigma^2$ and pairwise correlation $\\rho$, is "
                    "$\\sigma^2(1 + (m-1)\\rho)/m$, and so that the design effect is "
                    "$1 + (m-1)\\rho$.",
                    model="$\\mathrm{Var}(\\sum y_i) = m\\sigma^2 + m(m-1)\\rho\\sigma^2$; "
                    "divide by $m^2$. Independent clusters add; the ratio to $\\sigma^2/m$ per "
                    "cluster is $1+(m-1)\\rho$.",
                    full="Variance of the sum with the $m(m-1)$ covariances.",
                    partial="The right formula with the count of covariances wrong.",
                    none="Asserts the formula.",
                ),
                Part(
                    "b",
                    "Computation",
                    3,
                    "How many independent items is this test set worth (its effective size)?",
                    answer=_w5_deff,
                    digits=1,
                    model="$1200 / (1 + 19 \\times 0.05)$; `effective_size(1200, design_effect(0.05, 20))`.",
                    full="The number.",
                    partial="-",
                    none="1,200.",
                    mistakes=(
                        Mistake(
                            "clusters ignored",
                            lambda: 1200.0,
                            "You treated the 1,200 digits as independent; digits by the same "
                            "writer are correlated.",
                        ),
                        Mistake(
                            "m instead of m - 1",
                            lambda: 1200 / (1 + 20 * 0.05),
                            "Check the design effect: a cluster of m items has m(m-1) pairs.",
                        ),
                    ),
                ),
            ),
        ),
        Problem(
            "Data: digits by writer",
            "`examples/items.csv` holds 1,201 digits by 60 writers, with the true `label` and "
            "one model's prediction (`heldout.book.course.data.items()` returns whether the "
            "model was right and the writer of each digit).",
            (
                Part(
                    "a",
                    "Data",
                    5,
                    "Give the 95 % cluster-robust interval for the accuracy (CR1 standard error, "
                    "Student's $t$ with $G - 1$ degrees of freedom) as `[low, high]`.",
                    answer=_w5_clustered,
                    model='`clustered_mean(right, writer, method="t", correction="CR1")`.',
                    full="Both ends, to the decimals asked.",
                    partial="The right standard error with the normal quantile (2 points).",
                    none="An interval for independent items.",
                    mistakes=(
                        Mistake(
                            "clusters ignored",
                            _w5_iid,
                            "Your interval treats the digits as independent; digits by the same "
                            "writer are not.",
                        ),
                    ),
                ),
                Part(
                    "b",
                    "Data",
                    3,
                    "Give the estimated design effect (the ratio of the cluster-robust to the "
                    "independent-items variance).",
                    answer=_w5_deff_data,
                    digits=3,
                    model="`clustered_mean(...).design_effect`.",
                    full="Right to the decimals asked.",
                    partial="-",
                    none="1.",
                ),
            ),
        ),
        Problem(
            "Sizing in clusters",
            "You will collect 20 digits from each new writer; the accuracy is near 0.9 and "
            "$\\rho = 0.05$.",
            (
                Part(
                    "a",
                    "Computation",
                    3,
                    "How many writers give a 95 % normal interval of half-width at most 0.02?",
                    answer=_w5_clusters,
                    digits=0,
                    model="`clusters_for_half_width(0.02, 0.05, 20, accuracy=0.9, "
                    'method="normal")`: $G = \\lceil z^2 p(1-p)(1+(m-1)\\rho)/(m h^2)\\rceil$.',
                    full="The integer.",
                    partial="-",
                    none="The count for independent items.",
                    mistakes=(
                        Mistake(
                            "clusters ignored",
                            _w5_clusters_iid,
                            "This is the count of writers if their digits were independent: "
                            "multiply by the design effect.",
                        ),
                    ),
                ),
                Part(
                    "b",
                    "Concept",
                    3,
                    "Labels cost money. Explain in two or three sentences why labelling in "
                    "batches and stopping when a confidence sequence's bound clears the target "
                    "keeps its guarantee, whereas stopping when a fixed-$n$ interval clears it "
                    "does not.",
                    model="A confidence sequence covers at every sample size at once (with "
                    "probability $1-\\alpha$ it never excludes the truth), so a stopping time "
                    "chosen by looking at it is covered too. A fixed-$n$ interval covers at each "
                    "$n$ separately; looking at many gives many chances to miss.",
                    full="Uniform-in-time coverage against per-$n$ coverage.",
                    partial="One half.",
                    none="Says both are fine with enough labels.",
                ),
            ),
        ),
    ),
)


# ---------------------------------------------------------------- week 6
#: Ten folds' accuracies of two learners (10-fold cross-validation, the same folds).
FOLDS_A = (0.861, 0.874, 0.855, 0.869, 0.881, 0.858, 0.872, 0.866, 0.879, 0.863)
FOLDS_B = (0.852, 0.866, 0.851, 0.858, 0.871, 0.857, 0.861, 0.859, 0.874, 0.856)


def _w6_corrected():
    from heldout.resampling.cv import corrected_t

    return corrected_t(FOLDS_A, FOLDS_B, test_fraction=0.1).p_value


def _w6_naive():
    from heldout.resampling.cv import naive_t

    return naive_t(FOLDS_A, FOLDS_B).p_value


def _w6_bound():
    from heldout.resampling.reuse import naive_error_bound

    return naive_error_bound(10000, 50, 0.05)


def _w6_bound_fixed():
    from heldout.accuracy.sizing import hoeffding_tolerance

    return hoeffding_tolerance(10000, 1.0, 0.05 / 50)


def _w6_bound_one():
    from heldout.resampling.reuse import naive_error_bound

    return naive_error_bound(10000, 1, 0.05)


PS6 = _problem_set(
    6,
    title="No fresh test set",
    reading=("cross_validation", "many_datasets", "test_set_reuse", "own_data_lab"),
    intro="Comparing learners by cross-validation, and what reusing a test set costs.",
    problems=(
        Problem(
            "Cross-validation",
            "Two learners are scored by 10-fold cross-validation on the same folds of 5,000 "
            "items. Their fold accuracies are\n\n"
            f"- A: {', '.join(map(str, FOLDS_A))}\n"
            f"- B: {', '.join(map(str, FOLDS_B))}",
            (
                Part(
                    "a",
                    "Concept",
                    3,
                    "Why does a paired $t$ test on the ten differences overstate the evidence?",
                    model="The training sets overlap (each pair shares 8/9 of its items), so "
                    "the fold differences are positively correlated; their sample variance "
                    "underestimates the variance of their mean, and the test rejects too often.",
                    full="Overlapping training sets, correlation, too small a variance.",
                    partial='"Not independent" without the consequence.',
                    none="Says ten folds are too few.",
                ),
                Part(
                    "b",
                    "Computation",
                    4,
                    "Give the two-sided p-value of Nadeau and Bengio's corrected resampled $t$ "
                    "test: each fold tests on a tenth of the data, so $n_2/n_1 = 1/9$.",
                    answer=_w6_corrected,
                    digits=5,
                    model="`corrected_t(a, b, test_fraction=0.1)`: the variance "
                    "$(1/J + n_2/n_1) s^2$.",
                    full="Right to the decimals asked.",
                    partial="The correction with another ratio (2 points).",
                    none="The uncorrected paired $t$ test.",
                    mistakes=(
                        Mistake(
                            "uncorrected t test",
                            _w6_naive,
                            "This is the plain paired t test on the folds; it treats the fold "
                            "differences as independent.",
                        ),
                    ),
                ),
            ),
        ),
        Problem(
            "Test-set reuse",
            "A team submits 50 models, each chosen after seeing the previous scores, to one "
            "test set of 10,000 items.",
            (
                Part(
                    "a",
                    "Derivation",
                    2,
                    "Show that at most $k(n+1)^{k-1}$ different models can be submitted in $k$ "
                    "adaptive queries, and derive from Hoeffding's inequality and a union bound "
                    "the deviation $\\varepsilon$ that holds for all of them with probability "
                    "$1-\\alpha$.",
                    model="The $t$-th model is a function of $t-1$ scores, each one of $n+1$ "
                    "values: at most $(n+1)^{t-1}$ choices, fewer than $k(n+1)^{k-1}$ over "
                    "$t \\le k$. Hoeffding gives $2e^{-2n\\varepsilon^2}$ for each; the union "
                    "bound needs $k(n+1)^{k-1} \\cdot 2e^{-2n\\varepsilon^2} \\le \\alpha$, "
                    "so $\\varepsilon = \\sqrt{((k-1)\\ln(n+1) + \\ln(2k/\\alpha))/(2n)}$.",
                    full="The count of possible models and the solved union bound.",
                    partial="The union bound over $k$ fixed models only.",
                    none="Hoeffding for one model.",
                ),
                Part(
                    "b",
                    "Computation",
                    2,
                    "The $t$-th model submitted is a function of the $t-1$ scores before it, "
                    "each one of $n+1$ values, so at most $k(n+1)^{k-1}$ models can be "
                    "submitted in $k$ queries. With Hoeffding's inequality for each and a union "
                    "bound over all of them, what deviation $\\varepsilon$ holds for every "
                    "submitted model at once with probability 0.95?",
                    answer=_w6_bound,
                    model="`naive_error_bound(10000, 50, 0.05)`: "
                    "$\\sqrt{((k-1)\\ln(n+1) + \\ln(2k/\\alpha))/(2n)}$ with $k = 50$.",
                    full="Right to the decimals asked, with the count of possible models.",
                    partial="The union bound over 50 fixed models (1 point).",
                    none="The single-query bound.",
                    mistakes=(
                        Mistake(
                            "50 fixed models",
                            _w6_bound_fixed,
                            "This union bound covers 50 models fixed in advance; models chosen "
                            "after seeing scores can be any of many more.",
                        ),
                        Mistake(
                            "one query",
                            _w6_bound_one,
                            "This holds for one fixed model; the 50 adaptive queries need a "
                            "bound that holds for all of them.",
                        ),
                    ),
                ),
                Part(
                    "c",
                    "Concept",
                    3,
                    "A union bound over the 50 submitted models alone would need them fixed in "
                    "advance. Why does choosing each model after seeing earlier scores break "
                    "it, and what do the ladder and thresholdout do about it?",
                    model="Adaptive queries may depend on the test set's noise, so the 50 "
                    "models are not fixed in advance and the bound's events are not the ones "
                    "that happen; the leaderboard can be overfit. The ladder reveals a score "
                    "only when it improves by a step and thresholdout adds noise, which limits "
                    "what leaks.",
                    full="Dependence on the noise, and what each mechanism limits.",
                    partial="One of the two.",
                    none="Says a bigger test set removes the problem entirely.",
                ),
            ),
        ),
        Problem(
            "Project check",
            "Run the lab of the last lesson (your own data) on `examples/predictions.csv` (model A).",
            (
                Part(
                    "a",
                    "Data",
                    2,
                    "Give model A's accuracy and its 95 % Clopper-Pearson interval, "
                    "`[accuracy, low, high]`.",
                    answer=lambda: _w6_lab(),
                    model="`clopper_pearson(correct, 2000)` with the count of correct items.",
                    full="All three.",
                    partial="The accuracy only (1 point).",
                    none="A Wald interval.",
                    mistakes=(
                        Mistake(
                            "Wald interval",
                            lambda: _w6_lab_wald(),
                            "This is the normal (Wald) interval; use the exact binomial one.",
                        ),
                    ),
                ),
                Part(
                    "b",
                    "Concept",
                    0 + 4,
                    "Write the paragraph of the lab's report that states the result, applying "
                    "the rules of the book.",
                    model="States the accuracy with its interval and level, the test set's size "
                    "and independence assumption, the comparison to the other models with a "
                    "paired test and correction, and what the interval licenses.",
                    full="Number, uncertainty, assumptions and a decision, each justified.",
                    partial="Numbers without assumptions, or assumptions without numbers.",
                    none="A bare score.",
                ),
            ),
        ),
    ),
)


def _w6_lab():
    from heldout.accuracy.bounds import clopper_pearson

    k = int(_correct()[:, 0].sum())
    lo, hi = clopper_pearson(k, 2000)
    return (k / 2000, lo, hi)


def _w6_lab_wald():
    k = int(_correct()[:, 0].sum())
    lo, hi = _wald(k, 2000)
    return (k / 2000, lo, hi)


PROBLEM_SETS = (PS1, PS2, PS3, PS4, PS5, PS6)
