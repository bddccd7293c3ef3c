"""No fresh test set: cross-validation and a holdout used too often.

A public name is importable from here (``from heldout.resampling import corrected_t``) and its module
is imported when it is first used (:func:`heldout._lazy.face`).

Tests comparing two learners on per-fold scores (``cv``), the paired per-fold scores
themselves (``cv_scores``), naive and nested cross-validation intervals (``cv_interval``),
the simulations behind them (``cv_simulation``), A better / practically equivalent / B
better across folds and across data sets (``bayes``), several learners over many data sets
(``many_datasets``: Friedman, Nemenyi, pairwise Wilcoxon with Holm; ``hierarchical``: the
hierarchical model over data sets and folds), and adaptive reuse of a holdout: the
Ladder, Thresholdout (``reuse``).
"""

from __future__ import annotations

from heldout._lazy import face

#: Public name -> the module of this wing that defines it.
WHERE = {
    "AttackResult": "reuse",
    "BudgetExhausted": "reuse",
    "CVInterval": "cv_interval",
    "CVTest": "cv",
    "CoverageSimulation": "cv_interval",
    "Ladder": "reuse",
    "LadderResult": "reuse",
    "PairedScores": "cv_scores",
    "SplitCorrect": "cv_scores",
    "SplitPredictions": "cv_scores",
    "TestSimulation": "cv_simulation",
    "Thresholdout": "reuse",
    "ThresholdoutResult": "reuse",
    "TwoViews": "cv_simulation",
    "attack_expected_accuracy": "reuse",
    "boosting_attack": "reuse",
    "compare": "cv",
    "corrected_t": "cv",
    "correlated_t_rope": "bayes",
    "fit": "cv_scores",
    "fit_predict": "cv_scores",
    "from_cross_validate": "cv_scores",
    "five_by_two_f": "cv",
    "five_by_two_t": "cv",
    "ladder": "reuse",
    "ladder_error_bound": "reuse",
    "ladder_transcripts": "reuse",
    "mcnemar_split": "cv",
    "naive_cv_interval": "cv_interval",
    "naive_error_bound": "reuse",
    "naive_t": "cv",
    "nested_cv_interval": "cv_interval",
    "paired_scores": "cv_scores",
    "predict_splits": "cv_scores",
    "queries_supported": "reuse",
    "simulate_coverage": "cv_interval",
    "simulate_tests": "cv_simulation",
    "signed_rank_rope": "bayes",
    "single_thread": "cv_scores",
    "split_correct": "cv_scores",
    "splits": "cv_scores",
    "thresholdout": "reuse",
    "winner_bias": "reuse",
    "CriticalDifference": "many_datasets",
    "Friedman": "many_datasets",
    "HierarchicalRope": "hierarchical",
    "PairwiseBayes": "many_datasets",
    "PairwiseTests": "many_datasets",
    "ScoreTable": "many_datasets",
    "cd_diagram": "many_datasets",
    "friedman": "many_datasets",
    "hierarchical_rope": "hierarchical",
    "mean_ranks": "many_datasets",
    "nemenyi": "many_datasets",
    "pairwise": "many_datasets",
    "rank_table": "many_datasets",
    "read_scores": "many_datasets",
    "scores_from_cross_validate": "many_datasets",
    "scores_from_frame": "many_datasets",
    "signed_rank_pairs": "many_datasets",
    "wilcoxon_pvalues": "many_datasets",
}

__all__, __getattr__, __dir__ = face(__name__, WHERE)
