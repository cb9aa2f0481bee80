"""Verification before admission: each invariant, broken on purpose, gives its reason."""

from __future__ import annotations

from typing import Any

from covert.imports.envs import make_builder
from covert.imports.model import ApiSpec, Operation
from covert.imports.verify import admit, check_builder, summarize
from tests.imports.api_fixtures import memory_mcp, notes_google, queues_botocore, shop_openapi


def _replace(spec: ApiSpec, name: str, **changes: Any) -> ApiSpec:
    ops = tuple(Operation(**{**op.__dict__, **changes}) if op.name == name else op for op in spec.operations)
    return ApiSpec(**{**spec.__dict__, "operations": ops})


def test_sound_environments_are_admitted() -> None:
    verdicts = [admit(f()) for f in (shop_openapi, notes_google, queues_botocore, memory_mcp)]
    assert all(v.admitted for v in verdicts), [(v.api, v.reasons, v.tool_failures) for v in verdicts]
    assert not any(v.tool_failures for v in verdicts)
    report = summarize(verdicts)
    assert report["admitted"] == 4 and report["tools_admitted"] == 21 and report["admission_rate"] == 1.0
    assert report["by_source"]["openapi"] == {"admitted": 1, "rejected": 0, "tools": 8}
    assert report["operations_left_out"]["custom_action_no_llm"] == 4


def _broken(builder: Any, tool: str, body: Any) -> None:
    spec = builder.tools[tool]
    original = getattr(builder.environment, spec.method)

    def method(self: Any, **kwargs: Any) -> Any:
        out = original(self, **kwargs)
        body(self.state)
        return out

    setattr(builder.environment, spec.method, method)


def test_a_read_that_changes_state_is_caught() -> None:
    builder = make_builder(shop_openapi())
    _broken(builder, "getCustomer", lambda state: state.next_id("customers"))
    assert check_builder(builder)["getCustomer"] == "read_changed_state"


def test_a_create_that_adds_two_records_is_caught() -> None:
    builder = make_builder(notes_google())

    def extra(state: Any) -> None:
        state.insert("notes", "zz-extra", {"id": "zz-extra", "title": "x"})

    _broken(builder, "notes_notes_insert", extra)
    assert check_builder(builder)["notes_notes_insert"] == "create_not_one_record"


def test_an_update_that_does_not_persist_and_a_delete_that_keeps_are_caught() -> None:
    builder = make_builder(queues_botocore())
    original_update = builder.environment.tool_specs["UpdateQueue"].method

    def forgetful(self: Any, **kwargs: Any) -> Any:
        return self.call("DescribeQueue", {"QueueName": kwargs["QueueName"]})

    setattr(builder.environment, original_update, forgetful)

    def keeps(self: Any, **kwargs: Any) -> Any:
        return {}

    setattr(builder.environment, builder.environment.tool_specs["DeleteQueue"].method, keeps)
    failures = check_builder(builder)
    assert failures["UpdateQueue"] == "update_not_persisted"
    assert failures["DeleteQueue"] == "delete_kept_record"


def test_output_that_breaks_the_response_schema_leaves_the_tool_out() -> None:
    spec = shop_openapi()
    receipt = {"type": "object", "required": ["receipt_number"], "properties": {
        "id": {"type": "string"}, "receipt_number": {"type": "string"}}}
    verdict = admit(_replace(spec, "createCustomer", response=receipt))
    assert verdict.admitted
    assert verdict.tool_failures == {"createCustomer": "output_schema_mismatch"}
    assert "createCustomer" not in verdict.builder.tools


