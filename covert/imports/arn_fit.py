"""ARNs drawn from a spec's pattern that still read as AWS's own.

When no ARN in the usual form fits a field's pattern, the state factory draws one from the pattern's
character classes, and every part comes out as noise: ``arn:aws-k:lambda:nt-bz-4:...`` (a partition
``aws[a-zA-Z-]*`` allows), ``arn:aws:outposts:0l:...`` (a region ``[a-z\\d-]+`` allows),
``arn:awsd:secretsmanager::l0s:secret:...``. :func:`plausible_arn` puts AWS's partition, a real region,
a 12-digit account and the resource of the ARN covert made back in wherever the pattern takes them.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable

from covert.imports.fieldvalues import AWS_HOME_REGION, ValueContext, make_value

_AWS = ValueContext("aws")


def plausible_arn(drawn: str, fits: Callable[[str], bool], made: str, rng: random.Random) -> str:
    """``drawn`` (an ARN that ``fits`` the pattern) with as many of its parts as the pattern allows put
    right: the partition ``aws``, the service of ``made``, a real region and a 12-digit account (where the
    pattern takes them, also for a part it lets be empty), the resource of
    ``made`` (the ARN covert made for the field, which the pattern refused; with ``:`` for its first
    ``/`` too: ``secret:prod-db`` where the pattern asks for it). ``drawn`` itself when nothing fits."""
    parts = drawn.split(":", 5)
    if len(parts) < 6 or parts[0] != "arn":
        return drawn
    own = made.split(":", 5)
    own_region = own[3] if len(own) == 6 and own[3] else AWS_HOME_REGION
    account = own[4] if len(own) == 6 and own[4].isdigit() else make_value("account", rng, _AWS)
    fixes: list[tuple[int, list[str]]] = [(1, ["aws"]), (3, [own_region]), (4, [account])]
    if len(own) == 6 and own[2]:  # the service, never left empty ("arn:aws::us-east-1:...")
        fixes.append((2, [own[2]]))
    if len(own) == 6 and own[5]:
        fixes.append((5, [own[5], own[5].replace("/", ":", 1)]))
    for size in range(len(fixes), 0, -1):  # the most parts put right first
        for chosen in itertools.combinations(fixes, size):
            for values in itertools.product(*(options for _, options in chosen)):
                candidate = list(parts)
                for (index, _), value in zip(chosen, values):
                    candidate[index] = value
                text = ":".join(candidate)
                if fits(text):
                    return text
    return drawn
