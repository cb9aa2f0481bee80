"""How the assistant restates helpdesk changes before making them (see covert.language.phrasing)."""

ACTIONS = {
    "create_ticket": ("open a {priority}-priority {category} ticket for you: \"{summary}\"",),
    "assign_ticket": ("assign {ticket_id} to {agent_id}",),
    "escalate_ticket": ("raise {ticket_id} to {new_priority} priority, noting \"{justification}\"",),
    "add_ticket_comment": ("add your note to {ticket_id}: \"{comment}\"",),
    "resolve_ticket": ("close {ticket_id} as {resolution_code}, noting \"{resolution_note}\"",),
    "request_asset_replacement": ("request a replacement for {asset_id} (reason: {reason})",),
    "submit_leave_request": ("request {leave_type} leave for you from {start_date} to {end_date}",),
}
