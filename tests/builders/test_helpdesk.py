"""Helpdesk builder: the uniform contract plus its cases."""

from __future__ import annotations

from datetime import date, timedelta

from covert.env import State
from tests.builders.contract import BuilderContract, Case


def _employee(s: State) -> dict:
    return s.get("employees", s.ids("employees")[0])


def _ticket(s: State) -> str:
    return s.ids("tickets")[0]


def _asset(s: State) -> str:
    return s.ids("assets")[0]


def _team_agent(s: State, same_team: bool = True) -> str:
    """An agent of the first ticket's team (or of another team)."""
    team = s.get("tickets", _ticket(s))["team"]
    for key, agent in s.records("agents"):
        if (agent["team"] == team) == same_team:
            return key
    raise AssertionError("state has no such agent")


def _force_ticket(status: str = "new", assigned: bool = False, priority: str | None = None):
    """Setup: give the first ticket ``status``, an active assignee of its team or none, and ``priority``."""
    def setup(env) -> None:
        ticket = env.state.edit("tickets", _ticket(env.state))
        ticket["status"] = status
        ticket["assigned_agent_id"] = None
        if assigned:
            agent_id = _team_agent(env.state)
            env.state.edit("agents", agent_id)["status"] = "active"
            ticket["assigned_agent_id"] = agent_id
        if priority is not None:
            ticket["priority"] = priority
    return setup


def _agent_status(status: str, assigned: bool = False):
    """Setup: an open first ticket whose team's first agent has ``status``."""
    def setup(env) -> None:
        _force_ticket("new", assigned=assigned)(env)
        env.state.edit("agents", _team_agent(env.state))["status"] = status
    return setup


def _asset_state(status: str = "in use", refresh_in_days: int = -30):
    """Setup: the first device has ``status`` and a refresh date ``refresh_in_days`` from today."""
    def setup(env) -> None:
        today = date.fromisoformat(env.state.get("meta", "clock")["today"])
        asset = env.state.edit("assets", _asset(env.state))
        asset["status"] = status
        asset["refresh_eligible_from"] = (today + timedelta(days=refresh_in_days)).isoformat()
    return setup


def _leave_days(s: State, offset: int, length: int = 1) -> dict:
    """A period of ``length`` working days starting on the first weekday ``offset`` days from today."""
    first = date.fromisoformat(s.get("meta", "clock")["today"]) + timedelta(days=offset)
    while first.weekday() >= 5:
        first += timedelta(days=1)
    last, days = first, 1
    while days < length:
        last += timedelta(days=1)
        days += last.weekday() < 5
    return {"start_date": first.isoformat(), "end_date": last.isoformat()}


def _clear_leave(balance: int):
    """Setup: the first employee has ``balance`` days of every type and no leave on file."""
    def setup(env) -> None:
        employee_id = env.state.ids("employees")[0]
        employee = env.state.edit("employees", employee_id)
        employee["leave_balance"].update(vacation=balance, sick=balance, personal=balance)
        for request in env.state.find("leave_requests", employee_id=employee_id):
            env.state.delete("leave_requests", request["leave_request_id"])
    return setup


def _booked_leave(env) -> None:
    """Setup: the first employee has plenty of balance and approved leave on the period the case asks for."""
    _clear_leave(20)(env)
    period = _leave_days(env.state, 20, 3)
    env.state.insert("leave_requests", "LR-TEST-00001", {
        "leave_request_id": "LR-TEST-00001", "employee_id": env.state.ids("employees")[0], "leave_type": "vacation",
        "start_date": period["start_date"], "end_date": period["end_date"], "days": 3, "status": "approved",
        "approver_name": "Test Manager", "submitted_on": "2026-01-02", "note": "",
    })


def _leave(s: State, leave_type: str = "vacation", offset: int = 20, length: int = 2) -> dict:
    return {"employee_id": s.ids("employees")[0], "leave_type": leave_type, **_leave_days(s, offset, length)}


NEW_ISSUE = {"category": "network", "priority": "high", "summary": "Conference room display not connecting",
             "details": "The wireless presenter in room 5C refuses to pair with my laptop."}


