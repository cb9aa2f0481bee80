"""Retail builder: the uniform contract plus its cases."""

from __future__ import annotations

from covert.env import State
from tests.builders.contract import BuilderContract, Case


def _user(s: State) -> dict:
    return s.get("users", s.ids("users")[0])


def _order(status: str):
    def pick(s: State) -> str:
        for key, order in s.records("orders"):
            if order["status"] == status:
                return key
        raise AssertionError(f"state has no {status} order")
    return pick


def _force(status: str):
    """Setup: make the first order have ``status`` (so every seed has one)."""
    def setup(env) -> None:
        order = env.state.edit("orders", env.state.ids("orders")[0])
        order["status"] = status
        if status in ("processed", "delivered") and not order.get("fulfillment"):
            order["fulfillment"] = {"carrier": "UPS", "tracking_number": "100000000001", "estimated_delivery": "2026-02-01"}
        if status == "pending":
            order["fulfillment"] = None
    return setup


def _first(s: State) -> str:
    return s.ids("orders")[0]


NEW_ADDRESS = {"address1": "12 Harbor Road", "city": "Boise", "state": "ID", "zip": "83702"}


class TestRetail(BuilderContract):
    builder_name = "retail"
    fingerprint = "1.10.0:61971512d027ce4e"
    cases = [
        Case("find_user_id_by_email", lambda s: {"email": _user(s)["email"]}),
        Case("find_user_id_by_email", lambda s: {"email": "nobody@example.com"}, "user_not_found"),
        Case("find_user_id_by_name_zip", lambda s: {"first_name": _user(s)["first_name"], "last_name": _user(s)["last_name"],
                                                    "zip": _user(s)["address"]["zip"]}),
        Case("find_user_id_by_name_zip", lambda s: {"first_name": "Zed", "last_name": "Nobody", "zip": "00000"}, "user_not_found"),
        Case("get_user_details", lambda s: {"user_id": s.ids("users")[0]}),
        Case("get_user_details", lambda s: {"user_id": "ghost_0000"}, "user_not_found"),
        Case("get_order_details", lambda s: {"order_id": _first(s)}),
        Case("get_order_details", lambda s: {"order_id": "#W0000000"}, "order_not_found"),
        Case("track_order", _order_args := (lambda s: {"order_id": _first(s)}), setup=_force("delivered")),
        Case("track_order", lambda s: {"order_id": "#W0000000"}, "order_not_found"),
        Case("track_order", _order_args, "order_not_shipped", setup=_force("pending")),
        Case("list_products", lambda s: {}),
        Case("list_products", lambda s: {"category": "kitchen"}),
        Case("get_product_details", lambda s: {"product_id": s.ids("products")[0]}),
        Case("get_product_details", lambda s: {"product_id": "0"}, "product_not_found"),
        Case("cancel_pending_order", lambda s: {"order_id": _first(s), "reason": "no longer needed"}, setup=_force("pending")),
        Case("cancel_pending_order", lambda s: {"order_id": "#W0000000", "reason": "no longer needed"}, "order_not_found"),
        Case("cancel_pending_order", lambda s: {"order_id": _first(s), "reason": "ordered by mistake"}, "order_not_pending",
             setup=_force("delivered")),
        Case("return_delivered_order_items",
             lambda s: {"order_id": _first(s), "item_ids": [s.get("orders", _first(s))["items"][0]["item_id"]],
                        "payment_method_id": s.get("orders", _first(s))["payment_method_id"]}, setup=_force("delivered")),
        Case("return_delivered_order_items", lambda s: {"order_id": "#W0000000", "item_ids": ["1"], "payment_method_id": "x"},
             "order_not_found"),
        Case("return_delivered_order_items",
             lambda s: {"order_id": _first(s), "item_ids": ["1"], "payment_method_id": "x"}, "order_not_delivered",
             setup=_force("pending")),
        Case("return_delivered_order_items",
             lambda s: {"order_id": _first(s), "item_ids": ["nope"], "payment_method_id": "x"}, "item_not_in_order",
             setup=_force("delivered")),
        Case("return_delivered_order_items",
             lambda s: {"order_id": _first(s), "item_ids": [], "payment_method_id": "x"}, "no_items",
             setup=_force("delivered")),
        Case("return_delivered_order_items",
             lambda s: {"order_id": _first(s), "item_ids": [s.get("orders", _first(s))["items"][0]["item_id"]],
                        "payment_method_id": "paypal_0"}, "payment_method_not_found", setup=_force("delivered")),
        Case("modify_pending_order_address", lambda s: {"order_id": _first(s), **NEW_ADDRESS}, setup=_force("pending")),
        Case("modify_pending_order_address", lambda s: {"order_id": "#W0000000", **NEW_ADDRESS}, "order_not_found"),
        Case("modify_pending_order_address", lambda s: {"order_id": _first(s), **NEW_ADDRESS}, "order_not_pending",
             setup=_force("delivered")),
        Case("modify_pending_order_address", lambda s: {"order_id": _first(s), **NEW_ADDRESS, "zip": "12"}, "invalid_zip",
             setup=_force("pending")),
        Case("modify_user_address", lambda s: {"user_id": s.ids("users")[0], **NEW_ADDRESS}),
        Case("modify_user_address", lambda s: {"user_id": "ghost", **NEW_ADDRESS}, "user_not_found"),
        Case("modify_user_address", lambda s: {"user_id": s.ids("users")[0], **NEW_ADDRESS, "zip": "ABCDE"}, "invalid_zip"),
    ]
