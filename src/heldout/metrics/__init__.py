"""Beyond accuracy: every metric of a predictions file, with intervals.

Rates on their own denominators (``rates``), F1 and balanced accuracy (``fscore``), the
AUC (``auc``), proper scores (``scores``), class proportions (``multinomial``), the paired
bootstrap (``bootstrap``), the test mean squared error (``regression``), result objects
(``estimate``), reading a predictions file (``prediction_files``) and everything at once
(``evaluate``), also for files larger than memory through DuckDB or Dask (``engine``),
with one rule for what a model column holds (``column_kinds``).

Every public function and result class of the wing is importable from here
(``from heldout.metrics import auc_interval``); each module is imported the first time one
of its names is used, so ``import heldout.metrics`` costs nothing.

Examples
--------
>>> import heldout.metrics as w
>>> callable(w.auc_interval)
True
"""

from __future__ import annotations

from heldout._lazy import attach

#: Public name -> the module of this wing that defines it.
WHERE = {
    "AUCSize": "auc",
    "BCaInterval": "bootstrap",
    "CalibrationError": "calibration",
    "CalibrationSlope": "calibration",
    "CalibrationWarning": "calibration",
    "ClassRates": "rates",
    "Confusion": "rates",
    "Context": "evaluate",
    "DeLong": "auc",
    "Difference": "estimate",
    "Estimate": "estimate",
    "MSEInterval": "regression",
    "MethodCoverage": "regression",
    "OperatingPoint": "operating",
    "OperatingPointWarning": "operating",
    "negatives_needed": "operating",
    "PartialAUC": "partial_area",
    "Placements": "auc",
    "Predictions": "prediction_files",
    "ROCBand": "simultaneous_band",
    "Rates": "rates",
    "Reliability": "scores",
    "ReliabilityBand": "calibration",
    "Residuals": "regression",
    "SmallSampleWarning": "bootstrap",
    "SpiegelhalterZ": "calibration",
    "ThresholdReport": "threshold_optimism",
    "TunedThreshold": "threshold_optimism",
    "accuracy_difference": "rates",
    "auc_best_set": "report",
    "auc_difference": "auc",
    "auc_interval": "auc",
    "auc_power_size": "auc",
    "auc_size": "auc",
    "auc_variance": "auc",
    "balanced_accuracy_interval": "fscore",
    "bca_interval": "bootstrap",
    "bonferroni_exact": "multinomial",
    "bootstrap_interval": "bootstrap",
    "brier_items": "scores",
    "calibration_error": "calibration",
    "calibration_slope": "calibration",
    "class_f1": "fscore",
    "class_rates": "rates",
    "cluster_bootstrap_interval": "bootstrap",
    "column_kind": "prediction_files",
    "kind_of_summary": "column_kinds",
    "confusion": "rates",
    "confusion_matrix": "rates",
    "crossfit_threshold": "threshold_optimism",
    "delong": "auc",
    "detect_kind": "evaluate",
    "effective_size": "auc",
    "evaluate_files": "engine",
    "f1_interval": "fscore",
    "f1_score": "fscore",
    "forest_plot": "evaluate",
    "goodman": "multinomial",
    "log_loss_items": "scores",
    "label_warning": "prediction_files",
    "label_warning_of_summary": "column_kinds",
    "macro_interval": "fscore",
    "metric_entry": "report",
    "micro_f1_interval": "fscore",
    "mse": "regression",
    "mse_coverage": "regression",
    "mse_interval": "regression",
    "mse_se": "regression",
    "pair_entry": "report",
    "operating_entries": "operating_report",
    "parse_band": "operating_report",
    "partial_auc": "partial_area",
    "partial_auc_difference": "partial_area",
    "placement_values": "auc",
    "plot_reliability": "scores",
    "rate_interval": "rates",
    "read_predictions": "prediction_files",
    "reliability": "scores",
    "reliability_band": "calibration",
    "roc_band": "simultaneous_band",
    "sample_residuals": "regression",
    "score_difference": "scores",
    "score_interval": "scores",
    "sensitivity_at_specificity": "operating",
    "shortfall": "auc",
    "simultaneous_interval": "multinomial",
    "sison_glaz": "multinomial",
    "specificity_at_sensitivity": "operating",
    "spiegelhalter_z": "calibration",
    "split_threshold": "threshold_optimism",
    "tuned_threshold": "threshold_optimism",
}

__all__ = sorted(WHERE)
__getattr__, __dir__ = attach(__name__, WHERE)
