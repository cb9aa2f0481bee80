"""Suite-wide test settings.

Property tests run derandomized by default, so the suite gives the same verdict on every run (CI
included). ``HYPOTHESIS_PROFILE=explore`` searches with fresh random examples instead, to hunt for
new counterexamples locally.

The environment store (``$COVERT_ENVS``) is an empty folder of the session's own, not the user's
imports.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile

from hypothesis import settings

# the environment store the tests see is an empty one of their own, whatever the user imported, and it
# goes when the session ends
_STORE = tempfile.mkdtemp(prefix="covert-envs-")
os.environ["COVERT_ENVS"] = _STORE
atexit.register(shutil.rmtree, _STORE, ignore_errors=True)

settings.register_profile("deterministic", derandomize=True)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "deterministic"))
