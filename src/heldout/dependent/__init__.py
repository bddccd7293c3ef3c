"""Test items that are not independent: clusters, repeats, strata.

A public name is importable from here (``from heldout.dependent import Allocation``) and its module
is imported when it is first used (:func:`heldout._lazy.face`).

Cluster-robust and design-effect intervals (``clustered``), the number of clusters and
items per cluster to collect (``cluster_sizing``), repeated samples of a stochastic model
(``repeated``), stratified estimates and allocation (``strata``).
"""

from __future__ import annotations

from heldout._lazy import face

#: Public name -> the module of this wing that defines it.
WHERE = {
    "Allocation": "strata",
    "BootstrapInterval": "clustered",
    "ClusterCodes": "clustered",
    "ClusterSize": "cluster_sizing",
    "ClusteredMean": "clustered",
    "Components": "repeated",
    "Coverage": "clustered",
    "Design": "cluster_sizing",
    "MixBias": "strata",
    "Stratified": "strata",
    "Variances": "repeated",
    "best_samples_per_question": "repeated",
    "cheapest_design": "cluster_sizing",
    "cluster_bootstrap": "clustered",
    "cluster_codes": "clustered",
    "clustered_difference": "clustered",
    "clustered_mean": "clustered",
    "clusters_for_half_width": "cluster_sizing",
    "clusters_for_power": "cluster_sizing",
    "components_from_probabilities": "repeated",
    "design_effect": "clustered",
    "effective_size": "clustered",
    "icc": "clustered",
    "mix_bias": "strata",
    "neyman_allocation": "strata",
    "optimal_cluster_size": "cluster_sizing",
    "paired_cluster_bootstrap": "clustered",
    "proportional_allocation": "strata",
    "questions_needed": "repeated",
    "samples_needed": "repeated",
    "se_of_mean": "repeated",
    "simulate_clustered": "clustered",
    "simulate_coverage": "clustered",
    "size_weighted_cluster_size": "clustered",
    "stratified_mean": "strata",
    "stratified_variance": "strata",
    "variance_components": "repeated",
}

__all__, __getattr__, __dir__ = face(__name__, WHERE)
