"""Anytime-valid evaluation: confidence sequences and sequential acceptance.

Labels cost money, so test items are labelled in batches and the score is
watched as it comes in.  The intervals of the rest of the package hold for a
test size fixed in advance; checked after every batch they miss more and more
often.  This subpackage gives bounds that hold at every size at once, and tests
that may be stopped whenever they say so.

``confidence``   :func:`~heldout.sequential.confidence.confidence_sequence`, :class:`~heldout.sequential.confidence.ConfidenceMonitor`, :func:`~heldout.sequential.confidence.paired_difference`
``betting``      the hedged-capital betting sequence (the default)
``closed_form``  predictable-plug-in Hoeffding and empirical Bernstein sequences
``mixture``      the beta-binomial mixture sequence
``decide``       sequential acceptance against a required accuracy, labels to a decision
``sprt``         Wald's sequential probability ratio test for simple hypotheses
``peeking``      simulations: how often fixed-size intervals and sequences ever miss
``bet_mixture``  :func:`~heldout.sequential.bet_mixture.mixture_of_bets`, diversified bets (0/1 labels)
``asymptotic``   :func:`~heldout.sequential.asymptotic.asymptotic_sequence` for unbounded losses
"""

from heldout.sequential.asymptotic import AsymptoticSequence, asymptotic_sequence
from heldout.sequential.bet_mixture import BetMixture, mixture_of_bets
from heldout.sequential.confidence import (
    ConfidenceMonitor,
    ConfidenceSequence,
    confidence_sequence,
    paired_difference,
)

__all__ = [
    "AsymptoticSequence",
    "BetMixture",
    "ConfidenceMonitor",
    "ConfidenceSequence",
    "asymptotic_sequence",
    "confidence_sequence",
    "mixture_of_bets",
    "paired_difference",
]
