"""How employees talk to the service desk: intents per tool, references to entities, value samplers."""

from __future__ import annotations

import random
from datetime import date, timedelta
from typing import Any

from builders.helpdesk.state import ISSUES, OPEN_STATUSES, PRIORITIES, working_days
from covert.env import Intent, Language, Reference, State
from covert.env.policy import Identity

JUSTIFICATIONS = (
    "I'm presenting to a client tomorrow morning and can't work without it",
    "the whole accounts payable team is blocked by this",
    "it has been open for over a week and I still can't do my job",
    "payroll closes on Friday and this has to be fixed before then",
    "I'm travelling next week and need it working before I leave",
    "three other people on my team are now affected too",
    "our quarter-end close depends on it",
)
COMMENTS = (
    "I'm working from home tomorrow, so please call my mobile instead of coming to my desk.",
    "The problem still happens after the restart you suggested.",
    "I found a workaround for now, so this is less urgent than it was.",
    "I'll be out of office Thursday and Friday; my colleague can give you access to my desk.",
    "The error message says 'Connection reset by peer' when it fails.",
    "It only seems to happen in the afternoons, when the office is busy.",
    "Please keep me posted by email, I'm in meetings most of the day.",
)
# how a requester says their issue is over: (resolution code, note)
RESOLUTIONS = (
    ("fixed", "it started working again after the update last night"),
    ("fixed", "the new password works now"),
    ("fixed", "the technician replaced the cable and everything works"),
    ("workaround", "I'm using the web version for now and that's good enough"),
    ("workaround", "I can print from the 3rd floor printer in the meantime"),
    ("duplicate", "it's the same problem as my other ticket"),
    ("withdrawn", "I don't need it anymore since the project was cancelled"),
    ("withdrawn", "I found the answer in the benefits handbook"),
    ("no fault found", "it hasn't happened again since Monday"),
)
OUT_OF_SCOPE = (
    "Can you recommend a good book on project management?",
    "What's the weather going to be like in Chicago this weekend?",
    "Can you write the executive summary of my quarterly sales report?",
    "What's on the cafeteria menu today?",
    "Can you book me a flight to the London office next month?",
    "What is our company's share price right now?",
    "Can you reserve conference room 4B for Thursday at 2pm?",
    "Translate this customer email into Spanish for me, please.",
    "How do I make a pivot table in Google Sheets?",
    "Who won the basketball game last night?",
    # near the domain: requests the tools look like they could serve, but do not
    "Can you change my job title to Senior Analyst in the HR system?",
    "Can you approve my teammate's leave request? My manager is away.",
    "What's on the canteen lunch menu today?",
    "Can you give me {agents.name}'s personal mobile number?",
    "Can you move my desk to the third floor next week?",
    "Can I give my remaining holiday days to a colleague?",
    "How much will my salary be after the annual review?",
    "Can you change my manager in the org chart?",
    "Can you cash out my unused leave days?",
    "Can you tell me who else applied for the internal job I applied to?",
    "Can you order me an office chair from an online shop?",
    "Can you make {agents.name} work on my ticket over the weekend?",
    "Can you change the {teams.team} team's opening hours?",
    "Can you book my flight to the company offsite?",
    "Can you add a new leave type called volunteering days?",
    "Can you look up my payslip from last March?",
    "Can I buy my {assets.model} from the company when I leave?",
    "Can you transfer my {assets.model} to a colleague's name?",
    "Can you delete my ticket '{tickets.title}' completely, history and all?",
    "Can you rename my ticket '{tickets.title}' to something shorter?",
    "What does {agents.name} earn? Just curious.",
    "Can you put {agents.name} on the {teams.team} team permanently?",
)


def _employee(rng: random.Random, state: State) -> dict[str, Any]:
    return state.get("employees", rng.choice(state.ids("employees")))


def _ticket_where(test):
    def sample(rng: random.Random, state: State) -> str:
        ids = [k for k, t in state.records("tickets") if test(state, t)]
        ids = ids or [k for k, t in state.records("tickets") if t["status"] in OPEN_STATUSES] or state.ids("tickets")
        return rng.choice(ids)
    return sample


