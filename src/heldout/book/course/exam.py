"""A sample final exam: 90 minutes, closed book, the rules sheet (``book/rules.md``) allowed.

Numbers a student computes on paper are given with the table values they need (quantiles
and tail probabilities are supplied in the problem), so a calculator suffices.  Every
answer is computed by ``heldout`` when the key is built.

Examples
--------
>>> EXAM.points, EXAM.minutes
(60, 90)
"""

from __future__ import annotations

import math

from heldout.book.course.items import Assessment, Mistake, Part, Problem

__all__ = ["EXAM"]


def _upper0():
    from heldout.accuracy.bounds import exact_upper

    return exact_upper(0, 600, 0.05)


def _mcnemar():
    from heldout.comparison.paired import mcnemar_exact

    return mcnemar_exact(14, 4)


def _deff_n():
    from heldout.dependent.clustered import design_effect, effective_size

    return effective_size(2000, design_effect(0.08, 25))


def _hoeff():
    from heldout.accuracy.sizing import hoeffding_size

    return hoeffding_size(1.0, 0.03, 0.01)


def _bonferroni_level():
    return 0.05 / 10


EXAM = Assessment(
    key="exam",
    title="Sample final exam",
    kind="exam",
    week=None,
    reading=(),
    intro="90 minutes. Closed book; the one-page rules sheet is allowed, and a calculator. "
    "Give numbers to four decimals unless a count is asked. Show your reasoning: most points "
    "are for it.",
    minutes=90,
    problems=(
        Problem(
            "A perfect score",
            "A spam filter makes no error on 600 independent test e-mails.",
            (
                Part(
                    "a",
                    "Computation",
                    4,
                    "Give the exact one-sided 95 % upper bound on its error rate "
                    "($\\ln 0.05 = -2.9957$).",
                    answer=_upper0,
                    digits=5,
                    model="$1 - 0.05^{1/600} = 1 - e^{-2.9957/600}$.",
                    full="The value with the equation $(1-p)^{600} = 0.05$.",
                    partial="The rule of three, $3/600$, with its name (2 points).",
                    none="0, from mean plus two standard errors.",
                    mistakes=(
                        Mistake(
                            "Wald interval at zero errors",
                            lambda: 0.0,
                            "Mean plus two standard errors has zero width at zero errors.",
                        ),
                        Mistake(
                            "rule of three",
                            lambda: 3 / 600,
                            "The rule of three approximates the bound; solve the exact equation.",
                        ),
                    ),
                ),
                Part(
                    "b",
                    "Concept",
                    4,
                    'The vendor writes "error rate 0 %". Write the sentence you would put in the '
                    "report instead.",
                    model='"No error in 600 test e-mails; with 95 % confidence the error rate is '
                    "below 0.5 % (exact binomial bound), assuming the e-mails are independent "
                    'and like those in use."',
                    full="Bound, level, method, and the independence/representativeness assumption.",
                    partial="The bound without its assumptions.",
                    none="Repeats 0 %.",
                ),
            ),
        ),
        Problem(
            "Two models",
            "Models A and B are scored on the same 1,000 items: A alone is right on 14, B alone "
            "on 4.",
            (
                Part(
                    "a",
                    "Computation",
                    6,
                    "Give the exact two-sided McNemar p-value ($P(\\mathrm{Bin}(18, 1/2) \\ge 14) "
                    "= 0.01544$).",
                    answer=_mcnemar,
                    model="$2 \\times 0.01544$.",
                    full="The p-value with the conditioning on the 18 discordant items.",
                    partial="The one-sided p-value (3 points).",
                    none="A two-sample test of proportions.",
                    mistakes=(
                        Mistake(
                            "one-sided",
                            lambda: _mcnemar() / 2,
                            "This is one tail; the question asks for the two-sided p-value.",
                        ),
                    ),
                ),
                Part(
                    "b",
                    "Concept",
                    4,
                    "A was chosen as the best of ten candidate models on these 1,000 items. What "
                    "does that change, and at which level would you test the ten against B to "
                    "keep a family-wise level of 0.05 by Bonferroni?",
                    answer=_bonferroni_level,
                    model="The leader was tested after choosing it on the same items, so its "
                    "p-value is too small; either test on fresh items or correct for the ten "
                    "comparisons: level $0.05/10$.",
                    full="Names selection on the same items, and the level.",
                    partial="The level without the reason (2 points).",
                    none="Says the p-value stands.",
                ),
            ),
        ),
        Problem(
            "Clustered items",
            "A speech model is tested on 2,000 utterances by 80 speakers, 25 each; the ICC of "
            "correctness within a speaker is 0.08.",
            (
                Part(
                    "a",
                    "Computation",
                    6,
                    "How many independent utterances is the test set worth?",
                    answer=_deff_n,
                    digits=1,
                    model="$2000/(1 + 24 \\times 0.08)$.",
                    full="The value with the design effect.",
                    partial="The design effect right, a slip in the division (4 points).",
                    none="2,000: clusters ignored.",
                    mistakes=(
                        Mistake(
                            "clusters ignored",
                            lambda: 2000.0,
                            "Utterances by one speaker are correlated: divide by the design effect.",
                        ),
                    ),
                ),
                Part(
                    "b",
                    "Concept",
                    6,
                    "A colleague bootstraps the 2,000 utterances to get an interval for the "
                    "accuracy. What is wrong, and what do you do instead?",
                    model="Resampling utterances treats them as independent and gives too "
                    "narrow an interval; resample speakers (cluster bootstrap) or use the "
                    "cluster-robust standard error with $G - 1$ degrees of freedom.",
                    full="Names the unit of resampling and a correct method.",
                    partial="One of the two.",
                    none="Approves the bootstrap.",
                ),
            ),
        ),
        Problem(
            "Sizing",
            "A team wants the test error within 0.03 of the truth, except with probability 0.01.",
            (
                Part(
                    "a",
                    "Computation",
                    6,
                    "Give Hoeffding's two-sided size ($\\ln 200 = 5.2983$).",
                    answer=_hoeff,
                    digits=0,
                    model="$\\lceil 5.2983 / (2 \\times 0.03^2) \\rceil$.",
                    full="The integer with the formula.",
                    partial="The one-sided size (3 points).",
                    none="A size from the point estimate.",
                    mistakes=(
                        Mistake(
                            "one-sided",
                            lambda: math.ceil(math.log(100) / (2 * 0.03**2)),
                            "The deviation may go either way: use ln(2/alpha).",
                        ),
                    ),
                ),
                Part(
                    "b",
                    "Concept",
                    6,
                    "Why is the exact binomial size smaller, and why might the team still "
                    "prefer Hoeffding's?",
                    model="Hoeffding bounds every bounded loss, so it is loose for the binomial; "
                    "the exact size uses the binomial itself. Hoeffding's holds for any loss in "
                    "[0, 1] and needs no computation beyond a formula.",
                    full="Both reasons.",
                    partial="One.",
                    none="Says they are equal.",
                ),
            ),
        ),
        Problem(
            "Peeking and reuse",
            "",
            (
                Part(
                    "a",
                    "Concept",
                    9,
                    "An engineer labels test items in batches of 100 and after each batch "
                    "recomputes a 95 % Clopper-Pearson interval, stopping when its lower end "
                    "clears 0.9. Explain why the stopped interval covers the truth less often "
                    "than 95 %, and describe a procedure that keeps the guarantee.",
                    model="Every look is a chance that the interval misses; stopping at the "
                    "first clearance picks a look at which it may have missed, so the miss "
                    "probability grows with the looks. A confidence sequence (betting or "
                    "mixture) holds at every sample size at once, so stopping whenever its bound "
                    "clears 0.9 keeps 95 %.",
                    full="Mechanism and a valid procedure.",
                    partial="One of the two (4 points).",
                    none="Says more labels fix it.",
                ),
                Part(
                    "b",
                    "Concept",
                    9,
                    "A Kaggle-style leaderboard shows each submission's score on a fixed test "
                    "set. Explain why the final leader's score is optimistic and name one "
                    "mechanism that limits the damage.",
                    model="Submissions are chosen after seeing earlier scores, so they adapt to "
                    "the test set's noise and the maximum of many noisy scores is biased up. "
                    "The ladder (reveal only improvements by a step) or thresholdout (noisy "
                    "answers) limits what each query leaks.",
                    full="Adaptivity and selection bias, and a named mechanism with what it does.",
                    partial="One of the two (4 points).",
                    none="Says a larger test set removes it.",
                ),
            ),
        ),
    ),
)
