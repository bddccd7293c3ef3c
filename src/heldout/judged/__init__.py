"""Scores graded by a model: a judge corrected by gold labels, and benchmarks with structure.

A mean score (accuracy, pass rate) graded by a model (a judge) on many items and by people
(gold labels) on a few of them: prediction-powered inference and PPI++ (``ppi``), the
misclassification correction of Rogan and Gladen (``misclassification``), and the number of gold
labels to collect (``judge_sizing``); benchmarks of language models with structure: several
samples per question and clustered questions (``benchmark``), unbiased pass@k (``passk``),
and the per-sample logs of inspect_ai, lm-evaluation-harness and plain tables (``logs``).

Every public function and result class of the wing is importable from here
(``from heldout.judged import ppi_mean``); each module is imported the first time one of
its names is used, so ``import heldout.judged`` costs nothing.

Examples
--------
>>> import heldout.judged as w
>>> callable(w.ppi_mean)
True
"""

from __future__ import annotations

from heldout._lazy import attach

#: Public name -> the module of this wing that defines it.
WHERE = {
    "GoldPlan": "judge_sizing",
    "JudgedMean": "ppi",
    "RoganGladen": "misclassification",
    "classical_mean": "ppi",
    "gold_for_half_width": "judge_sizing",
    "half_width_for_gold": "judge_sizing",
    "judge_only_mean": "ppi",
    "power_tuned_weight": "ppi",
    "ppi_difference": "ppi",
    "ppi_from_counts": "ppi",
    "ppi_mean": "ppi",
    "rogan_gladen": "misclassification",
    "rogan_gladen_from_counts": "misclassification",
    "stratified_ppi_mean": "ppi",
    # benchmarks with structure
    "BenchmarkCoverage": "benchmark",
    "BenchmarkDifference": "benchmark",
    "BenchmarkScore": "benchmark",
    "OverQuestions": "benchmark",
    "PairedPlan": "benchmark",
    "benchmark_difference": "benchmark",
    "benchmark_score": "benchmark",
    "majority_of_k": "benchmark",
    "minimum_detectable_difference": "benchmark",
    "questions_for_difference": "benchmark",
    "simulate_benchmark": "benchmark",
    "pass_at_k": "passk",
    "pass_at_k_per_question": "passk",
    "GradedAnswers": "logs",
    "read_graded": "logs",
    "read_inspect_log": "logs",
    "read_lm_eval_samples": "logs",
    "read_graded_table": "logs",
}

__all__ = sorted(WHERE)
__getattr__, __dir__ = attach(__name__, WHERE)
