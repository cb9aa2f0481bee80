"""How the assistant restates airline changes before making them (see covert.language.phrasing)."""

ACTIONS = {
    "book_reservation": ("book {flight_number} on {date} in {cabin} for {passenger_ids}, charged to "
                         "{payment_method_id}",),
    "cancel_reservation": ("cancel {reservation_id} (reason: {reason})",),
    "change_flight_date": ("move {reservation_id} to {new_date}, with any fare difference charged to "
                           "{payment_method_id}",),
    "add_checked_bags": ("add checked bags to {reservation_id} ({additional_bags} more), with any fee charged to "
                         "{payment_method_id}",),
    "update_passenger_details": ("correct {passenger_id} on {reservation_id} to {new_first_name} {new_last_name}, "
                                 "born {new_date_of_birth}",),
}
