"""Six short weekly quizzes (five questions, one point each, about ten minutes).

Multiple-choice questions carry the index of their right option; numeric questions
compute their answer with ``heldout`` like the problem sets.

Examples
--------
>>> [q.points for q in QUIZZES]
[5, 5, 5, 5, 5, 5]
"""

from __future__ import annotations

import math

from heldout.book.course.items import Assessment, Mistake, Part, Problem, one_sided_hoeffding

__all__ = ["QUIZZES"]


def _q(title: str, prompt: str, **kw) -> Problem:
    kind = "Choice" if "choices" in kw else kw.pop("kind", "Computation")
    return Problem(title, "", (Part("", kind, 1, prompt, full="The right answer.", **kw),))


def _choice(index: int):
    return lambda: index


def _exact_upper(k, n, a):
    from heldout.accuracy.bounds import exact_upper

    return exact_upper(k, n, a)


def _quiz(week, reading, questions):
    return Assessment(
        key=f"quiz{week}",
        title=f"Quiz, week {week}",
        kind="quiz",
        week=week,
        reading=reading,
        intro="Ten minutes, closed book, one point per question.",
        problems=tuple(questions),
        minutes=10,
    )


def _mcnemar(b, c):
    from heldout.comparison.paired import mcnemar_exact

    return mcnemar_exact(b, c)


def _holm_smallest():
    from heldout.comparison.multiple import holm

    return float(holm([0.01, 0.02, 0.04, 0.30])[0])


def _cluster_deff():
    from heldout.dependent.clustered import design_effect

    return design_effect(0.1, 11)


