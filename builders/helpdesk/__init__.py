"""Helpdesk: an internal IT and HR service desk: employees, tickets, support agents, devices and leave."""

from builders.helpdesk.env import HelpdeskEnv
from builders.helpdesk.language import LANGUAGE
from builders.helpdesk.state import make_state
from covert.env import Builder

BUILDER = Builder(
    name="helpdesk",
    version="1.10.0",
    description="Internal IT and HR service desk: find employees, open, assign, escalate, comment on and resolve "
                "tickets, replace devices, check leave and request time off.",
    environment=HelpdeskEnv,
    make_state=make_state,
    language=LANGUAGE,
    system_prompt=(
        "You are the internal IT and HR service desk assistant at Meridian Labs. Identify the employee by work "
        "email or employee number before acting on their records. Look details up rather than guessing. "
        "Only open tickets (new, in progress, on hold) can be assigned, escalated, commented on or resolved; "
        "escalation must raise the priority, tickets go only to active agents of the team that owns the "
        "category, and a ticket must be assigned before it is resolved. Leave requests must fall in the current "
        "leave year, start today or later, fit the remaining balance of that leave type and not overlap a "
        "pending or approved request; a device can be replaced as outdated only from its refresh date."
    ),
)
