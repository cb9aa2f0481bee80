"""ARNs drawn for a spec's pattern read as AWS's own: partition, region, account and resource put right
wherever the pattern takes them (covert.imports.arn_fit), and ARN ids filled by their parts' places."""

from __future__ import annotations

import random
import re

from covert.imports.bind import _from_path_pattern
from covert.imports.fieldvalues import context_for
from covert.imports.statefactory import value_for

AWS_REGION = re.compile(r"^(us|eu|ap|sa|ca|me|af|il|mx)-[a-z]+-\d$")
PATTERNS = {
    # Outposts: the made ARN's resource is no op-<17 hex>, so the value is drawn from the pattern
    "OutpostArn": r"^arn:aws([a-z-]+)?:outposts:[a-z\d-]+:\d{12}:outpost/op-[a-f0-9]{17}$",
    # Lambda runtimes: a partition aws[a-zA-Z-]* and a region shape drawn letter by letter
    "RuntimeArn": r"^arn:aws[a-zA-Z-]*:lambda:[a-z]{2}(-gov)?-[a-z]+-\d{1}:\d{12}:runtime/[a-z0-9]{2}/alias/[a-z-]+$",
    # WorkSpaces' secret: ``secret:`` then at least nine characters
    "ServiceAccountSecretArn": r"^arn:aws[a-z-]{0,7}:secretsmanager:[A-za-z0-9_/.-]{0,63}:[A-za-z0-9_/.-]{0,63}:"
                               r"secret:[A-Za-z0-9][A-za-z0-9_/.-]{8,519}$",
}


def test_an_arn_drawn_from_a_pattern_has_aws_partition_region_and_account() -> None:
    """``arn:aws-k:lambda:nt-bz-4:...``, ``arn:aws:outposts:0l:...`` and ``arn:awsd:secretsmanager::l0s:...``
    were drawn before; every value still matches its pattern."""
    ctx = context_for("botocore:outposts:2019-12-03", "outpost")
    for field, pattern in PATTERNS.items():
        for seed in range(30):
            value = value_for({"type": "string", "pattern": pattern}, field, random.Random(seed), 0, ctx)
            assert re.search(pattern, value), (field, value)
            _, partition, _, region, account, _ = value.split(":", 5)
            assert partition == "aws", value
            assert AWS_REGION.match(region), value
            assert re.fullmatch(r"\d{12}", account), value


def test_an_arn_id_pattern_is_filled_by_its_parts_places() -> None:
    """MediaConnect's ``arn:.+:mediaconnect.+:gateway:.+:instance:.+`` made the id
    ``arn:gateway-instance-1:mediaconnectgateway-instance-1:gateway:gateway-instance-1:...``."""
    made = _from_path_pattern("arn:.+:mediaconnect.+:gateway:.+:instance:.+", "gateway-instance", 1, "210987654321")
    assert made == "arn:aws:mediaconnect:us-east-1:210987654321:gateway:gateway-instance-1:instance:gateway-instance-1"
    assert _from_path_pattern("^arn:.+:medialive:.+:.+:channel:.+$", "channel", 2, "210987654321") == \
        "arn:aws:medialive:us-east-1:210987654321:channel:channel-2"
    # a path's ancestor is named as its collection's records are, the last segment is the record's own
    assert _from_path_pattern("^projects/[^/]+/locations/[^/]+$", "x", 1) == "projects/payments-1/locations/x-1"


def test_a_field_whose_pattern_is_an_arn_holds_an_arn_made_as_one() -> None:
    """WorkSpaces' ``IamRoleId`` (an id by its name, an ARN by its pattern) was drawn letter by letter:
    ``arn:aws:B:j7::T5``."""
    pattern = (r"^arn:aws[a-z-]{0,7}:[A-Za-z0-9][A-za-z0-9_/.-]{0,62}:[A-za-z0-9_/.-]{0,63}:[A-za-z0-9_/.-]{0,63}:"
               r"[A-Za-z0-9][A-za-z0-9_/.-]{0,1023}$")
    ctx = context_for("botocore:workspaces:2015-04-08", "account link")
    for seed in range(20):
        value = value_for({"type": "string", "pattern": pattern}, "IamRoleId", random.Random(seed), 0, ctx)
        assert re.fullmatch(r"arn:aws:iam::\d{12}:role/[a-z0-9-]+", value), value


def test_an_arn_drawn_for_a_nested_resource_has_its_service_and_every_part() -> None:
    """Evidently's feature ARN (``arn:[^:]*:[^:]*:[^:]*:[^:]*:project/[^/]*/feature/[^/]*``) came out
    ``arn:aws::us-east-1:...:project//feature/shipping-feature-5``: no service, an empty project."""
    pattern = "^arn:[^:]*:[^:]*:[^:]*:[^:]*:project/[^/]*/feature/[^/]*$"
    ctx = context_for("botocore:evidently:2021-02-01", "feature")
    for seed in range(40):
        value = value_for({"type": "string", "pattern": pattern}, "arn", random.Random(seed), 0, ctx)
        assert re.fullmatch(pattern, value), value
        _, partition, service, _region, _account, resource = value.split(":", 5)
        assert partition == "aws" and service == "evidently", value
        assert "//" not in resource and not resource.endswith("/"), value
