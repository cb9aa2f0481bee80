"""Helpdesk tools: employees, IT and HR tickets, support agents, assigned devices and leave requests."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Literal, TypedDict

from builders.helpdesk.state import (
    CATEGORY_TEAM,
    OPEN_STATUSES,
    PRIORITY_RANK,
    SLA_HOURS,
    parse_stamp,
    stamp,
    ticket_prefix,
    working_days,
)
from covert.env import Environment, ToolError, tool

Category = Literal["hardware", "software", "email", "network", "access", "payroll", "benefits"]
Priority = Literal["low", "medium", "high", "critical"]
Team = Literal["Desktop Support", "Application Support", "Network Operations", "Identity & Access", "HR Services"]
ResolutionCode = Literal["fixed", "workaround", "duplicate", "no fault found", "withdrawn"]
ReplacementReason = Literal["not working", "damaged", "lost", "stolen", "outdated"]
LeaveType = Literal["vacation", "sick", "personal"]


class EmployeeRef(TypedDict):
    """An employee found in the directory.

    Attributes:
        employee_id: The employee's internal directory id.
        name: Full name.
        department: Department the employee works in.
    """

    employee_id: str
    name: str
    department: str


class TicketSummary(TypedDict):
    """One ticket raised by an employee.

    Attributes:
        ticket_id: Ticket number (INC... for IT incidents, HRC... for HR cases).
        title: Short title of the issue.
        category: Ticket category.
        status: new, in progress, on hold, resolved or closed.
        is_open: Whether the ticket is still open (new, in progress or on hold).
        priority: low, medium, high or critical.
        opened_on: Date the ticket was opened (YYYY-MM-DD).
        assigned_to: Name of the agent working on it, or "unassigned".
    """

    ticket_id: str
    title: str
    category: str
    status: str
    is_open: bool
    priority: str
    opened_on: str
    assigned_to: str


class AssetSummary(TypedDict):
    """A device assigned to an employee.

    Attributes:
        asset_id: Internal id of the device record.
        asset_tag: Inventory tag printed on the device.
        kind: laptop, monitor, phone, headset, docking station or tablet.
        model: Make and model.
        serial_number: Manufacturer serial number.
        status: in use or replacement requested.
        assigned_on: Date the device was handed out (YYYY-MM-DD).
        warranty_until: Last day of the manufacturer warranty (YYYY-MM-DD).
        refresh_eligible_from: First day the device may be replaced for being outdated (YYYY-MM-DD).
    """

    asset_id: str
    asset_tag: str
    kind: str
    model: str
    serial_number: str
    status: str
    assigned_on: str
    warranty_until: str
    refresh_eligible_from: str


class LeaveBalance(TypedDict):
    """Remaining leave for the current year, pending requests already deducted.

    Attributes:
        year: Leave year.
        vacation_days: Vacation days left.
        sick_days: Sick days left.
        personal_days: Personal days left.
    """

    year: int
    vacation_days: int
    sick_days: int
    personal_days: int


class LeaveRequestSummary(TypedDict):
    """A leave request on file.

    Attributes:
        leave_request_id: Id of the leave request.
        leave_type: vacation, sick or personal.
        first_day: First day of leave (YYYY-MM-DD).
        last_day: Last day of leave (YYYY-MM-DD).
        days: Working days requested.
        status: approved, pending approval, rejected or cancelled.
    """

    leave_request_id: str
    leave_type: str
    first_day: str
    last_day: str
    days: int
    status: str


class EmployeeProfile(TypedDict):
    """An employee's service profile: directory data, tickets, devices and leave.

    Attributes:
        employee_id: The employee's internal directory id.
        employee_number: Employee number printed on the badge.
        name: Full name.
        email: Work email address.
        department: Department.
        job_title: Job title.
        location: Office or remote region.
        manager_name: Line manager, who approves leave.
        hire_date: Start date (YYYY-MM-DD).
        open_ticket_count: Number of tickets that are new, in progress or on hold.
        tickets: The employee's tickets, newest first.
        asset_count: Number of devices assigned.
        assets: Devices assigned to the employee.
        leave_balance: Remaining leave this year.
        leave_requests: Leave requests on file, latest first.
    """

    employee_id: str
    employee_number: str
    name: str
    email: str
    department: str
    job_title: str
    location: str
    manager_name: str
    hire_date: str
    open_ticket_count: int
    tickets: list[TicketSummary]
    asset_count: int
    assets: list[AssetSummary]
    leave_balance: LeaveBalance
    leave_requests: list[LeaveRequestSummary]


class Comment(TypedDict):
    """A comment on a ticket.

    Attributes:
        author: Who wrote it.
        role: requester or agent.
        created_at: When it was posted (ISO 8601, UTC).
        body: The text.
    """

    author: str
    role: str
    created_at: str
    body: str


class Assignee(TypedDict):
    """The support agent a ticket is assigned to.

    Attributes:
        agent_id: Internal id of the agent.
        name: Agent's name.
        team: The agent's team.
        tier: Support tier (L1, L2 or L3).
    """

    agent_id: str
    name: str
    team: str
    tier: str


class Resolution(TypedDict):
    """How a ticket was resolved.

    Attributes:
        code: fixed, workaround, duplicate, no fault found or withdrawn.
        note: What was done.
        resolved_at: When it was resolved (ISO 8601, UTC).
        resolved_by: Agent who resolved it.
    """

    code: str
    note: str
    resolved_at: str
    resolved_by: str


class _TicketCore(TypedDict):
    """The fields every ticket has (documented on :class:`TicketDetails`)."""

    ticket_id: str
    employee_id: str
    requester_name: str
    category: str
    team: str
    title: str
    description: str
    priority: str
    status: str
    channel: str
    opened_at: str
    updated_at: str
    resolve_by: str
    escalated: bool
    assigned_to: str
    assigned_tier: str
    comments: list[Comment]


class TicketDetails(_TicketCore, total=False):
    """A full ticket.

    Attributes:
        ticket_id: Ticket number.
        employee_id: Internal id of the employee who raised it.
        requester_name: Name of the employee who raised it.
        category: Ticket category.
        team: Support team that owns the category.
        title: Short title.
        description: The reported problem.
        priority: low, medium, high or critical.
        status: new, in progress, on hold, resolved or closed.
        channel: How it was raised (portal, email, phone or chat).
        opened_at: When it was opened (ISO 8601, UTC).
        updated_at: Last change (ISO 8601, UTC).
        resolve_by: Target resolution time from the priority's service level (ISO 8601, UTC).
        escalated: Whether the ticket has been escalated.
        assigned_to: Name of the assigned agent, or "unassigned".
        assigned_tier: Support tier of the assigned agent (L1, L2 or L3), or "" while unassigned.
        comments: Comments, oldest first.
        resolution: How it was resolved; absent while open.
    """

    resolution: Resolution


class AgentSummary(TypedDict):
    """A support agent.

    Attributes:
        agent_id: Internal id of the agent.
        name: Agent's name.
        tier: Support tier (L1, L2 or L3).
        status: active or on leave.
        open_tickets: Open tickets currently assigned to the agent.
        phone_extension: Desk phone extension.
    """

    agent_id: str
    name: str
    tier: str
    status: str
    open_tickets: int
    phone_extension: str


class TeamAgents(TypedDict):
    """A support team's agents.

    Attributes:
        team: The team.
        categories: Ticket categories the team owns.
        support_hours: When the team is staffed.
        unassigned_tickets: Open tickets of the team nobody is assigned to yet.
        agents: The team's agents.
    """

    team: str
    categories: list[str]
    support_hours: str
    unassigned_tickets: int
    agents: list[AgentSummary]


class CreatedTicket(TypedDict):
    """A newly opened ticket.

    Attributes:
        ticket_id: Ticket number.
        employee_id: Internal id of the requester.
        category: Ticket category.
        team: Team the ticket was routed to.
        priority: Priority.
        status: Always new.
        title: Short title.
        opened_at: When it was opened (ISO 8601, UTC).
        resolve_by: Target resolution time (ISO 8601, UTC).
    """

    ticket_id: str
    employee_id: str
    category: str
    team: str
    priority: str
    status: str
    title: str
    opened_at: str
    resolve_by: str


class AssignResult(TypedDict):
    """A ticket's new assignment.

    Attributes:
        ticket_id: Ticket number.
        status: The ticket's status after assignment.
        assignee: The agent now assigned.
        previous_assignee: Name of the agent assigned before, or "unassigned".
    """

    ticket_id: str
    status: str
    assignee: Assignee
    previous_assignee: str


class EscalateResult(TypedDict):
    """An escalated ticket.

    Attributes:
        ticket_id: Ticket number.
        previous_priority: Priority before escalation.
        priority: New priority.
        status: Ticket status.
        escalated: Always true.
        resolve_by: New target resolution time (ISO 8601, UTC).
    """

    ticket_id: str
    previous_priority: str
    priority: str
    status: str
    escalated: bool
    resolve_by: str


class CommentResult(TypedDict):
    """A comment added to a ticket.

    Attributes:
        ticket_id: Ticket number.
        author: Who the comment is posted as.
        created_at: When it was posted (ISO 8601, UTC).
        body: The comment text.
        comment_count: Comments on the ticket now.
    """

    ticket_id: str
    author: str
    created_at: str
    body: str
    comment_count: int


class ResolveResult(TypedDict):
    """A resolved ticket.

    Attributes:
        ticket_id: Ticket number.
        status: Always resolved.
        resolution_code: The resolution code.
        resolution_note: What was done.
        resolved_by: The assigned agent, credited with the resolution.
        resolved_at: When it was resolved (ISO 8601, UTC).
    """

    ticket_id: str
    status: str
    resolution_code: str
    resolution_note: str
    resolved_by: str
    resolved_at: str


class ReplacementResult(TypedDict):
    """A device replacement request.

    Attributes:
        asset_id: Internal id of the device being replaced.
        asset_tag: Inventory tag of the device.
        kind: Kind of device.
        model: Make and model.
        asset_status: The device's new status.
        reason: Why it is replaced.
        ticket_id: The hardware ticket opened for the replacement.
        priority: Priority of that ticket.
        team: Team handling it.
    """

    asset_id: str
    asset_tag: str
    kind: str
    model: str
    asset_status: str
    reason: str
    ticket_id: str
    priority: str
    team: str


class LeaveResult(TypedDict):
    """A submitted leave request.

    Attributes:
        leave_request_id: Id of the new leave request.
        employee_id: Internal id of the employee.
        leave_type: vacation, sick or personal.
        start_date: First day of leave (YYYY-MM-DD).
        end_date: Last day of leave (YYYY-MM-DD).
        days: Working days deducted from the balance.
        status: Always pending approval.
        approver_name: Manager who must approve it.
        remaining_days: Days of this leave type left after the request.
    """

    leave_request_id: str
    employee_id: str
    leave_type: str
    start_date: str
    end_date: str
    days: int
    status: str
    approver_name: str
    remaining_days: int


class HelpdeskEnv(Environment):
    """An internal IT and HR service desk."""

    name = "helpdesk"

    # -- helpers ---------------------------------------------------------------------------------
    def _clock(self) -> dict:
        return self.state.get("meta", "clock")

    def _employee(self, employee_id: str) -> dict:
        employee = self.state.get("employees", employee_id)
        if employee is None:
            raise ToolError("employee_not_found", f"No employee has id {employee_id}.")
        return employee

    def _ticket(self, ticket_id: str) -> dict:
        ticket = self.state.get("tickets", ticket_id.strip().upper())
        if ticket is None:
            raise ToolError("ticket_not_found", f"No ticket has number {ticket_id}.")
        return ticket

    def _open_ticket(self, ticket_id: str) -> dict:
        ticket = self._ticket(ticket_id)
        if ticket["status"] not in OPEN_STATUSES:
            raise ToolError("ticket_not_open", f"Ticket {ticket['ticket_id']} is {ticket['status']}; only open tickets "
                                               "(new, in progress, on hold) can be changed.")
        return ticket

    def _agent_name(self, agent_id: str | None) -> str:
        agent = self.state.get("agents", agent_id) if agent_id else None
        return agent["name"] if agent else "unassigned"

    def _resolve_by(self, start: str, priority: str) -> str:
        return stamp(parse_stamp(start) + timedelta(hours=SLA_HOURS[priority]))

    @staticmethod
    def _assignee(agent: dict) -> Assignee:
        return {"agent_id": agent["agent_id"], "name": agent["name"], "team": agent["team"], "tier": agent["tier"]}

    def _new_ticket_id(self, category: str) -> str:
        prefix, counter = ticket_prefix(category)
        return f"{prefix}{self.state.next_id(counter):07d}"

    # -- reads -----------------------------------------------------------------------------------
    @tool(errors=("employee_not_found",))
    def find_employee_by_email(self, email: str) -> EmployeeRef:
        """Find an employee's directory id from their work email address.

        Args:
            email: The employee's work email, such as maria.chen@meridianlabs.example.com.
        """
        employee = self.state.find_one("employees", email=email.strip().lower())
        if employee is None:
            raise ToolError("employee_not_found", "No employee has that work email address.")
        return {"employee_id": employee["employee_id"], "name": employee["name"], "department": employee["department"]}

    @tool(errors=("employee_not_found",))
    def find_employee_by_number(self, employee_number: str) -> EmployeeRef:
        """Find an employee's directory id from the employee number on their badge.

        Args:
            employee_number: The six-digit employee number, such as 104823.
        """
        employee = self.state.find_one("employees", employee_number=employee_number.strip().lstrip("#"))
        if employee is None:
            raise ToolError("employee_not_found", "No employee has that employee number.")
        return {"employee_id": employee["employee_id"], "name": employee["name"], "department": employee["department"]}

    @tool(errors=("employee_not_found",))
    def get_employee_profile(self, employee_id: str) -> EmployeeProfile:
        """Get an employee's service profile: directory details, tickets, assigned devices, leave balance and leave requests.

        Args:
            employee_id: The employee's directory id, such as u_3f9a1c07.
        """
        employee = self._employee(employee_id)
        tickets = sorted(self.state.find("tickets", employee_id=employee_id), key=lambda t: t["opened_at"], reverse=True)
        ticket_rows: list[TicketSummary] = [
            {"ticket_id": t["ticket_id"], "title": t["title"], "category": t["category"], "status": t["status"],
             "is_open": t["status"] in OPEN_STATUSES, "priority": t["priority"], "opened_on": t["opened_at"][:10],
             "assigned_to": self._agent_name(t["assigned_agent_id"])}
            for t in tickets
        ]
        assets: list[AssetSummary] = [
            {"asset_id": a["asset_id"], "asset_tag": a["asset_tag"], "kind": a["kind"], "model": a["model"],
             "serial_number": a["serial_number"], "status": a["status"], "assigned_on": a["assigned_on"],
             "warranty_until": a["warranty_until"], "refresh_eligible_from": a["refresh_eligible_from"]}
            for a in self.state.find("assets", employee_id=employee_id)
        ]
        requests = sorted(self.state.find("leave_requests", employee_id=employee_id),
                          key=lambda r: r["start_date"], reverse=True)
        balance = employee["leave_balance"]
        return {
            "employee_id": employee_id, "employee_number": employee["employee_number"], "name": employee["name"],
            "email": employee["email"], "department": employee["department"], "job_title": employee["job_title"],
            "location": employee["location"], "manager_name": employee["manager_name"],
            "hire_date": employee["hire_date"],
            "open_ticket_count": sum(1 for t in tickets if t["status"] in OPEN_STATUSES),
            "tickets": ticket_rows, "asset_count": len(assets), "assets": assets,
            "leave_balance": {"year": balance["year"], "vacation_days": balance["vacation"],
                              "sick_days": balance["sick"], "personal_days": balance["personal"]},
            "leave_requests": [
                {"leave_request_id": r["leave_request_id"], "leave_type": r["leave_type"], "first_day": r["start_date"],
                 "last_day": r["end_date"], "days": r["days"], "status": r["status"]}
                for r in requests
            ],
        }

    @tool(errors=("ticket_not_found",))
    def get_ticket_details(self, ticket_id: str) -> TicketDetails:
        """Get a ticket's full details: requester, team, priority, status, assignee, target time and comments.

        Args:
            ticket_id: The ticket number, such as INC0041782 or HRC0004521.
        """
        ticket = self._ticket(ticket_id)
        requester = self.state.get("employees", ticket["employee_id"])
        agent = self.state.get("agents", ticket["assigned_agent_id"]) if ticket["assigned_agent_id"] else None
        out: TicketDetails = {
            "ticket_id": ticket["ticket_id"], "employee_id": ticket["employee_id"],
            "requester_name": requester["name"] if requester else "unknown",
            "category": ticket["category"], "team": ticket["team"], "title": ticket["title"],
            "description": ticket["description"], "priority": ticket["priority"], "status": ticket["status"],
            "channel": ticket["channel"], "opened_at": ticket["opened_at"], "updated_at": ticket["updated_at"],
            "resolve_by": ticket["resolve_by"], "escalated": ticket["escalated"],
            "assigned_to": self._agent_name(ticket["assigned_agent_id"]),
            "assigned_tier": agent["tier"] if agent else "",
            "comments": [dict(c) for c in ticket["comments"]],
        }
        if ticket["resolution"]:
            out["resolution"] = dict(ticket["resolution"])
        return out

    @tool()
    def list_team_agents(self, team: Team) -> TeamAgents:
        """List the agents of a support team with their status and current open-ticket load.

        Args:
            team: The support team.
        """
        queue = self.state.get("teams", team)
        agents: list[AgentSummary] = [
            {"agent_id": a["agent_id"], "name": a["name"], "tier": a["tier"], "status": a["status"],
             "open_tickets": a["open_tickets"], "phone_extension": a["phone_extension"]}
            for a in self.state.find("agents", team=team)
        ]
        return {"team": team, "categories": list(queue["categories"]), "support_hours": queue["hours"],
                "unassigned_tickets": queue["unassigned_open"], "agents": agents}

    def _queue_add(self, team: str, change: int) -> None:
        queue = self.state.edit("teams", team)
        queue["unassigned_open"] = max(0, queue["unassigned_open"] + change)

    def _load_add(self, agent_id: str, change: int) -> None:
        if self.state.get("agents", agent_id) is not None:
            agent = self.state.edit("agents", agent_id)
            agent["open_tickets"] = max(0, agent["open_tickets"] + change)

    # -- writes ----------------------------------------------------------------------------------
    @tool(writes=True, errors=("employee_not_found", "duplicate_ticket"))
    def create_ticket(self, employee_id: str, category: Category, priority: Priority, summary: str,
                      details: str) -> CreatedTicket:
        """Open a new IT or HR ticket for an employee; it is routed to the team that owns the category.

        Args:
            employee_id: Directory id of the employee the ticket is for.
            category: What the issue is about; decides the team (payroll and benefits go to HR Services).
            priority: How urgent the issue is.
            summary: One-line title of the issue.
            details: Description of the problem in the employee's words.
        """
        employee = self._employee(employee_id)
        title = summary.strip()
        for other in self.state.find("tickets", employee_id=employee_id):
            if (other["status"] in OPEN_STATUSES and other["category"] == category
                    and other["title"].lower() == title.lower()):
                raise ToolError("duplicate_ticket", f"{employee['name']} already has open ticket {other['ticket_id']} "
                                                    f"for this issue; add a comment there instead.")
        ticket_id = self._new_ticket_id(category)
        now = self._clock()["now"]
        team = CATEGORY_TEAM[category]
        ticket = {
            "ticket_id": ticket_id, "category": category, "team": team, "title": title,
            "description": details.strip(), "employee_id": employee_id, "priority": priority,
            "status": "new", "channel": "chat", "opened_at": now, "updated_at": now,
            "resolve_by": self._resolve_by(now, priority), "escalated": False, "assigned_agent_id": None,
            "comments": [], "resolution": None,
        }
        self.state.insert("tickets", ticket_id, ticket)
        self._queue_add(team, 1)
        return {"ticket_id": ticket_id, "employee_id": employee_id, "category": category, "team": team,
                "priority": priority, "status": "new", "title": title, "opened_at": now,
                "resolve_by": ticket["resolve_by"]}

    @tool(writes=True, errors=("ticket_not_found", "ticket_not_open", "agent_not_found", "wrong_team",
                               "agent_unavailable", "already_assigned"))
    def assign_ticket(self, ticket_id: str, agent_id: str) -> AssignResult:
        """Assign an open ticket to an active agent of the team that owns the ticket's category.

        Args:
            ticket_id: The ticket number, such as INC0041782.
            agent_id: Internal id of the agent, such as agt_48213.
        """
        current = self._open_ticket(ticket_id)
        agent = self.state.get("agents", agent_id)
        if agent is None:
            raise ToolError("agent_not_found", f"No agent has id {agent_id}.")
        if agent["team"] != current["team"]:
            raise ToolError("wrong_team", f"{agent['name']} is on {agent['team']}, but {current['category']} tickets "
                                          f"belong to {current['team']}.")
        if agent["status"] != "active":
            raise ToolError("agent_unavailable", f"{agent['name']} is {agent['status']} and cannot take tickets.")
        if current["assigned_agent_id"] == agent_id:
            raise ToolError("already_assigned", f"Ticket {current['ticket_id']} is already assigned to {agent['name']}.")
        previous = self._agent_name(current["assigned_agent_id"])
        ticket = self.state.edit("tickets", current["ticket_id"])
        ticket["assigned_agent_id"] = agent_id
        if ticket["status"] == "new":
            ticket["status"] = "in progress"
        ticket["updated_at"] = self._clock()["now"]
        if current["assigned_agent_id"]:
            self._load_add(current["assigned_agent_id"], -1)
        else:
            self._queue_add(current["team"], -1)
        self._load_add(agent_id, 1)
        return {"ticket_id": ticket["ticket_id"], "status": ticket["status"], "assignee": self._assignee(agent),
                "previous_assignee": previous}

    @tool(writes=True, errors=("ticket_not_found", "ticket_not_open", "priority_not_higher"))
    def escalate_ticket(self, ticket_id: str, new_priority: Priority, justification: str) -> EscalateResult:
        """Escalate an open ticket by raising its priority; its target resolution time is recomputed for the new priority.

        Args:
            ticket_id: The ticket number, such as INC0041782.
            new_priority: The raised priority; must be higher than the current one.
            justification: Why the ticket needs escalating (business impact).
        """
        current = self._open_ticket(ticket_id)
        if PRIORITY_RANK[new_priority] <= PRIORITY_RANK[current["priority"]]:
            raise ToolError("priority_not_higher", f"Ticket {current['ticket_id']} is already {current['priority']} "
                                                   f"priority; escalation must raise it.")
        now = self._clock()["now"]
        ticket = self.state.edit("tickets", current["ticket_id"])
        ticket["priority"] = new_priority
        ticket["escalated"] = True
        # a target still ahead may only get tighter; a breached one restarts from now at the new priority
        fresh = self._resolve_by(now, new_priority)
        ticket["resolve_by"] = min(ticket["resolve_by"], fresh) if ticket["resolve_by"] > now else fresh
        ticket["updated_at"] = now
        ticket["comments"].append({"author": "Service Desk", "role": "agent", "created_at": now,
                                   "body": f"Escalated from {current['priority']} to {new_priority}: {justification.strip()}"})
        return {"ticket_id": ticket["ticket_id"], "previous_priority": current["priority"], "priority": new_priority,
                "status": ticket["status"], "escalated": True, "resolve_by": ticket["resolve_by"]}

    @tool(writes=True, errors=("ticket_not_found", "ticket_not_open", "empty_comment"))
    def add_ticket_comment(self, ticket_id: str, comment: str) -> CommentResult:
        """Add a comment from the requester to an open ticket, visible to the assigned team.

        Args:
            ticket_id: The ticket number, such as INC0041782.
            comment: The comment text.
        """
        current = self._open_ticket(ticket_id)
        body = comment.strip()
        if not body:
            raise ToolError("empty_comment", "A comment needs some text.")
        requester = self.state.get("employees", current["employee_id"])
        author = requester["name"] if requester else "Requester"
        now = self._clock()["now"]
        ticket = self.state.edit("tickets", current["ticket_id"])
        ticket["comments"].append({"author": author, "role": "requester", "created_at": now, "body": body})
        ticket["updated_at"] = now
        return {"ticket_id": ticket["ticket_id"], "author": author, "created_at": now, "body": body,
                "comment_count": len(ticket["comments"])}

    @tool(writes=True, errors=("ticket_not_found", "ticket_not_open", "ticket_not_assigned"))
    def resolve_ticket(self, ticket_id: str, resolution_code: ResolutionCode, resolution_note: str) -> ResolveResult:
        """Resolve an open ticket that is assigned to an agent, recording how it was resolved.

        Args:
            ticket_id: The ticket number, such as INC0041782.
            resolution_code: How the issue ended.
            resolution_note: A short note on what fixed it or why it is closed.
        """
        current = self._open_ticket(ticket_id)
        if not current["assigned_agent_id"]:
            raise ToolError("ticket_not_assigned", f"Ticket {current['ticket_id']} is not assigned to an agent yet; "
                                                   f"assign it before resolving.")
        resolved_by = self._agent_name(current["assigned_agent_id"])
        now = self._clock()["now"]
        ticket = self.state.edit("tickets", current["ticket_id"])
        ticket["status"] = "resolved"
        ticket["updated_at"] = now
        ticket["resolution"] = {"code": resolution_code, "note": resolution_note.strip(), "resolved_at": now,
                                "resolved_by": resolved_by}
        self._load_add(current["assigned_agent_id"], -1)
        return {"ticket_id": ticket["ticket_id"], "status": "resolved", "resolution_code": resolution_code,
                "resolution_note": resolution_note.strip(), "resolved_by": resolved_by, "resolved_at": now}

    @tool(writes=True, errors=("asset_not_found", "replacement_already_requested", "not_eligible_for_refresh"))
    def request_asset_replacement(self, asset_id: str, reason: ReplacementReason) -> ReplacementResult:
        """Request a replacement for a device assigned to an employee; opens a hardware ticket for Desktop Support.

        Args:
            asset_id: Internal id of the device, such as hw_5e21c9a0.
            reason: Why the device must be replaced; "outdated" is only accepted from its refresh date on.
        """
        current = self.state.get("assets", asset_id)
        if current is None:
            raise ToolError("asset_not_found", f"No device has id {asset_id}.")
        if current["status"] == "replacement requested":
            raise ToolError("replacement_already_requested", f"A replacement for {current['asset_tag']} is already "
                                                             f"requested under {current['replacement_ticket_id']}.")
        clock = self._clock()
        if reason == "outdated" and clock["today"] < current["refresh_eligible_from"]:
            raise ToolError("not_eligible_for_refresh", f"{current['asset_tag']} can be refreshed from "
                                                        f"{current['refresh_eligible_from']}; report a fault instead.")
        priority = "high" if reason in ("lost", "stolen") else "medium"
        ticket_id = self._new_ticket_id("hardware")
        now = clock["now"]
        self.state.insert("tickets", ticket_id, {
            "ticket_id": ticket_id, "category": "hardware", "team": CATEGORY_TEAM["hardware"],
            "title": f"Replacement {current['kind']}: {current['model']} ({current['asset_tag']})",
            "description": f"Replacement requested for {current['asset_tag']}: device {reason}.",
            "employee_id": current["employee_id"], "priority": priority, "status": "new", "channel": "chat",
            "opened_at": now, "updated_at": now, "resolve_by": self._resolve_by(now, priority), "escalated": False,
            "assigned_agent_id": None, "comments": [], "resolution": None,
        })
        self._queue_add(CATEGORY_TEAM["hardware"], 1)
        asset = self.state.edit("assets", asset_id)
        asset["status"] = "replacement requested"
        asset["replacement_ticket_id"] = ticket_id
        return {"asset_id": asset_id, "asset_tag": asset["asset_tag"], "kind": asset["kind"], "model": asset["model"],
                "asset_status": asset["status"], "reason": reason, "ticket_id": ticket_id, "priority": priority,
                "team": CATEGORY_TEAM["hardware"]}

    @tool(writes=True, errors=("employee_not_found", "invalid_dates", "insufficient_balance", "overlapping_request"))
    def submit_leave_request(self, employee_id: str, leave_type: LeaveType, start_date: str,
                             end_date: str) -> LeaveResult:
        """Submit a leave request for the employee's manager to approve; its working days are deducted at once.

        Args:
            employee_id: Directory id of the employee taking leave.
            leave_type: Kind of leave.
            start_date: First day of leave (YYYY-MM-DD), today or later.
            end_date: Last day of leave (YYYY-MM-DD), on or after the start date and in the current leave year.
        """
        employee = self._employee(employee_id)
        try:
            first, last = date.fromisoformat(start_date.strip()), date.fromisoformat(end_date.strip())
        except ValueError:
            raise ToolError("invalid_dates", "Dates must be written YYYY-MM-DD.") from None
        today = date.fromisoformat(self._clock()["today"])
        if first < today:
            raise ToolError("invalid_dates", f"Leave cannot start in the past (today is {today.isoformat()}).")
        if last < first or (last - first).days > 60:
            raise ToolError("invalid_dates", "The end date must be on or after the start date, at most 60 days later.")
        year = employee["leave_balance"]["year"]
        if last.year != year:
            raise ToolError("invalid_dates", f"Only leave within {year} can be requested against this year's balance.")
        days = working_days(first, last)
        if days == 0:
            raise ToolError("invalid_dates", "That period has no working days.")
        remaining = employee["leave_balance"][leave_type]
        if days > remaining:
            raise ToolError("insufficient_balance", f"The request needs {days} {leave_type} days but only {remaining} "
                                                    f"are left.")
        for other in self.state.find("leave_requests", employee_id=employee_id):
            if (other["status"] in ("approved", "pending approval") and other["start_date"] <= last.isoformat()
                    and first.isoformat() <= other["end_date"]):
                raise ToolError("overlapping_request", f"It overlaps leave request {other['leave_request_id']} "
                                                       f"({other['start_date']} to {other['end_date']}).")
        request_id = f"LR-{today.year}-{self.state.next_id('leave_request'):05d}"
        self.state.insert("leave_requests", request_id, {
            "leave_request_id": request_id, "employee_id": employee_id, "leave_type": leave_type,
            "start_date": first.isoformat(), "end_date": last.isoformat(), "days": days, "status": "pending approval",
            "approver_name": employee["manager_name"], "submitted_on": today.isoformat(), "note": "",
        })
        record = self.state.edit("employees", employee_id)
        record["leave_balance"][leave_type] = remaining - days
        return {"leave_request_id": request_id, "employee_id": employee_id, "leave_type": leave_type,
                "start_date": first.isoformat(), "end_date": last.isoformat(), "days": days,
                "status": "pending approval", "approver_name": employee["manager_name"],
                "remaining_days": remaining - days}
