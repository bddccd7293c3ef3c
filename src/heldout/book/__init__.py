"""What only the book runs: the ledger of the articles' claims, chapter plumbing,
reruns and simulation studies.

A public name is importable from here (``from heldout.book import publish``) and its module
is imported when it is first used (:func:`heldout._lazy.face`).

Not part of the library: a practitioner never needs it.  ``ledger`` checks every claim
of the five articles (data in ``claims.toml``, read by ``claims``), ``chapter`` publishes
numbers into the prose, ``rerun`` reruns a chapter with other parameters,
``metric_coverage`` simulates the coverage of the metric intervals, and
:mod:`heldout.book.mnist` runs the MNIST case study.  May need the ``book`` and ``mnist``
extras.
"""

from __future__ import annotations

from heldout._lazy import face

#: Public name -> the module of this wing that defines it.
WHERE = {
    "Article": "claims",
    "Claim": "claims",
    "ClaimHead": "claims",
    "ConditionalCoverage": "metric_coverage",
    "Coverage": "metric_coverage",
    "Evidence": "ledger",
    "Leaf": "decision",
    "MnistUnavailable": "ledger",
    "Rerun": "rerun",
    "Row": "ledger",
    "accuracy_difference_coverage": "metric_coverage",
    "article_value": "claims",
    "articles": "claims",
    "auc_coverage": "metric_coverage",
    "auc_difference_coverage": "metric_coverage",
    "binormal_scores": "metric_coverage",
    "bootstrap_coverage": "metric_coverage",
    "chart_rows": "decision",
    "check_names": "ledger",
    "claim": "claims",
    "claim_head": "claims",
    "count": "chapter",
    "count_coverage": "metric_coverage",
    "count_truth": "metric_coverage",
    "coverage_tolerance": "chapter",
    "coverage_verdict": "chapter",
    "counts": "ledger",
    "draw": "decision",
    "evaluate": "ledger",
    "glued": "rerun",
    "inject": "rerun",
    "level_verdict": "chapter",
    "leaves": "decision",
    "link": "ledger",
    "macro_f1_coverage": "metric_coverage",
    "mnist_results": "ledger",
    "needs_mnist": "ledger",
    "num": "chapter",
    "parameter_names": "rerun",
    "parse_rule": "ledger",
    "parse_values": "rerun",
    "pct": "chapter",
    "precision_conditional_coverage": "metric_coverage",
    "publish": "chapter",
    "rows_of": "chapter",
    "sci": "chapter",
    "score_coverage": "metric_coverage",
    "score_difference_coverage": "metric_coverage",
    "score_truth": "metric_coverage",
    "scored_test_sets": "metric_coverage",
    "sig": "chapter",
    "simultaneous_coverage": "metric_coverage",
    "status_counts": "ledger",
    "style": "chapter",
    "table": "chapter",
    "verdict": "chapter",
}

__all__, __getattr__, __dir__ = face(__name__, WHERE)