def _unassigned(state: State, ticket: dict[str, Any]) -> bool:
    return ticket["status"] in OPEN_STATUSES and not ticket["assigned_agent_id"]


def _escalable(state: State, ticket: dict[str, Any]) -> bool:
    return ticket["status"] in OPEN_STATUSES and ticket["priority"] in ("low", "medium")


def _open(state: State, ticket: dict[str, Any]) -> bool:
    return ticket["status"] in OPEN_STATUSES


def _resolvable(state: State, ticket: dict[str, Any]) -> bool:
    return ticket["status"] in OPEN_STATUSES and bool(ticket["assigned_agent_id"])


def _in_use(state: State, asset: dict[str, Any]) -> bool:
    return asset["status"] == "in use"


# what a call needs of its record (the tool fails on any other), for Language.eligible
def _raisable(state: State, ticket: dict[str, Any]) -> bool:
    return ticket["status"] in OPEN_STATUSES and ticket["priority"] != "critical"


def _no_replacement_yet(state: State, asset: dict[str, Any]) -> bool:
    return asset["status"] != "replacement requested"


def _new_issue(rng: random.Random, state: State) -> dict[str, str]:
    """A category, priority, title and description no open ticket already has (so no duplicate)."""
    open_titles = {t["title"].lower() for _, t in state.records("tickets") if t["status"] in OPEN_STATUSES}
    choices = [(c, s, d) for c, issues in ISSUES.items() for s, d in issues if s.lower() not in open_titles]
    category, summary, details = rng.choice(choices)
    priority = rng.choices(PRIORITIES, (2, 5, 3, 1))[0]
    return {"category": category, "priority": priority, "summary": summary, "details": details}


def _resolution(rng: random.Random, state: State) -> dict[str, str]:
    code, note = rng.choice(RESOLUTIONS)
    return {"resolution_code": code, "resolution_note": note}


def _replacement_reason(rng: random.Random, state: State) -> str:
    """A fault most of the time; "outdated" about as often as in-use devices are due for refresh."""
    today = state.get("meta", "clock")["today"]
    in_use = [a for _, a in state.records("assets") if a["status"] == "in use"]
    due = sum(1 for a in in_use if a["refresh_eligible_from"] <= today) / max(1, len(in_use))
    if rng.random() < 0.4 * due:
        return "outdated"
    return rng.choice(("not working", "not working", "damaged", "lost", "stolen"))


def _replaceable_asset(rng: random.Random, state: State) -> str:
    ids = [k for k, a in state.records("assets") if _in_use(state, a)] or state.ids("assets")
    return rng.choice(ids)


def _leave_window(rng: random.Random, state: State) -> dict[str, str]:
    """A leave type and a future period that fits every employee's balance and overlaps no one's leave."""
    today = date.fromisoformat(state.get("meta", "clock")["today"])
    employees = [e for _, e in state.records("employees")]
    busy = [(date.fromisoformat(r["start_date"]), date.fromisoformat(r["end_date"]))
            for _, r in state.records("leave_requests") if r["status"] in ("approved", "pending approval")]
    types = [t for t in ("vacation", "vacation", "vacation", "sick", "personal")
             if min(e["leave_balance"][t] for e in employees) > 0] or ["vacation"]
    leave_type = rng.choice(types)
    most = max(1, min(5, min(e["leave_balance"][leave_type] for e in employees)))
    year_end = date(today.year, 12, 31)
    best = None
    for _ in range(40):
        first = today + timedelta(days=rng.randint(3, 75))
        while first.weekday() >= 5:
            first += timedelta(days=1)
        # a leave of one day would be asked for "from 2026-09-07 to 2026-09-07": only where the balance allows no more
        length = rng.randint(2, most) if most >= 2 else 1
        last = first
        while working_days(first, last) < length:
            last += timedelta(days=1)
        if last > year_end:
            continue
        best = (first, last)
        if not any(first <= b and a <= last for a, b in busy):
            break
    if best is None:
        first = today + timedelta(days=1)
        best = (first, first)
    return {"leave_type": leave_type, "start_date": best[0].isoformat(), "end_date": best[1].isoformat()}


