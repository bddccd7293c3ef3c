"""Several models scored on one test set.

A public name is importable from here (``from heldout.comparison import best_set``) and its module
is imported when it is first used (:func:`heldout._lazy.face`).

Per-item correctness (``predictions``), paired tests, intervals and sizes for two models
on the same items (``paired``), every pair with an adjustment for multiplicity
(``multiple``), one omnibus test of equal accuracy (``omnibus``: Cochran's Q), the model
confidence set of per-item losses (``mcs``), A better / practically equivalent / B
better from the paired posterior (``rope``), two models' accuracies from counts (``compare``), and which model can be
the best (``best``: the best set, the paired P(best)).
"""

from __future__ import annotations

from heldout._lazy import face

#: Public name -> the module of this wing that defines it.
WHERE = {
    "BestBounds": "compare",
    "BestSet": "best",
    "CochranQ": "omnibus",
    "DiffInterval": "paired",
    "Disagreements": "paired",
    "EquivalenceTest": "paired",
    "FalseClaims": "best",
    "ModelConfidenceSet": "mcs",
    "MonteCarlo": "compare",
    "NoninferiorityTest": "paired",
    "PairedBest": "best",
    "PairedSize": "paired",
    "Pairs": "multiple",
    "PatternProbs": "best",
    "Patterns": "predictions",
    "PickBest": "best",
    "PickBestSize": "best",
    "PickSize": "paired",
    "Rope": "rope",
    "Predictions": "predictions",
    "SimulatedPower": "compare",
    "adjust": "multiple",
    "all_pairs": "multiple",
    "as_correct": "predictions",
    "benjamini_hochberg": "multiple",
    "benjamini_yekutieli": "multiple",
    "best_bounds": "compare",
    "best_set": "best",
    "bonferroni": "multiple",
    "chi2_test": "compare",
    "cochran_q": "omnibus",
    "correctness": "predictions",
    "diff_coverage": "paired",
    "diff_interval": "paired",
    "disagreements": "paired",
    "equivalence_test": "paired",
    "false_claims": "best",
    "first_at_least": "paired",
    "fisher_test": "compare",
    "holm": "multiple",
    "hommel": "multiple",
    "mc_draws_needed": "compare",
    "mcnemar_exact": "paired",
    "mcnemar_power": "paired",
    "model_confidence_set": "mcs",
    "noninferiority_test": "paired",
    "paired_cell_probs": "compare",
    "paired_prob_better": "compare",
    "paired_rope": "rope",
    "paired_size": "paired",
    "pairwise_prob_better": "compare",
    "pattern_counts": "predictions",
    "pick_best_paired": "best",
    "pick_best_probability": "compare",
    "pick_best_size_paired": "best",
    "pick_probability": "paired",
    "pick_size": "paired",
    "prob_best": "compare",
    "prob_best_mc": "compare",
    "prob_best_paired": "best",
    "prob_better": "compare",
    "prob_better_mc": "compare",
    "prob_greater_beta": "compare",
    "read_predictions": "predictions",
    "required_size": "compare",
    "required_size_exact": "compare",
    "required_size_paired": "compare",
    "shared_patterns": "best",
    "simulate_correct": "best",
    "simulate_pick_best": "compare",
    "simulate_power": "compare",
    "unpaired_size": "paired",
}

__all__, __getattr__, __dir__ = face(__name__, WHERE)
