"""Which verifiers API covert serves: the classic one of verifiers 0.3, or ``verifiers.v1`` of 0.4."""

from __future__ import annotations

import re
from importlib.metadata import PackageNotFoundError, version

CLASSIC = "classic"
V1 = "v1"
SUPPORTED = "verifiers>=0.3.1,<0.5"


def verifiers_api(installed: str | None = None) -> str:
    """``"classic"`` for verifiers 0.3.1 to 0.3.x, ``"v1"`` for 0.4.x; raises ``ImportError`` with a
    one-line message saying what to install for any other version (or none)."""
    if installed is None:
        try:
            installed = version("verifiers")
        except PackageNotFoundError:
            raise ImportError(f'covert.integrations.verifiers needs verifiers: pip install "covert[verifiers]" '
                              f'(or "{SUPPORTED}")') from None
    numbers = tuple(int(n) for n in re.findall(r"\d+", installed.split("+")[0])[:3])
    if (0, 3, 1) <= numbers < (0, 4):
        return CLASSIC
    if (0, 4) <= numbers < (0, 5):
        return V1
    raise ImportError(f"covert.integrations.verifiers serves verifiers 0.3 (classic API, 0.3.1 or later) and 0.4 "
                      f'(verifiers.v1), not verifiers {installed}: pip install "{SUPPORTED}"')
