"""How the assistant restates hotel changes before making them (see covert.language.phrasing)."""

ACTIONS = {
    "book_room": ("book {room_type_id} at {hotel_id} from {check_in} to {check_out} for a party of {guests} at the "
                  "{rate_plan} rate, paid with {payment_method_id}",
                  "book {room_type_id} at {hotel_id} from {check_in} to {check_out} for a party of {guests}, paid with "
                  "{payment_method_id}"),
    "cancel_booking": ("cancel {booking_id} (reason: {reason})",),
    "change_booking_dates": ("move {booking_id} to {new_check_in} through {new_check_out}",),
    "add_special_request": ("add the request \"{request}\" to {booking_id}",),
    "redeem_points": ("apply {points} of your points to {booking_id}",),
}
