"""One error rate or accuracy from counts: how sure, and how many test items.

Given *k* errors on *n* test items: the exact test set bound and other intervals
(``bounds``), the Beta posterior of the accuracy (``posterior``), test-set sizes
(``sizing``), acceptance tests against a required accuracy (``acceptance``), bounded
per-row losses (``losses``), the variational train/test split (``split``), and what can
still be said when the test set is lost (``lost``).  Imports only the private core.

Every public function and result class of the wing is importable from here
(``from heldout.accuracy import exact_upper``); each module is imported the first time one
of its names is used, so ``import heldout.accuracy`` costs nothing.

Examples
--------
>>> import heldout.accuracy as w
>>> callable(w.exact_upper)
True
"""

from __future__ import annotations

from heldout._lazy import attach

#: Public name -> the module of this wing that defines it.
WHERE = {
    "AcceptanceResult": "acceptance",
    "BetaPosterior": "posterior",
    "CriticismFit": "split",
    "CriticismMeasurement": "split",
    "LogisticPopulation": "split",
    "MarginSizes": "acceptance",
    "PowerCriticismFit": "split",
    "SizeTable": "acceptance",
    "accept": "acceptance",
    "accuracy_sd": "acceptance",
    "actual_level": "acceptance",
    "appendix_c_bound": "bounds",
    "article_expectation": "lost",
    "article_sd": "posterior",
    "batch_accuracy": "lost",
    "batches_needed": "lost",
    "bayes_null_probability": "acceptance",
    "bernstein_size": "sizing",
    "beta_mean": "posterior",
    "beta_params": "posterior",
    "beta_sd": "posterior",
    "binomial_deviation_probability": "sizing",
    "binomial_size": "sizing",
    "binomial_tail": "bounds",
    "chernoff_tail": "bounds",
    "class_sample_size": "acceptance",
    "classifier_pool": "losses",
    "clopper_pearson": "bounds",
    "collared_deviance": "losses",
    "collared_deviance_range": "losses",
    "corrected_alpha": "lost",
    "coverage": "bounds",
    "credible_interval": "posterior",
    "critical_count": "acceptance",
    "data_accuracy": "lost",
    "empirical_bernstein_radius": "sizing",
    "empirical_bernstein_size": "sizing",
    "equal_tailed": "posterior",
    "estimator_moments": "lost",
    "exact_lower": "bounds",
    "exact_margin_size": "acceptance",
    "exact_upper": "bounds",
    "example_data": "lost",
    "expectation_given_drawn": "lost",
    "expected_criticism": "split",
    "fit_criticism_model": "split",
    "fit_logistic_batch": "split",
    "fit_power_criticism_model": "split",
    "fresh_expected_width": "lost",
    "fresh_rows_for_width": "lost",
    "hoeffding_bound": "sizing",
    "hoeffding_size": "sizing",
    "hoeffding_tolerance": "sizing",
    "hoeffding_upper": "bounds",
    "hpd": "posterior",
    "interval": "bounds",
    "interval_coverage": "lost",
    "kl_divergence": "bounds",
    "kl_lower": "bounds",
    "kl_upper": "bounds",
    "lagrange_multiplier": "split",
    "lattice_deviation_probability": "sizing",
    "log10_subsets": "lost",
    "logistic_population": "split",
    "make_model": "lost",
    "measure_criticism": "split",
    "measure_splits": "split",
    "normal_lower": "bounds",
    "normal_margin_size": "acceptance",
    "normal_size": "sizing",
    "normal_upper": "bounds",
    "occam_upper": "bounds",
    "optimal_split": "split",
    "optimal_split_power": "split",
    "optimal_test_fraction": "split",
    "p_value_exact": "acceptance",
    "p_value_normal": "acceptance",
    "pass_probability": "acceptance",
    "posterior_above": "acceptance",
    "power_normal": "acceptance",
    "power_size_exact": "acceptance",
    "power_size_normal": "acceptance",
    "prior_params": "posterior",
    "prob_test_set_drawn": "lost",
    "safety_margin": "acceptance",
    "score_upper": "bounds",
    "simulate_coverage": "bounds",
    "simulate_deviation": "sizing",
    "simulate_empirical_bernstein": "sizing",
    "simulate_fitted": "lost",
    "simulate_key_assumption": "lost",
    "simulate_pass_rate": "acceptance",
    "size_table": "acceptance",
    "summarise_fitted": "lost",
    "test_accuracy": "lost",
    "test_accuracy_bounds": "lost",
    "test_accuracy_interval": "lost",
    "threshold": "acceptance",
    "two_sigma_upper": "bounds",
    "upper_bound": "bounds",
    "within_sd_probability": "acceptance",
    "z_value": "acceptance",
    "zero_one_loss": "losses",
}

__all__ = sorted(WHERE)
__getattr__, __dir__ = attach(__name__, WHERE)
