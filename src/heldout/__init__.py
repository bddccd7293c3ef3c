"""heldout: how big must a test set be, and how sure is the score it gave?

The package behind the *heldout* book.  Each module computes one thing:

``bounds``      binomial tail, exact test set bound and its relaxations, intervals
``sizing``      test-set sizes from Hoeffding's inequality and tighter alternatives
``losses``      bounded losses (the collared deviance)
``split``       the variational train/test split
``posterior``   Beta posterior of an accuracy
``compare``     comparing models scored on one test set
``acceptance``  acceptance testing against a required accuracy
``lost``        what can be said when the test set is lost
``regression``  standard errors and intervals of mean-type regression metrics (MSE)
``ledger``      the reproduction ledger: every number of the five articles, checked
``data``        offline MNIST loading with checksums (needs the ``mnist`` extra)
``models``      the MNIST model zoo with a prediction cache (needs the ``mnist`` extra)
``kernels``     libsvm's RBF and polynomial kernel matrices built with BLAS
``config``      the quick profile and seeds used by the book
``rerun``       rerun a chapter with other values for its ``parameters`` cell
"""

__version__ = "0.1.0"

__all__ = ["__version__"]
