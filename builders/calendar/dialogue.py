"""How the assistant restates calendar changes before making them (see covert.language.phrasing)."""

ACTIONS = {
    "create_event": ("put \"{title}\" on your calendar on {date} at {start_time} for {duration_minutes} minutes, "
                     "with {person_ids} in {room_id}",
                     "put \"{title}\" on your calendar on {date} at {start_time} for {duration_minutes} minutes, "
                     "with {person_ids}"),
    "reschedule_event": ("move {event_id} to {date} at {start_time} for {duration_minutes} minutes",
                         "move {event_id} to {date} at {start_time}"),
    "cancel_event": ("cancel {event_id} and let the invitees know: \"{note}\"", "cancel {event_id}"),
    "add_attendees": ("invite {person_ids} to {event_id}",),
    "remove_attendee": ("take {attendee_id} off {event_id}",),
    "book_room": ("book {room_id} for {event_id}",),
    "respond_to_event": ("reply {response} to {event_id} with the note \"{comment}\"", "reply {response} to {event_id}"),
}
