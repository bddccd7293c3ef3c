"""Shared test settings.

``HELDOUT_DEPRECATIONS=error`` makes the command line turn a DeprecationWarning raised by
package code (an old keyword or an old name used inside heldout) into an error; the
command line otherwise silences warnings.  pyproject.toml does the same for direct calls.
"""

import os

os.environ.setdefault("HELDOUT_DEPRECATIONS", "error")

# ``pytest --hypothesis-profile=noshrink``: report failing examples without shrinking them
# (much faster while fixing many property failures at once).
from hypothesis import Phase, settings  # noqa: E402

settings.register_profile("noshrink", phases=[Phase.explicit, Phase.reuse, Phase.generate])
