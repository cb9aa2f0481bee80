"""Suite-wide test settings.

Property tests run derandomized by default, so the suite gives the same verdict on every run (CI
included). ``HYPOTHESIS_PROFILE=explore`` searches with fresh random examples instead, to hunt for
new counterexamples locally.

The environment store (``$COVERT_ENVS``) is an empty folder of the session's own, not the user's
imports.
"""

from __future__ import annotations

import os
import tempfile

from hypothesis import settings

# the environment store the tests see is an empty one of their own, whatever the user imported
os.environ.setdefault("COVERT_ENVS", tempfile.mkdtemp(prefix="covert-envs-"))

settings.register_profile("deterministic", derandomize=True)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "deterministic"))
