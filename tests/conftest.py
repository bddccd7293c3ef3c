"""Shared test settings.

``HELDOUT_DEPRECATIONS=error`` makes the command line turn a DeprecationWarning raised by
package code (an old keyword or an old name used inside heldout) into an error; the
command line otherwise silences warnings.  pyproject.toml does the same for direct calls.
"""

import os

os.environ.setdefault("HELDOUT_DEPRECATIONS", "error")