def test_environment_level_rejections_carry_reasons() -> None:
    spec = shop_openapi()
    unlicensed = ApiSpec(**{**spec.__dict__, "license": None})
    assert admit(unlicensed).reasons == ["no_license"]
    assert admit(unlicensed, allow_unlicensed=True).admitted
    reads_only = ApiSpec(**{**spec.__dict__, "operations": tuple(o for o in spec.operations if o.effect == "read")})
    assert admit(reads_only).admitted  # read-only APIs are admitted (tests/imports/test_language_reads.py)
    tokens = {"type": "object", "required": ["id"], "properties": {"id": {"type": "string"}, "etag": {"type": "string"}}}
    listing = {"type": "object", "properties": {"data": {"type": "array", "items": tokens}}}
    no_read_task = ApiSpec(**{**spec.__dict__, "operations": (
        Operation(**{**spec.operations[0].__dict__, "response": listing}),
        Operation(**{**spec.operations[2].__dict__, "response": tokens}))})
    assert admit(no_read_task).reasons == ["no_read_task"]
    impossible = dict(spec.operations[2].response)
    impossible["properties"] = {**impossible["properties"], "code": {"type": "string", "pattern": "^(?=b)a$"}}
    impossible["required"] = [*impossible["required"], "code"]
    assert admit(_replace(spec, "getCustomer", response=impossible)).reasons == ["unsatisfiable_schema"]
    custom_only = ApiSpec(**{**spec.__dict__, "operations": spec.operations[-1:]})
    assert admit(custom_only).reasons == ["no_bindable_operations"]
    report = summarize([admit(unlicensed), admit(no_read_task), admit(spec)])
    assert report["rejections"] == {"openapi:no_license": 1, "openapi:no_read_task": 1}
    assert report["admitted"] == 1 and report["admission_rate"] == round(1 / 3, 4)


def test_unreachable_tools_are_left_out() -> None:
    spec = shop_openapi()
    # without listOrders nothing returns an order id, so getOrder cannot be reached
    spec = ApiSpec(**{**spec.__dict__, "operations": tuple(o for o in spec.operations if o.name != "listOrders")})
    builder = make_builder(spec)
    assert "getOrder" not in builder.tools
    assert ("getOrder", "unreachable_tool") in builder.bound.left_out


def test_odd_spec_shapes_are_rejected_with_a_reason_never_raised() -> None:
    spec = shop_openapi()
    odd = _replace(spec, "getCustomer", response={"type": "object", "properties": {"id": "not a schema"}},
                   parameters={"type": "object"})
    verdict = admit(odd)
    assert verdict.admitted or verdict.reasons
    loop = _replace(spec, "listCustomers", response={"type": "object", "properties": {
        "data": {"type": "array", "items": {"type": "object", "properties": {"id": {"type": "string", "pattern": "^x$"}}}}}})
    assert admit(loop).api == spec.api  # a fixed-value id pattern does not hang id assignment


def test_a_list_a_required_filter_narrows_is_tried_on_a_record_that_has_the_field() -> None:
    """SSM's ``DescribeMaintenanceWindowTargets(WindowId)`` filters targets by their optional ``WindowId``:
    tried on a target drawn without one, the call had no value to give and the tool was left out as
    ``read_failed`` by chance. It is tried on a target that has the field."""
    import random

    from covert.env.state import State
    from covert.imports.verify import _check_tool

    target = {"type": "object", "required": ["WindowTargetId", "Name"], "properties": {
        "WindowTargetId": {"type": "string"}, "WindowId": {"type": "string"}, "Name": {"type": "string"}}}
    listed = {"type": "object", "properties": {"Targets": {"type": "array", "items": target}}}
    ops = (Operation("DescribeMaintenanceWindowTargets", "DescribeMaintenanceWindowTargets", "Lists targets.",
                     {"type": "object", "properties": {"WindowId": {"type": "string", "x-in": "body"}},
                      "required": ["WindowId"]}, listed, "read", "POST", "/"),)
    builder = make_builder(ApiSpec("botocore", "botocore:ssm:2014-11-06", "SSM", "2014-11-06", "Systems.",
                                   "Apache-2.0", None, {}, ops))
    api = builder.bound
    bound = api.tools["DescribeMaintenanceWindowTargets"]
    assert bound.fields == {"WindowId": "WindowId"}
    table = api.resources[bound.role.table].table
    rows = {f"t-{n}": {"WindowTargetId": f"t-{n}", "Name": f"target {n}"} for n in range(1, 5)}
    rows["t-5"] = {"WindowTargetId": "t-5", "Name": "target 5", "WindowId": "mw-1"}
    for seed in range(8):  # whichever record a seed would pick, the one with a WindowId is tried
        state = State.from_dict({"tables": {table: rows}})
        assert _check_tool(builder, api, bound, state, random.Random(seed)) == ""