IDENTITY = Identity(
    table="employees", tools=("find_employee_by_email", "find_employee_by_number"), output_field="employee_id",
    owners={"tickets": "employee_id", "assets": "employee_id", "leave_requests": "employee_id"},
    self_params=("email", "employee_number"),
    requirement="Identify the employee by work email or employee number before acting on their records.",
    signed_in="The employee is signed in to the service portal as {name} ({email}), so they are already "
              "identified; act only on their own tickets, devices and leave.",
)


LANGUAGE = Language(
    scope="IT and HR service desk requests: tickets, assigned devices and leave",
    intents={
        "find_employee_by_email": (
            Intent(ask=("can you check you have me in the system? My work email is {email}",
                        "could you open my employee record? I'm {email}", "check my record, I'm {email}", "I'm new here; am I set up in the system as {email}?"),
                   answer=("I found your record: {name}, {department}.",
                           "Thanks, {name}, you're in the system ({department}).",
                           "You're listed as {name} in {department}."),
                   context=("my work email is {email}", "I'm {email}", "you'll find me under {email}", "{email} is my work address", "my login is {email}", "I'm on the directory as {email}", "I work here as {email}", "I sign in as {email}", "my company address is {email}", "{email}, that's me", "my IT login is {email}", "{email} is how I log in at work", "I'm staff, {email}", "I work out of {email}", "work email: {email}")),
        ),
        "find_employee_by_number": (
            Intent(ask=("can you look me up? My employee number is {employee_number}", "find me in the system, employee number {employee_number}",
                        "please find my record, employee number {employee_number}", "look up employee {employee_number}, that's me"),
                   answer=("I found your record: {name}, {department}.",
                           "Thanks, {name}, you're in the system ({department}).",
                           "You're listed as {name} in {department}."),
                   context=("my employee number is {employee_number}", "I'm number {employee_number} in HR", "employee #{employee_number} here",
                            "my badge number is {employee_number}", "I'm employee {employee_number}", "my staff number is {employee_number}", "{employee_number} is my employee number", "HR has me as {employee_number}", "employee ID {employee_number}, that's me", "my ID is {employee_number}", "employee ID: {employee_number}")),
        ),
        "get_employee_profile": (
            Intent(ask=("how many tickets do I have open right now?", "how many of my tickets are still open?", "can you list my open IT and HR tickets?",
                        "what tickets have I got with the service desk at the moment?"),
                   # open tickets are listed as open: never a closed one among them
                   answer=("You have {open_ticket_count:n:open ticket}: {tickets:list:title|status@status?is_open}.",
                           "Your open tickets: {tickets:list:ticket_id|title|status@status?is_open}.",
                           "{?open_ticket_count=0}Right now you have {open_ticket_count:n:open ticket}.")),
            Intent(ask=("which devices are assigned to me?", "show me the devices assigned to me", "what equipment do you have registered under my name?", "which laptops and devices am I down for?"),
                   answer=("You have {asset_count:n:device} assigned: {assets:list:model|asset_tag}.",
                           "Assigned to you: {assets:list:model|kind}.",
                           "The devices on your name are {assets:list:model|status@status}.",
                           "{?assets=}You have {asset_count:n:device} assigned to you.")),
            Intent(ask=("how many vacation days do I have left this year?", "how many days of leave have I got left?", "what's my remaining leave balance?",
                        "how much leave do I still have?", "I'm planning a trip; how many days off do I have left?"),
                   answer=("You have {leave_balance.vacation_days:n:vacation day} left for {leave_balance.year}, plus {leave_balance.sick_days:n:sick day} and {leave_balance.personal_days:n:personal day}.",
                           "Your {leave_balance.year} vacation balance is {leave_balance.vacation_days:n:day}.",
                           "For {leave_balance.year}: vacation {leave_balance.vacation_days:n:day}, sick leave {leave_balance.sick_days:n:day}, personal {leave_balance.personal_days:n:day}.")),
        ),
        "get_ticket_details": (
            Intent(ask=("what's the status of {ticket_id}?", "any update on {ticket_id}?", "is {ticket_id} still open?", "where are we with {ticket_id}?", "I haven't heard anything on {ticket_id}; any progress?"),
                   answer=("Ticket {ticket_id} is {status:status}, at {priority} priority.",
                           "{?status~new,resolved,closed}{ticket_id} (\"{title}\") is currently {status:status}.",
                           "{?status=new}{ticket_id} (\"{title}\") is new and waiting to be picked up.",
                           "{?status=resolved,closed}{ticket_id} (\"{title}\") has been {status:status}.",
                           "{?assigned_to~unassigned}Your ticket {ticket_id} shows as {status:status}; {assigned_to} has it.")),
            Intent(ask=("who is working on {ticket_id}?", "has anyone picked up {ticket_id} yet?", "who has {ticket_id}?", "is somebody on {ticket_id}?"),
                   answer=("{?assigned_to~unassigned}Ticket {ticket_id} is with the {team} team; {assigned_to} is working on it.",
                           "{?assigned_to~unassigned}{assigned_to} on {team} has {ticket_id}.",
                           "{?assigned_to~unassigned}{ticket_id} sits with {team}, assigned to {assigned_to} ({assigned_tier}).",
                           "{?assigned_to=unassigned}Nobody has picked up {ticket_id} yet; it's waiting in the {team} queue.",
                           "{?assigned_to=unassigned}{ticket_id} is still unassigned, in the {team} queue.")),
            Intent(ask=("when should {ticket_id} be fixed by?", "what's the deadline for resolving {ticket_id}?", "when is {ticket_id} due?", "how long until {ticket_id} should be done?"),
                   answer=("Ticket {ticket_id} is due to be resolved by {resolve_by:when}.",
                           "The target for {ticket_id} is {resolve_by:when}.",
                           "{team} aims to fix {ticket_id} by {resolve_by:when}."),
                   context=("it's about {ticket_id}", "this concerns {ticket_id}", "I'm asking about {ticket_id}", "I opened {ticket_id}", "I'm following up on {ticket_id}", "my ticket is {ticket_id}")),
        ),
        "list_team_agents": (
            Intent(ask=("who is on {team}?", "which agents are on {team}?", "which agents in {team} are working today?",
                        "can you tell me who I could talk to in {team}?", "which agents work in {team}?", "I need someone from {team}; which agents are there?", "which people in {team} could help me?", "list the agents in {team}", "which support staff sit in {team}?"),
                   answer=("The {team} team has {agents:list:name|tier}.",
                           "On {team}: {agents:list:name|status@status}.",
                           "{team} is staffed by {agents:list:name} ({agents:n:agent})."),
                   context=("it's something for {team}", "{team} should handle it")),
            Intent(ask=("how big is the backlog in {team} right now?", "how many tickets are sitting with {team}?", "how many tickets are in the backlog for {team}?",
                        "how many tickets are waiting for someone in {team} to pick them up?", "how many unassigned tickets is {team} sitting on?"),
                   answer=("{team} has {unassigned_tickets:n:unassigned ticket} waiting in its queue.",
                           "{?unassigned_tickets~0}Nobody has picked up {unassigned_tickets:n:ticket} in the {team} queue yet.",
                           "The {team} backlog is {unassigned_tickets:n:unassigned ticket}.")),
        ),
        "create_ticket": (
            Intent(ask=("I need to open a new ticket under {category}: {summary}. {details} I'd call it {priority} priority.", "open a {priority} priority {category} ticket for me: {summary}. {details}",
                        "can you log a {priority} priority {category} issue for me? {summary}. {details}",
                        "please raise a ticket about this: {summary}. {details} Category {category}, priority {priority}."),
                   answer=("Ticket {ticket_id} is open with {team} at {priority} priority; the target resolution time is {resolve_by:when}.",
                           "I opened {ticket_id} for you (\"{title}\"); {team} will pick it up.",
                           "Your ticket is {ticket_id}, routed to {team}, due by {resolve_by:when}."),
                   context=("I'd like a {priority} priority {category} ticket opened for this: {summary}. {details}",
                            "first please log a ticket under {category} at {priority} priority: {summary}. {details}")),
        ),
        "assign_ticket": (
            Intent(ask=("can you assign {ticket_id} to {agent_id}?", "please have {agent_id} take over {ticket_id}", "give {ticket_id} to {agent_id}", "{agent_id} knows this system best, so hand {ticket_id} over to them",
                        "I'd like {agent_id} to handle {ticket_id}"),
                   answer=("Ticket {ticket_id} is now assigned to {assignee.name}, and it's {status:status}.",
                           "{assignee.name} ({assignee.tier}) now owns {ticket_id}, taking over from {previous_assignee}.",
                           "Done: {ticket_id} moved to {assignee.name} on {assignee.team}."),
                   context=("{ticket_id} should go to {agent_id}",)),
        ),
        "escalate_ticket": (
            Intent(ask=("{ticket_id} needs to go up to {new_priority} priority: {justification}",
                        "please escalate {ticket_id} to {new_priority}; {justification}",
                        "can you bump {ticket_id} to {new_priority}, since {justification}?", "raise {ticket_id} to {new_priority} priority — {justification}"),
                   answer=("Ticket {ticket_id} is now {priority} priority (it was {previous_priority}); the new target resolution time is {resolve_by:when}.",
                           "I raised {ticket_id} to {priority} priority, so it should be resolved by {resolve_by:when}.",
                           "{ticket_id} went from {previous_priority} to {priority} priority."),
                   context=("{ticket_id} has to be raised to {new_priority} priority because {justification}",)),
        ),
        "add_ticket_comment": (
            Intent(ask=("please add this note to {ticket_id}: {comment}", "add a note to {ticket_id}: {comment}", "update {ticket_id} with this: {comment}",
                        "can you pass a message on to whoever has {ticket_id}? {comment}",
                        "I'd like to add a comment on {ticket_id}: {comment}"),
                   answer=("Your comment is on ticket {ticket_id}, which now has {comment_count:n:comment}.",
                           "I added your note to {ticket_id}.",
                           "Your comment was posted to {ticket_id} on {created_at:when}."),
                   context=("please note on {ticket_id}: {comment}",)),
        ),
        "resolve_ticket": (
            Intent(ask=("{ticket_id} is sorted, please resolve it as {resolution_code}: {resolution_note}",
                        "you can close out {ticket_id} as {resolution_code}; {resolution_note}",
                        "please mark {ticket_id} resolved ({resolution_code}) with the note: {resolution_note}", "close {ticket_id} as {resolution_code} — {resolution_note}"),
                   answer=("Ticket {ticket_id} is resolved ({resolution_code:status}) as of {resolved_at:when}.",
                           "I closed {ticket_id} as {resolution_code:status}.",
                           "{ticket_id} is now resolved; {resolved_by} closed it on {resolved_at:when}."),
                   context=("{ticket_id} can be resolved as {resolution_code}: {resolution_note}",)),
        ),
        "request_asset_replacement": (
            Intent(ask=("{asset_id} is {reason}, can I get a replacement?", "replace {asset_id}, it's {reason}",
                        "I need a replacement for {asset_id}; the reason is that it's {reason}",
                        "please order me a new one to replace {asset_id} (it's {reason})", "I need {asset_id} replaced, it's {reason}"),
                   answer=("A replacement for your {model} ({asset_tag}) is requested under ticket {ticket_id}, at {priority} priority.",
                           "I've asked {team} to replace {asset_tag}; your ticket is {ticket_id}.",
                           "Replacement requested for the {kind} {asset_tag}: ticket {ticket_id}."),
                   context=("{asset_id} needs replacing because it's {reason}",)),
        ),
        "submit_leave_request": (
            Intent(ask=("I'd like to book {leave_type} leave from {start_date} to {end_date}", "put me down for {leave_type} leave, {start_date} through {end_date}",
                        "please put in a {leave_type} leave request for {start_date} through {end_date}",
                        "can you request {leave_type} days off for me, {start_date} until {end_date}?", "I need {leave_type} leave, {start_date} to {end_date}", "book me off on {leave_type} leave, {start_date} through {end_date}"),
                   answer=("Leave request {leave_request_id} ({start_date:date} to {end_date:date}, {days:n:working day}) is waiting for {approver_name} to approve, and you'll have {remaining_days:n:day} of {leave_type} leave left.",
                           "I submitted your {leave_type} leave for {start_date:date} to {end_date:date}; {approver_name} will review request {leave_request_id}.",
                           "Request {leave_request_id} covers {days:n:working day} and is {status:status}."),
                   context=("I want {leave_type} leave from {start_date} to {end_date}",)),
        ),
    },
    references={
        "employee_id": Reference(noun="employee record", plural="employee records",
                                 by_id=("employee record {value}",), user_knows_id=False),
        "ticket_id": Reference(
            noun="ticket", plural="tickets", by_id=("ticket {value}", "{value}", "my ticket {value}"),
            by_field={"title": ("my ticket \"{value}\"", "the ticket about \"{value}\""),
                      "opened_on": ("the ticket I opened on {value}",),
                      "category": ("my {value} ticket",)},
        ),
        "agent_id": Reference(
            noun="agent", plural="agents", by_id=("agent {value}",), user_knows_id=False,
            by_field={"name": ("{value}",)},
            superlative={"open_tickets": ("the agent with the most open tickets", "the agent with the fewest open tickets")},
        ),
        "team": Reference(noun="ticket's team", plural="teams", by_id=("the {value} team",)),
        "leave_request_id": Reference(
            noun="leave request", plural="leave requests", by_id=("leave request {value}",),
            by_field={"first_day": ("my leave starting {value}",), "leave_type": ("my {value} leave",)},
            superlative={"days": ("my longest leave", "my shortest leave")},
        ),
        "asset_id": Reference(
            noun="device", plural="devices", by_id=("device {value}",), user_knows_id=False,
            by_field={"kind": ("my {value}", "the {value} I was issued"), "model": ("my {value}",),
                      "asset_tag": ("the device tagged {value}",)},
        ),
    },
    entity_tables={"employee_id": "employees", "ticket_id": "tickets", "agent_id": "agents", "asset_id": "assets",
                   "team": "teams", "leave_request_id": "leave_requests"},
    values={
        "email": lambda rng, state: _employee(rng, state)["email"],
        "employee_number": lambda rng, state: _employee(rng, state)["employee_number"],
        "create_ticket": _new_issue,
        "justification": lambda rng, state: rng.choice(JUSTIFICATIONS),
        "comment": lambda rng, state: rng.choice(COMMENTS),
        "resolve_ticket": _resolution,
        "submit_leave_request": _leave_window,
        "assign_ticket.ticket_id": _ticket_where(_unassigned),
        "escalate_ticket.ticket_id": _ticket_where(_escalable),
        "escalate_ticket.new_priority": lambda rng, state: rng.choice(("high", "critical")),
        "add_ticket_comment.ticket_id": _ticket_where(_open),
        "resolve_ticket.ticket_id": _ticket_where(_resolvable),
        "request_asset_replacement.asset_id": _replaceable_asset,
        "request_asset_replacement.reason": _replacement_reason,
    },
    eligible={
        "assign_ticket.ticket_id": _open,
        "escalate_ticket.ticket_id": _raisable,
        "add_ticket_comment.ticket_id": _open,
        "resolve_ticket.ticket_id": _resolvable,
        "request_asset_replacement.asset_id": _no_replacement_yet,
    },
    field_nouns={
        "open_tickets": "open ticket count", "open_ticket_count": "number of open tickets",
        "asset_count": "number of assigned devices", "unassigned_tickets": "unassigned tickets",
        "vacation_days": "remaining vacation days", "sick_days": "remaining sick days",
        "personal_days": "remaining personal days", "days": "number of working days", "remaining_days": "days left",
        "comment_count": "number of comments", "resolve_by": "target resolution time",
        "opened_on": "date opened", "warranty_until": "warranty end date",
        "refresh_eligible_from": "refresh date", "hire_date": "start date",
    },
    out_of_scope=OUT_OF_SCOPE,
    identity=IDENTITY,
)
