"""Which verifiers covert serves, and the one-line message for any other."""

from __future__ import annotations

import pytest

from covert.integrations.verifiers.version import CLASSIC, V1, verifiers_api


@pytest.mark.parametrize(("installed", "api"), [("0.3.1", CLASSIC), ("0.3.7.post2", CLASSIC), ("0.4.0", V1),
                                                ("0.4.3rc1", V1), ("0.4.0+local", V1)])
def test_supported_versions(installed: str, api: str) -> None:
    assert verifiers_api(installed) == api


@pytest.mark.parametrize("installed", ["0.3.0", "0.2.1", "0.5.0", "1.0.0"])
def test_any_other_version_says_what_to_install_in_one_line(installed: str) -> None:
    with pytest.raises(ImportError) as raised:
        verifiers_api(installed)
    message = str(raised.value)
    assert "\n" not in message and installed in message and 'pip install "verifiers>=0.3.1,<0.5"' in message
