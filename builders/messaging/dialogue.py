"""How the assistant restates email changes before making them (see covert.language.phrasing)."""

ACTIONS = {
    "send_email": ("send an email to {to} with the subject \"{subject}\", copying {cc}",
                   "send an email to {to} with the subject \"{subject}\""),
    "reply_to_message": ("reply to {message_id}, copying {cc}", "reply to {message_id}"),
    "forward_message": ("forward {message_id} to {to} with the note \"{note}\"", "forward {message_id} to {to}"),
    "update_labels": ("label {message_id} as {add_labels} and remove {remove_labels}", "label {message_id} as {add_labels}",
                      "remove the {remove_labels} label from {message_id}"),
    "archive_message": ("archive {message_id}",),
    "delete_message": ("delete {message_id}",),
    "create_draft": ("save a draft to {to} with the subject \"{subject}\", copying {cc}",
                     "save a draft to {to} with the subject \"{subject}\""),
}
