"""A field whose description lists the values it takes ("Valid values are `0`, `1`, and `3`") holds one of
them, never a value drawn from its name ("action": "asia-east1-c" where the API takes DELETE or UPSERT);
descriptions that state a range or go on into prose give no list."""

from __future__ import annotations

import random

import pytest

from covert.imports.stated_values import stated_values
from covert.imports.statefactory import value_for


@pytest.mark.parametrize(("description", "values"), [
    ("Valid values are `0`, `1`, and `3`. Requests that specify an invalid value are rejected.", ("0", "1", "3")),
    ("The codec. Valid values include <code>aac</code>, <code>flac</code>, <code>mp3</code>, and <code>vorbis</code>.",
     ("aac", "flac", "mp3", "vorbis")),
    ("Valid values: <code>ELB</code> | <code>Instance</code> | <code>N/A</code> </p>", ("ELB", "Instance", "N/A")),
    ("Valid values are 'Channel', 'Display' or 'None'.", ("Channel", "Display", "None")),
    ("Possible values are HEAD, EXACT, or REGEX.", ("HEAD", "EXACT", "REGEX")),
    ("Accepted values are top or bottom.", ("top", "bottom")),
    ('Possible values are: - "default" - A regular event. - "focusTime" - A focus-time event. - "outOfOffice" - '
     "An out-of-office event.", ("default", "focusTime", "outOfOffice")),
    ("Supported values: * `no-diversity` * `low-diversity` * `high-diversity`",
     ("no-diversity", "low-diversity", "high-diversity")),
    ("The state. It is one of the following values:</p> <ul> <li> <p>Pending: not sent yet.</p> </li> "
     "<li> <p>InProgress: sent.</p> </li> <li> <p>Success: done.</p> </li> </ul>", ("Pending", "InProgress", "Success")),
    ("Output only. The battery status of the device. Supported: High | Medium | Low | Empty", ("High", "Medium", "Low",
                                                                                               "Empty")),
    # AdMob: an app's platform read "windows" and an ad unit's format "csv"
    ('Describes the platform of the app. Limited to "IOS" and "ANDROID".', ("IOS", "ANDROID")),
    ('AdFormat of the ad unit. Possible values are as follows: "APP_OPEN" - App Open ad format. "BANNER" - Banner ad '
     'format. "INTERSTITIAL" - A full screen ad. Supported ad types are "RICH_MEDIA" and "VIDEO". "NATIVE" - Native.',
     ("APP_OPEN", "BANNER", "INTERSTITIAL", "NATIVE")),
])
def test_a_stated_list_is_read(description: str, values: tuple[str, ...]) -> None:
    assert stated_values(description) == values


@pytest.mark.parametrize("description", [
    "Valid values are 1 through 65535.",
    "Valid Values: <code>0 - 15</code> </p>",
    "Valid values are 00:00-24:00, where 24:00 represents midnight at the end of the specified day field.",
    "It can be one of the following: The ARN of a user or group associated with a data source.",
    "Must be one of:</p> <ul> <li> <p>For CodeCommit: the commit ID, branch, or Git tag to use.</p> </li> "
    "<li> <p>For GitHub: the commit ID.</p> </li> </ul>",
    "Valid values are: AutomaticScaling: F1, F2, F4 ManualScaling or BasicScaling: B1, B2",
    "The name of the alarm, for example `cpu-high`.",
    "Valid values are `json`.",  # one value is a constant, not a choice
    # the fields a filter may name are no values of the filter
    "Filter expression. Fields supported: * `create_time`: Supports `=`. * `labels`: Supports `:`.",
    "A filter on jobs. Valid values are: * `state` * `create_time`",
    "Supported: richText: rich text. markdown: markdown.",
    "Limited to 100 characters.",
    "The display name, limited to letters and digits.",  # kinds of characters, not values
])
def test_a_range_or_prose_gives_no_list(description: str) -> None:
    assert stated_values(description) == ()


def test_a_field_holds_one_of_its_stated_values() -> None:
    rng = random.Random(4)
    action = {"type": "string", "description": "The change. Valid values are <code>DELETE</code> | <code>UPSERT</code>."}
    version = {"type": "integer", "description": "Valid values are 0, 1, and 3."}
    angle = {"type": "number", "description": "Possible values are 0, 90, 180, and 270."}
    coded = {"type": "string", "pattern": "^[a-z]+$", "description": "Valid values are `json`, `form` and `XML`."}
    assert {value_for(action, "action", rng) for _ in range(40)} == {"DELETE", "UPSERT"}
    assert {value_for(version, "version", rng) for _ in range(40)} == {0, 1, 3}
    assert {value_for(angle, "RotationAngle", rng) for _ in range(40)} <= {0, 90, 180, 270}
    assert {value_for(coded, "format", rng) for _ in range(40)} == {"json", "form"}  # the pattern rules out XML
    # a range says no list: the field is drawn as before, inside it
    port = {"type": "integer", "description": "Valid values are 1 through 65535."}
    assert all(1 <= value_for(port, "port", rng) <= 65535 for _ in range(40))
