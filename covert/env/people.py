"""Contact values a builder's state gives the people in it.

Personal e-mail addresses are spread over many invented mail providers under the reserved ``.example``
top-level domain (RFC 2606), so no address can belong to a real person and no one provider name recurs in
every query that identifies its user by e-mail.
"""

from __future__ import annotations

import random

MAIL_PROVIDERS = (
    "kitemail.example", "postlark.example", "mailbird.example", "owlpost.example", "quillmail.example",
    "letterbox.example", "pigeonpost.example", "inkwell.example", "fernmail.example", "tidemail.example",
    "brightbox.example", "skylarkmail.example", "marmot.example", "harborpost.example", "zephyrmail.example",
    "lanternmail.example", "emberpost.example", "driftmail.example", "cobaltmail.example", "northbox.example",
)


def personal_email(rng: random.Random, first: str, last: str, suffix: int | str = "") -> str:
    """``first.last{suffix}@provider``, lower-cased, without the spaces and apostrophes of the names; the
    provider is drawn from :data:`MAIL_PROVIDERS` with ``rng``."""
    local = f"{first}.{last}".lower().replace(" ", "").replace("'", "")
    return f"{local}{suffix}@{rng.choice(MAIL_PROVIDERS)}"
