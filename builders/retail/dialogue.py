"""How the assistant restates store changes before making them (see covert.language.phrasing)."""

ACTIONS = {
    "cancel_pending_order": ("cancel {order_id} (reason: {reason})",),
    "return_delivered_order_items": ("return {item_ids} from {order_id}, refunding {payment_method_id}",),
    "modify_pending_order_address": ("ship {order_id} to {address1}, {address2}, {city}, {state} {zip} instead",
                                     "ship {order_id} to {address1}, {city}, {state} {zip} instead"),
    "modify_user_address": ("change the address on your profile to {address1}, {address2}, {city}, {state} {zip}",
                            "change the address on your profile to {address1}, {city}, {state} {zip}"),
}
