"""Suite-wide test settings.

Property tests run derandomized by default, so the suite gives the same verdict on every run (CI
included). ``HYPOTHESIS_PROFILE=explore`` searches with fresh random examples instead, to hunt for
new counterexamples locally.

Compiled argument validators of hand-written environments go to a folder of this session's own
(``$COVERT_VALIDATOR_CACHE``; see :mod:`covert.env.compiled`), not to the user's cache, and the
environment store (``$COVERT_ENVS``) is an empty folder of the session's own, not the user's imports.
"""

from __future__ import annotations

import os
import tempfile

from hypothesis import settings

os.environ.setdefault("COVERT_VALIDATOR_CACHE", tempfile.mkdtemp(prefix="covert-validators-"))
# the environment store the tests see is an empty one of their own, whatever the user imported
os.environ.setdefault("COVERT_ENVS", tempfile.mkdtemp(prefix="covert-envs-"))

settings.register_profile("deterministic", derandomize=True)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "deterministic"))