QUIZZES = (
    _quiz(
        1,
        ("test_set_bound", "beta_posterior"),
        [
            _q(
                "Zero errors",
                "A model makes 0 errors on 100 items. The exact one-sided 95 % upper bound on "
                "its error rate (four decimals) is?",
                answer=lambda: _exact_upper(0, 100, 0.05),
                mistakes=(
                    Mistake(
                        "rule of three", lambda: 0.03, "That is the rule of three; solve exactly."
                    ),
                ),
            ),
            _q(
                "What the interval covers",
                "A 95 % Clopper-Pearson interval is built on each of many test sets. Its "
                "promise is that",
                choices=(
                    "95 % of the test errors lie in it",
                    "the true error rate lies in at least 95 % of the intervals",
                    "the true error rate lies in this interval with probability 0.95 after "
                    "seeing the data",
                    "the test error rate lies in it with probability 0.95",
                ),
                answer=_choice(1),
            ),
            _q(
                "Posterior",
                "With a uniform prior and 3 errors in 50 items, the posterior of the error rate "
                "is Beta(a, b). Give a + b.",
                answer=lambda: sum(_beta(3, 47)),
                digits=0,
            ),
            _q(
                "The Wald interval",
                "Why does the Wald interval fail at small error rates?",
                choices=(
                    "its standard error is estimated from the observed rate, near 0 there",
                    "the binomial distribution is symmetric there",
                    "the test set is too large",
                    "it is a Bayesian interval",
                ),
                answer=_choice(0),
            ),
            _q(
                "Two-sided",
                "The upper end of a two-sided 95 % exact interval equals the one-sided upper "
                "bound at which level?",
                choices=("90 %", "95 %", "97.5 %", "99 %"),
                answer=_choice(2),
            ),
        ],
    ),
    _quiz(
        2,
        ("hoeffding_sizing", "acceptance_testing", "variational_split"),
        [
            _q(
                "Hoeffding",
                "Hoeffding's two-sided size for tolerance 0.05 at alpha = 0.05 (an integer)?",
                answer=lambda: _hoeffding(0.05, 0.05),
                digits=0,
                mistakes=(
                    one_sided_hoeffding(0.05, 0.05, "Two-sided: the deviation may go either way."),
                ),
            ),
            _q(
                "Quartering",
                "Halving the tolerance multiplies Hoeffding's size by about",
                choices=("2", "4", "sqrt(2)", "8"),
                answer=_choice(1),
            ),
            _q(
                "Critical count",
                "Required accuracy 0.9, n = 200, exact test at 0.05: the smallest passing "
                "number of correct items?",
                answer=lambda: _critical(200, 0.9),
                digits=0,
            ),
            _q(
                "Margin",
                "Why does an acceptance test need a margin above the required accuracy?",
                choices=(
                    "to make the test set smaller",
                    "so that a model exactly at the requirement passes with probability at "
                    "most alpha",
                    "because the accuracy is biased upwards",
                    "to use the normal approximation",
                ),
                answer=_choice(1),
            ),
            _q(
                "Splitting",
                "Moving items from training to test",
                choices=(
                    "narrows the test interval and may worsen the model",
                    "always improves the model",
                    "has no effect on the interval",
                    "widens the test interval",
                ),
                answer=_choice(0),
            ),
        ],
    ),
    _quiz(
        3,
        ("two_models", "many_models"),
        [
            _q(
                "McNemar",
                "Only A right on 9 items, only B right on 2: the exact two-sided McNemar "
                "p-value (four decimals)?",
                answer=lambda: _mcnemar(9, 2),
            ),
            _q(
                "What McNemar uses",
                "McNemar's test uses",
                choices=(
                    "all items",
                    "the items on which the models disagree",
                    "the items both get wrong",
                    "the accuracies only",
                ),
                answer=_choice(1),
            ),
            _q(
                "Holm",
                "Holm-adjusted value of the smallest of the p-values 0.01, 0.02, 0.04, 0.30 "
                "(four decimals)?",
                answer=_holm_smallest,
                mistakes=(Mistake("none", lambda: 0.01, "Adjust for the four tests."),),
            ),
            _q(
                "The leader",
                "The best of ten models on a test set is then tested on the same set. Its "
                "p-value is",
                choices=(
                    "valid",
                    "too small: the choice used the same noise",
                    "too large",
                    "valid if n is large",
                ),
                answer=_choice(1),
            ),
            _q(
                "Pairing",
                "Two models on the same items: an unpaired test is usually",
                choices=("anti-conservative", "conservative", "exact", "undefined"),
                answer=_choice(1),
            ),
        ],
    ),
    _quiz(
        4,
        ("beyond_accuracy", "auc", "operating_points", "regression_metrics"),
        [
            _q(
                "Precision",
                "40 predicted positives, 30 of them true: the 95 % Clopper-Pearson interval for "
                "precision, [low, high] (four decimals)?",
                answer=lambda: tuple(_cp(30, 40)),
                mistakes=(
                    Mistake(
                        "Wald interval",
                        lambda: (
                            0.75 - 1.959964 * math.sqrt(0.75 * 0.25 / 40),
                            0.75 + 1.959964 * math.sqrt(0.75 * 0.25 / 40),
                        ),
                        "This is the normal (Wald) interval; use the exact binomial one.",
                    ),
                ),
            ),
            _q(
                "Recall's denominator",
                "Recall's interval is a binomial interval whose n is",
                choices=(
                    "all items",
                    "the predicted positives",
                    "the actual positives",
                    "the errors",
                ),
                answer=_choice(2),
            ),
            _q(
                "AUC by pairs",
                "Scores: positives 0.9, 0.6; negatives 0.7, 0.2. The AUC (four decimals)?",
                answer=lambda: _auc([1, 1, 0, 0], [0.9, 0.6, 0.7, 0.2]),
            ),
            _q(
                "Paired AUCs",
                "Two AUCs on the same items: the variance of the difference",
                choices=(
                    "is the sum of the variances",
                    "subtracts twice their covariance",
                    "is the larger variance",
                    "is zero",
                ),
                answer=_choice(1),
            ),
            _q(
                "The threshold",
                "A threshold chosen on the test set to maximise F1 gives an F1 that is",
                choices=("unbiased", "optimistic", "pessimistic", "exact"),
                answer=_choice(1),
            ),
        ],
    ),
    _quiz(
        5,
        ("not_independent", "label_until_sure"),
        [
            _q(
                "Design effect",
                "ICC 0.1, clusters of 11 items: the design effect (four decimals)?",
                answer=_cluster_deff,
                mistakes=(Mistake("m", lambda: 2.1, "A cluster of m items has m - 1 partners."),),
            ),
            _q(
                "Effective size",
                "1,000 items with design effect 2.5 are worth how many independent items?",
                answer=lambda: _effective(1000, 2.5),
                digits=0,
            ),
            _q(
                "Which unit",
                "With items clustered by writer, the bootstrap should resample",
                choices=("items", "writers", "labels", "models"),
                answer=_choice(1),
            ),
            _q(
                "Peeking",
                "A fixed-n 95 % interval recomputed after every batch, stopping when it clears "
                "the target, has a miss probability",
                choices=("of 5 %", "above 5 %", "below 5 %", "of 0"),
                answer=_choice(1),
            ),
            _q(
                "Confidence sequence",
                "A confidence sequence at level 95 % covers the truth",
                choices=(
                    "at the final sample size only",
                    "at every sample size at once, with probability 0.95",
                    "at each sample size with probability 0.95, separately",
                    "only without peeking",
                ),
                answer=_choice(1),
            ),
        ],
    ),
    _quiz(
        6,
        ("cross_validation", "test_set_reuse", "own_data_lab"),
        [
            _q(
                "Corrected t",
                "The corrected resampled t test (J folds, test-to-training ratio n2/n1) "
                "replaces the factor 1/J in the variance of the mean fold difference by",
                choices=("1/J + n2/n1", "J", "n2/n1", "1/(J - 1)"),
                answer=_choice(0),
            ),
            _q(
                "Union bound",
                "Twenty models fixed in advance are scored on 5,000 items. Hoeffding's "
                "inequality with a union bound over the 20 at 0.05: the deviation that holds "
                "for all of them (four decimals)?",
                answer=lambda: _fixed(5000, 20),
                mistakes=(
                    Mistake("one query", lambda: _fixed(5000, 1), "Bound all 20 models at once."),
                ),
            ),
            _q(
                "Adaptivity",
                "The union bound fails for a leaderboard because",
                choices=(
                    "the test set is too small",
                    "later queries depend on earlier answers",
                    "the loss is unbounded",
                    "scores are rounded",
                ),
                answer=_choice(1),
            ),
            _q(
                "Folds",
                "Fold accuracies of 10-fold cross-validation are",
                choices=(
                    "independent",
                    "positively correlated through shared training items",
                    "negatively correlated",
                    "identically zero in variance",
                ),
                answer=_choice(1),
            ),
            _q(
                "The report",
                "A complete evaluation report gives a score with",
                choices=(
                    "its interval, level and assumptions",
                    "four decimals",
                    "its training loss",
                    "the best of several seeds",
                ),
                answer=_choice(0),
            ),
        ],
    ),
)


def _beta(k, rest):
    from heldout.accuracy.posterior import beta_params

    post = beta_params(k, rest, prior="uniform")
    return (post.a, post.b)


def _hoeffding(t, a):
    from heldout.accuracy.sizing import hoeffding_size

    return hoeffding_size(1.0, t, a)


def _critical(n, req):
    from heldout.accuracy.acceptance import critical_count

    return critical_count(n, req, 0.05)


def _cp(k, n):
    from heldout.accuracy.bounds import clopper_pearson

    return clopper_pearson(k, n)


def _auc(y, s):
    from heldout.metrics.auc import auc

    return auc(y, s)


def _effective(n, d):
    from heldout.dependent.clustered import effective_size

    return math.floor(effective_size(n, d))


def _fixed(n, models):
    from heldout.accuracy.sizing import hoeffding_tolerance

    return hoeffding_tolerance(n, 1.0, 0.05 / models)