class TestHelpdesk(BuilderContract):
    builder_name = "helpdesk"
    fingerprint = "1.10.0:18dc5f945ee0a595"
    cases = [
        Case("find_employee_by_email", lambda s: {"email": _employee(s)["email"].upper()}),
        Case("find_employee_by_email", lambda s: {"email": "nobody@meridianlabs.example.com"}, "employee_not_found"),
        Case("find_employee_by_number", lambda s: {"employee_number": _employee(s)["employee_number"]}),
        Case("find_employee_by_number", lambda s: {"employee_number": "000001"}, "employee_not_found"),
        Case("get_employee_profile", lambda s: {"employee_id": s.ids("employees")[0]}),
        Case("get_employee_profile", lambda s: {"employee_id": "u_00000000"}, "employee_not_found"),
        Case("get_ticket_details", lambda s: {"ticket_id": _ticket(s)}),
        Case("get_ticket_details", lambda s: {"ticket_id": _ticket(s).lower()}, setup=_force_ticket("in progress", True)),
        Case("get_ticket_details", lambda s: {"ticket_id": "INC0000000"}, "ticket_not_found"),
        Case("list_team_agents", lambda s: {"team": "Desktop Support"}),
        Case("list_team_agents", lambda s: {"team": "HR Services"}),
        # create
        Case("create_ticket", lambda s: {"employee_id": s.ids("employees")[0], **NEW_ISSUE}),
        Case("create_ticket", lambda s: {"employee_id": "u_00000000", **NEW_ISSUE}, "employee_not_found"),
        Case("create_ticket",
             lambda s: {**NEW_ISSUE, "employee_id": s.get("tickets", _ticket(s))["employee_id"],
                        "category": s.get("tickets", _ticket(s))["category"],
                        "summary": s.get("tickets", _ticket(s))["title"].upper()},
             "duplicate_ticket", setup=_force_ticket("in progress")),
        # assign
        Case("assign_ticket", lambda s: {"ticket_id": _ticket(s), "agent_id": _team_agent(s)},
             setup=_agent_status("active")),
        Case("assign_ticket", lambda s: {"ticket_id": "INC0000000", "agent_id": _team_agent(s)}, "ticket_not_found"),
        Case("assign_ticket", lambda s: {"ticket_id": _ticket(s), "agent_id": _team_agent(s)}, "ticket_not_open",
             setup=_force_ticket("closed")),
        Case("assign_ticket", lambda s: {"ticket_id": _ticket(s), "agent_id": "agt_00000"}, "agent_not_found",
             setup=_force_ticket("new")),
        Case("assign_ticket", lambda s: {"ticket_id": _ticket(s), "agent_id": _team_agent(s, same_team=False)},
             "wrong_team", setup=_force_ticket("new")),
        Case("assign_ticket", lambda s: {"ticket_id": _ticket(s), "agent_id": _team_agent(s)}, "agent_unavailable",
             setup=_agent_status("on leave")),
        Case("assign_ticket", lambda s: {"ticket_id": _ticket(s), "agent_id": _team_agent(s)}, "already_assigned",
             setup=_force_ticket("in progress", assigned=True)),
        # escalate
        Case("escalate_ticket", lambda s: {"ticket_id": _ticket(s), "new_priority": "critical",
                                           "justification": "payroll closes on Friday"},
             setup=_force_ticket("on hold", priority="low")),
        Case("escalate_ticket", lambda s: {"ticket_id": "HRC0000000", "new_priority": "critical", "justification": "x"},
             "ticket_not_found"),
        Case("escalate_ticket", lambda s: {"ticket_id": _ticket(s), "new_priority": "critical", "justification": "x"},
             "ticket_not_open", setup=_force_ticket("resolved", assigned=True, priority="low")),
        Case("escalate_ticket", lambda s: {"ticket_id": _ticket(s), "new_priority": "medium", "justification": "x"},
             "priority_not_higher", setup=_force_ticket("new", priority="high")),
        # comment
        Case("add_ticket_comment", lambda s: {"ticket_id": _ticket(s), "comment": "Still broken after a restart."},
             setup=_force_ticket("in progress", assigned=True)),
        Case("add_ticket_comment", lambda s: {"ticket_id": "INC0000000", "comment": "hello"}, "ticket_not_found"),
        Case("add_ticket_comment", lambda s: {"ticket_id": _ticket(s), "comment": "hello"}, "ticket_not_open",
             setup=_force_ticket("closed", assigned=True)),
        Case("add_ticket_comment", lambda s: {"ticket_id": _ticket(s), "comment": "   "}, "empty_comment",
             setup=_force_ticket("new")),
        # resolve
        Case("resolve_ticket", lambda s: {"ticket_id": _ticket(s), "resolution_code": "fixed",
                                          "resolution_note": "Replaced the dock."},
             setup=_force_ticket("in progress", assigned=True)),
        Case("resolve_ticket", lambda s: {"ticket_id": "INC0000000", "resolution_code": "fixed", "resolution_note": "x"},
             "ticket_not_found"),
        Case("resolve_ticket", lambda s: {"ticket_id": _ticket(s), "resolution_code": "fixed", "resolution_note": "x"},
             "ticket_not_open", setup=_force_ticket("resolved", assigned=True)),
        Case("resolve_ticket", lambda s: {"ticket_id": _ticket(s), "resolution_code": "withdrawn", "resolution_note": "x"},
             "ticket_not_assigned", setup=_force_ticket("new")),
        # device replacement
        Case("request_asset_replacement", lambda s: {"asset_id": _asset(s), "reason": "stolen"},
             setup=_asset_state(refresh_in_days=400)),
        Case("request_asset_replacement", lambda s: {"asset_id": _asset(s), "reason": "outdated"},
             setup=_asset_state(refresh_in_days=-30)),
        Case("request_asset_replacement", lambda s: {"asset_id": "hw_00000000", "reason": "damaged"}, "asset_not_found"),
        Case("request_asset_replacement", lambda s: {"asset_id": _asset(s), "reason": "not working"},
             "replacement_already_requested", setup=_asset_state("replacement requested")),
        Case("request_asset_replacement", lambda s: {"asset_id": _asset(s), "reason": "outdated"},
             "not_eligible_for_refresh", setup=_asset_state(refresh_in_days=400)),
        # leave
        Case("submit_leave_request", lambda s: _leave(s), setup=_clear_leave(10)),
        Case("submit_leave_request", lambda s: {**_leave(s), "employee_id": "u_00000000"}, "employee_not_found"),
        Case("submit_leave_request", lambda s: {**_leave(s), "start_date": _leave(s)["end_date"],
                                                "end_date": _leave(s)["start_date"]},
             "invalid_dates", setup=_clear_leave(10)),
        Case("submit_leave_request", lambda s: {**_leave(s), "start_date": "2025-01-06", "end_date": "2025-01-07"},
             "invalid_dates", setup=_clear_leave(10)),
        Case("submit_leave_request", lambda s: _leave(s, "personal"), "insufficient_balance", setup=_clear_leave(0)),
        Case("submit_leave_request", lambda s: _leave(s, "sick", offset=20, length=1), "overlapping_request",
             setup=_booked_leave),
    ]


def test_an_answer_about_open_tickets_lists_only_open_ones() -> None:
    """"Your open tickets: HRC0006582 (Add newborn to health insurance, closed)" was false: a list said to
    be of open tickets holds only the open ones, and a profile with none open says so."""
    from covert.env import get_builder
    from covert.language.answers import fill_answer
    from covert.language.spoken import Unspeakable

    builder = get_builder("helpdesk")
    env = builder.env(builder.state(11, 0))
    employee = next(e for e, _ in env.state.records("employees")
                    if any(t["status"] not in ("new", "in progress", "on hold")
                           for t in env.state.find("tickets", employee_id=e)))
    profile = env.call("get_employee_profile", {"employee_id": employee})
    closed = [t["title"] for t in profile["tickets"] if not t["is_open"]]
    opened = [t["title"] for t in profile["tickets"] if t["is_open"]]
    assert closed and profile["open_ticket_count"] == len(opened)
    said = 0
    for intent in builder.language.intents["get_employee_profile"]:
        for template in intent.answer:
            if "open" not in template:
                continue
            try:
                text, _ = fill_answer(template, profile, 0, full=True)
            except Unspeakable:
                continue
            said += 1
            assert not any(title in text for title in closed), text
    assert said >= 1
