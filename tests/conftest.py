"""Suite-wide test settings.

Property tests run derandomized by default, so the suite gives the same verdict on every run (CI
included). ``HYPOTHESIS_PROFILE=explore`` searches with fresh random examples instead, to hunt for
new counterexamples locally.
"""

from __future__ import annotations

import os

from hypothesis import settings

settings.register_profile("deterministic", derandomize=True)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "deterministic"))
