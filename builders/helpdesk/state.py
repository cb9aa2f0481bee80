"""Seeded state factory for the helpdesk domain: employees, their tickets, devices and leave, plus support agents."""

from __future__ import annotations

import random
from datetime import date, datetime, timedelta
from math import isqrt
from typing import Any

COMPANY_DOMAIN = "meridianlabs.example.com"

FIRST_NAMES = (
    "Maria", "James", "Aisha", "Wei", "Lucas", "Sofia", "Omar", "Yuki", "Elena", "Mateo", "Priya", "Noah",
    "Fatima", "Liam", "Hana", "Diego", "Amara", "Jonas", "Ingrid", "Ravi", "Chloe", "Kwame", "Mei", "Tomas",
    "Nadia", "Ethan", "Leila", "Marcus", "Sara", "Viktor", "Grace", "Daniel", "Zoe", "Arjun", "Clara", "Felix",
)
LAST_NAMES = (
    "Chen", "Garcia", "Okafor", "Muller", "Rossi", "Nguyen", "Silva", "Kowalski", "Haddad", "Tanaka", "Smith",
    "Johansson", "Patel", "Dubois", "Kim", "Novak", "Mensah", "Lopez", "Schmidt", "Ivanova", "Park", "Costa",
    "Brennan", "Fischer", "Reyes", "Adeyemi", "Lindqvist", "Moreau", "Sato", "Walsh", "Horvat", "Alvarez",
)
DEPARTMENTS = {
    "Finance": ("Financial Analyst", "Accounts Payable Specialist", "Senior Controller", "FP&A Manager"),
    "Marketing": ("Content Strategist", "Brand Manager", "Marketing Operations Analyst", "Events Coordinator"),
    "Engineering": ("Software Engineer", "Senior Software Engineer", "QA Engineer", "Engineering Manager"),
    "Sales": ("Account Executive", "Sales Development Representative", "Regional Sales Director"),
    "Legal": ("Paralegal", "Corporate Counsel", "Contracts Manager"),
    "Operations": ("Operations Coordinator", "Supply Chain Analyst", "Facilities Manager"),
    "Customer Success": ("Customer Success Manager", "Support Specialist", "Onboarding Lead"),
    "People": ("HR Business Partner", "Talent Acquisition Partner", "Learning Coordinator"),
}
LOCATIONS = ("Chicago HQ", "Austin Office", "Denver Office", "London Office", "Toronto Office",
             "Remote - US East", "Remote - US West")

# category -> owning team; the team names are what the assign rule checks
CATEGORY_TEAM = {
    "hardware": "Desktop Support",
    "software": "Application Support",
    "email": "Application Support",
    "network": "Network Operations",
    "access": "Identity & Access",
    "payroll": "HR Services",
    "benefits": "HR Services",
}
TEAMS = ("Desktop Support", "Application Support", "Network Operations", "Identity & Access", "HR Services")
HR_CATEGORIES = ("payroll", "benefits")
PRIORITIES = ("low", "medium", "high", "critical")
PRIORITY_RANK = {p: i for i, p in enumerate(PRIORITIES)}
SLA_HOURS = {"low": 120, "medium": 72, "high": 24, "critical": 4}
OPEN_STATUSES = ("new", "in progress", "on hold")
CHANNELS = ("portal", "email", "phone", "chat")

# (summary, details) per category: what employees actually report
ISSUES = {
    "hardware": (
        ("Laptop won't power on", "The laptop stays black after pressing the power button, even when plugged in. The charging light blinks amber."),
        ("External monitor flickering", "The second monitor flickers every few seconds when connected through the dock; swapping the cable did not help."),
        ("Docking station not detecting displays", "Since this morning the dock charges the laptop but neither monitor gets a signal."),
        ("Keyboard keys sticking", "The E and R keys stick and sometimes type twice. It makes writing emails very slow."),
        ("Battery drains within an hour", "The battery goes from full to 10% in about an hour of normal use, so I can't work away from my desk."),
        ("Headset microphone not working", "Colleagues can't hear me on calls through the headset, although the audio output works fine."),
        ("Laptop fan constantly loud", "The fan runs at full speed even when only the browser is open and the laptop gets very hot."),
    ),
    "software": (
        ("Excel crashes when opening large files", "Excel freezes and closes whenever I open the monthly reporting workbook (about 80 MB)."),
        ("Cannot install Adobe Acrobat Pro", "The Software Center install fails at 60% with error 1603."),
        ("Zoom client stuck on update", "Zoom shows 'Updating...' for hours and never starts, so I'm joining meetings from my phone."),
        ("Tableau license expired", "Tableau Desktop says my license expired yesterday and I can't open any dashboards."),
        ("Jira very slow to load boards", "Boards in our project take more than a minute to load; other sites are fast."),
        ("Need Visio installed", "I need Microsoft Visio for process diagrams; my manager approved it last week."),
    ),
    "email": (
        ("Shared mailbox not showing in Outlook", "I was added to the finance-ap shared mailbox but it does not appear in Outlook on my laptop."),
        ("Emails to a partner domain bouncing", "Messages to our logistics partner bounce back with 550 5.7.1 since Monday."),
        ("Calendar not syncing to phone", "Meetings I accept on my laptop don't show up on my phone's calendar."),
        ("Mailbox almost full", "Outlook warns that my mailbox is at 98% and I can no longer send large attachments."),
        ("Out-of-office reply not sending", "My automatic reply is switched on but external senders don't receive it."),
    ),
    "network": (
        ("VPN disconnects every few minutes", "GlobalProtect drops the connection every 5-10 minutes when I work from home."),
        ("Wi-Fi drops in the 4th floor meeting rooms", "The corporate Wi-Fi disconnects in rooms 4A-4D; several people in my team see it."),
        ("Cannot reach the internal wiki from home", "The wiki times out over VPN while other internal sites load fine."),
        ("Very slow network at my desk", "Downloads at desk 3-114 are below 1 Mbps on the wired connection."),
        ("Printer on 2nd floor unreachable", "Nobody on the second floor can print to PRN-2-EAST; it shows as offline."),
    ),
    "access": (
        ("Need access to the Finance SharePoint site", "I need read access to the Finance Reporting SharePoint site for the quarterly close."),
        ("Locked out after password reset", "After resetting my password this morning my account is locked and I can't sign in."),
        ("MFA prompt not arriving on new phone", "I switched phones and the authenticator push notifications no longer arrive."),
        ("Admin rights for Jira project", "I need project admin rights on the MKT Jira project to manage the board workflow."),
        ("Access to Salesforce reports", "I need the Sales Analytics permission set to run pipeline reports."),
        ("Badge not opening the 3rd floor", "My building badge stopped opening the third floor doors after my team moved."),
    ),
    "payroll": (
        ("Overtime missing from last payslip", "The 12 hours of overtime I logged in the last pay period are not on my payslip."),
        ("Update bank account for salary", "I changed banks and need my salary paid into the new account from next month."),
        ("Tax withholding looks wrong", "The federal tax withheld on my last two payslips is almost double the usual amount."),
        ("Expense reimbursement not paid", "My approved travel expenses from last month have not been reimbursed yet."),
        ("Need an employment verification letter", "My landlord needs a letter confirming my employment and salary."),
    ),
    "benefits": (
        ("Add newborn to health insurance", "My daughter was born last week and I'd like to add her to my medical and dental plan."),
        ("Question about 401(k) matching", "I'd like to understand how the company match works if I raise my contribution to 8%."),
        ("Gym membership reimbursement", "I submitted my gym receipts for the wellness allowance but haven't heard back."),
        ("Change dental plan", "I'd like to switch from the basic to the premium dental plan."),
        ("Commuter benefit not applied", "My transit pass deduction didn't show up on my last payslip."),
    ),
}

AGENT_COMMENTS = (
    "Hi {first}, I've picked this up and will follow up with you by end of day.",
    "Thanks {first}, could you send a screenshot of the error message?",
    "I've escalated this to our second-line team and will keep you posted.",
    "Can you try restarting and let me know whether the problem persists?",
    "I've applied a fix on our side; please check and reply here if it still happens.",
)
REQUESTER_COMMENTS = (
    "Thanks, I'm available after 2pm if you need remote access.",
    "It happened again this morning, same behaviour as before.",
    "Screenshot attached. Let me know if you need anything else.",
    "Any update? This is blocking my work this week.",
    "I restarted as suggested but it didn't help.",
)
RESOLUTION_NOTES = (
    "Replaced the faulty component and confirmed with the user.",
    "Reset the account and verified sign-in works.",
    "Reinstalled the application and cleared the local cache.",
    "Applied the configuration change; user confirmed it works.",
    "Answered the user's question and shared the policy document.",
)

# kind -> (models, serial prefix, years until refresh, years of warranty)
DEVICES = {
    "laptop": (("Dell Latitude 7440", "Lenovo ThinkPad T14 Gen 4", "Apple MacBook Pro 14 (M3)",
                "HP EliteBook 840 G10", "Apple MacBook Air 13 (M2)"), ("5CG", "PF4", "C02", "FVF"), 4, 3),
    "monitor": (("Dell UltraSharp U2723QE", "LG 27UP850-W", "Lenovo ThinkVision T27h-30"), ("CN0", "SVN", "V90"), 6, 3),
    "phone": (("Apple iPhone 14", "Samsung Galaxy S23", "Google Pixel 8"), ("F2L", "R5C", "GA0"), 3, 2),
    "headset": (("Jabra Evolve2 65", "Poly Voyager Focus 2", "Logitech Zone Wireless"), ("JB", "PV", "LZ"), 3, 2),
    "docking station": (("Dell WD22TB4", "Lenovo ThinkPad Universal USB-C Dock", "CalDigit TS4"), ("DK", "LD", "CT"), 5, 3),
    "tablet": (("Apple iPad Air (5th gen)", "Samsung Galaxy Tab S9"), ("DMP", "R52"), 4, 2),
}
LEAVE_TYPES = ("vacation", "sick", "personal")
SERIAL_CHARS = "ABCDEFGHJKLMNPQRSTUVWXYZ0123456789"


def stamp(moment: datetime) -> str:
    """ISO 8601 UTC timestamp, second precision."""
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_stamp(text: str) -> datetime:
    """A naive datetime from a stamp written by :func:`stamp`."""
    return datetime.fromisoformat(text[:19])


def working_days(first: date, last: date) -> int:
    """Weekdays from ``first`` to ``last``, both included."""
    return sum(1 for offset in range((last - first).days + 1) if (first + timedelta(days=offset)).weekday() < 5)


def ticket_prefix(category: str) -> tuple[str, str]:
    """(id prefix, counter name) of a ticket category: HR cases and IT incidents are numbered apart."""
    return ("HRC", "hr_case") if category in HR_CATEGORIES else ("INC", "incident")


def _unique_name(rng: random.Random, used: set[tuple[str, str]]) -> tuple[str, str]:
    first, last = rng.choice(FIRST_NAMES), rng.choice(LAST_NAMES)
    tries = 0
    while (first, last) in used and tries < 50:
        first, last = rng.choice(FIRST_NAMES), rng.choice(LAST_NAMES)
        tries += 1
    used.add((first, last))
    return first, last


def _agents(rng: random.Random, scale: int, used: set[tuple[str, str]]) -> dict[str, Any]:
    agents: dict[str, Any] = {}
    per_team = max(1, isqrt(scale) // 3)
    for team in TEAMS:
        count = (2 if scale == 1 else rng.randint(2, 3)) * per_team
        for position in range(count):
            first, last = _unique_name(rng, used)
            agent_id = f"agt_{rng.randrange(10000, 99999)}"
            while agent_id in agents:
                agent_id = f"agt_{rng.randrange(10000, 99999)}"
            agents[agent_id] = {
                "agent_id": agent_id, "name": f"{first} {last}", "team": team,
                "tier": rng.choice(("L1", "L1", "L2", "L3")),
                # the first agent of every team is on duty, so each team can take assignments
                "status": "active" if position == 0 or rng.random() > 0.25 else "on leave",
                "phone_extension": f"x{rng.randrange(2000, 7999)}", "open_tickets": 0,
            }
    return agents


def _serial(rng: random.Random, prefix: str) -> str:
    return prefix + "".join(rng.choice(SERIAL_CHARS) for _ in range(10 - len(prefix)))


def _assets(rng: random.Random, today: date, employee_id: str, hired: date, counter: list[int]) -> list[dict[str, Any]]:
    kinds = ["laptop"]
    kinds += rng.sample(("monitor", "phone", "headset", "docking station", "tablet"), rng.choice((0, 1, 1, 2)))
    out = []
    for kind in kinds:
        models, prefixes, refresh_years, warranty_years = DEVICES[kind]
        purchased = today - timedelta(days=rng.randrange(120, 365 * 5))
        assigned = max(purchased + timedelta(days=rng.randrange(3, 30)), hired)
        counter[0] += rng.randint(1, 9)
        status = "replacement requested" if rng.random() < 0.08 else "in use"
        out.append({
            "asset_id": f"hw_{rng.getrandbits(32):08x}",
            "asset_tag": f"ML-{counter[0]:06d}",
            "employee_id": employee_id,
            "kind": kind,
            "model": rng.choice(models),
            "serial_number": _serial(rng, rng.choice(prefixes)),
            "status": status,
            "purchase_date": purchased.isoformat(),
            "assigned_on": assigned.isoformat(),
            "warranty_until": (purchased + timedelta(days=365 * warranty_years)).isoformat(),
            "refresh_eligible_from": (purchased + timedelta(days=365 * refresh_years)).isoformat(),
            "replacement_ticket_id": None,
        })
    return out


def _leave_requests(rng: random.Random, today: date, employee_id: str, approver: str) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    taken: list[tuple[date, date]] = []
    for _ in range(rng.randint(0, 2)):
        leave_type = rng.choices(LEAVE_TYPES, (6, 2, 2))[0]
        first = today + timedelta(days=rng.randrange(-120, 90))
        while first.weekday() >= 5:
            first += timedelta(days=1)
        last = first + timedelta(days=rng.choice((0, 1, 2, 4, 7, 11)) if leave_type == "vacation" else rng.randint(0, 1))
        if any(first <= b and a <= last for a, b in taken):
            continue
        taken.append((first, last))
        if first < today:
            status = rng.choices(("approved", "rejected", "cancelled"), (8, 1, 1))[0]
        else:
            status = rng.choices(("approved", "pending approval", "rejected"), (4, 4, 1))[0]
        submitted = min(first, today) - timedelta(days=rng.randrange(1, 30))
        out.append({
            "employee_id": employee_id, "leave_type": leave_type, "start_date": first.isoformat(),
            "end_date": last.isoformat(), "days": working_days(first, last), "status": status,
            "approver_name": approver, "submitted_on": submitted.isoformat(), "note": "",
        })
    return out


def _office_time(rng: random.Random, day: datetime, now: datetime) -> datetime:
    """A moment during office hours on ``day``, never after ``now``."""
    moment = datetime(day.year, day.month, day.day, rng.randrange(8, 18), rng.randrange(0, 60), rng.randrange(0, 60))
    return min(moment, now)


def _later(rng: random.Random, after: datetime, now: datetime) -> datetime:
    """A moment during office hours up to two days after ``after``, never after ``now``."""
    moment = _office_time(rng, after + timedelta(days=rng.randint(0, 2)), now)
    if moment <= after:
        moment = after + timedelta(minutes=rng.randint(10, 90))
    return min(moment, now)


def _tickets(
    rng: random.Random, now: datetime, employee: dict[str, Any], agents_by_team: dict[str, list[dict[str, Any]]]
) -> list[dict[str, Any]]:
    out = []
    used_titles: set[str] = set()
    for _ in range(rng.randint(1, 3)):
        category = rng.choices(tuple(CATEGORY_TEAM), (5, 4, 2, 3, 4, 2, 2))[0]
        title, description = rng.choice(ISSUES[category])
        if title in used_titles:
            continue
        used_titles.add(title)
        team = CATEGORY_TEAM[category]
        status = rng.choices(("new", "in progress", "on hold", "resolved", "closed"), (3, 4, 2, 2, 1))[0]
        age_days = {"new": (0, 3), "in progress": (1, 14), "on hold": (3, 20), "resolved": (2, 20), "closed": (10, 60)}[status]
        opened = _office_time(rng, now - timedelta(days=rng.randint(*age_days)), now)
        priority = rng.choices(PRIORITIES, (3, 5, 3, 1))[0]
        agent = rng.choice(agents_by_team[team]) if status != "new" else None
        comments = []
        moment = opened
        for _ in range(rng.choice((0, 1, 1, 2)) if agent else rng.randint(0, 1)):
            moment = _later(rng, moment, now)
            if agent and rng.random() < 0.6:
                body = rng.choice(AGENT_COMMENTS).format(first=employee["first_name"])
                comments.append({"author": agent["name"], "role": "agent", "created_at": stamp(moment), "body": body})
            else:
                comments.append({"author": employee["name"], "role": "requester", "created_at": stamp(moment),
                                 "body": rng.choice(REQUESTER_COMMENTS)})
        resolution = None
        if status in ("resolved", "closed") and agent is not None:
            moment = _later(rng, moment, now)
            resolution = {"code": rng.choice(("fixed", "fixed", "workaround", "no fault found")),
                          "note": rng.choice(RESOLUTION_NOTES), "resolved_at": stamp(moment), "resolved_by": agent["name"]}
        out.append({
            "category": category, "team": team, "title": title, "description": description,
            "employee_id": employee["employee_id"],
            "priority": priority, "status": status, "channel": rng.choice(CHANNELS),
            "opened_at": stamp(opened), "updated_at": stamp(moment),
            "resolve_by": stamp(opened + timedelta(hours=SLA_HOURS[priority])),
            "escalated": priority == "critical" and rng.random() < 0.5,
            "assigned_agent_id": agent["agent_id"] if agent else None,
            "comments": comments, "resolution": resolution,
        })
    return out


def make_state(rng: random.Random, scale: int = 1) -> dict[str, Any]:
    """A small company: 3-4 employees (4-6 per unit of a larger scale) with tickets, devices and leave, plus support agents."""
    today = date(2026, 1, 5) + timedelta(days=rng.randrange(0, 300))
    now = datetime(today.year, today.month, today.day, rng.randrange(8, 18), rng.randrange(0, 60), rng.randrange(0, 60))
    used_names: set[tuple[str, str]] = set()
    agents = _agents(rng, scale, used_names)
    agents_by_team: dict[str, list[dict[str, Any]]] = {}
    for agent in agents.values():
        agents_by_team.setdefault(agent["team"], []).append(agent)

    employees: dict[str, Any] = {}
    assets: dict[str, Any] = {}
    raw_tickets: list[dict[str, Any]] = []
    raw_leave: list[dict[str, Any]] = []
    emails: set[str] = set()
    number = rng.randrange(100000, 140000)
    asset_counter = [rng.randrange(1000, 20000)]
    headcount = rng.randint(3, 4) if scale == 1 else rng.randint(4, 6) * scale
    for _ in range(headcount):
        first, last = _unique_name(rng, used_names)
        email = f"{first.lower()}.{last.lower()}@{COMPANY_DOMAIN}"
        suffix = 2
        while email in emails:
            email = f"{first.lower()}.{last.lower()}{suffix}@{COMPANY_DOMAIN}"
            suffix += 1
        emails.add(email)
        number += rng.randint(1, 60)
        employee_id = f"u_{rng.getrandbits(32):08x}"
        while employee_id in employees:
            employee_id = f"u_{rng.getrandbits(32):08x}"
        department = rng.choice(tuple(DEPARTMENTS))
        hired = today - timedelta(days=rng.randrange(60, 365 * 9))
        manager = f"{rng.choice(FIRST_NAMES)} {rng.choice(LAST_NAMES)}"
        employee = {
            "employee_id": employee_id, "employee_number": str(number), "first_name": first, "last_name": last,
            "name": f"{first} {last}", "email": email, "department": department,
            "job_title": rng.choice(DEPARTMENTS[department]), "location": rng.choice(LOCATIONS),
            "manager_name": manager, "hire_date": hired.isoformat(),
            "leave_balance": {"year": today.year, "vacation": rng.randint(3, 25), "sick": rng.randint(2, 10),
                              "personal": rng.randint(0, 3)},
        }
        employees[employee_id] = employee
        for asset in _assets(rng, today, employee_id, hired, asset_counter):
            assets[asset["asset_id"]] = asset
        raw_tickets.extend(_tickets(rng, now, employee, agents_by_team))
        raw_leave.extend(_leave_requests(rng, today, employee_id, manager))

    # number tickets in the order they were opened, IT incidents and HR cases apart
    tickets: dict[str, Any] = {}
    counters = {"incident": rng.randrange(40000, 90000), "hr_case": rng.randrange(2000, 9000)}
    for ticket in sorted(raw_tickets, key=lambda t: t["opened_at"]):
        prefix, counter = ticket_prefix(ticket["category"])
        counters[counter] += rng.randint(1, 40)
        ticket_id = f"{prefix}{counters[counter]:07d}"
        tickets[ticket_id] = {"ticket_id": ticket_id, **ticket}
    # devices awaiting replacement point at an open hardware ticket
    for asset in assets.values():
        if asset["status"] == "replacement requested":
            counters["incident"] += rng.randint(1, 40)
            ticket_id = f"INC{counters['incident']:07d}"
            opened = _office_time(rng, now - timedelta(days=rng.randint(0, 6)), now)
            owner = employees[asset["employee_id"]]
            tickets[ticket_id] = {
                "ticket_id": ticket_id, "category": "hardware", "team": "Desktop Support",
                "title": f"Replacement {asset['kind']}: {asset['model']} ({asset['asset_tag']})",
                "description": f"Replacement requested for {asset['asset_tag']}: device not working.",
                "employee_id": owner["employee_id"], "priority": "medium",
                "status": "new", "channel": "portal", "opened_at": stamp(opened), "updated_at": stamp(opened),
                "resolve_by": stamp(opened + timedelta(hours=SLA_HOURS["medium"])), "escalated": False,
                "assigned_agent_id": None, "comments": [], "resolution": None,
            }
            asset["replacement_ticket_id"] = ticket_id
    # queue statistics the service desk keeps up to date: open load per agent, unassigned backlog per team
    teams = {
        team: {"team": team, "categories": [c for c, t in CATEGORY_TEAM.items() if t == team], "unassigned_open": 0,
               "hours": rng.choice(("Mon-Fri 08:00-18:00 CT", "Mon-Fri 07:00-19:00 CT", "24/7"))}
        for team in TEAMS
    }
    for ticket in tickets.values():
        if ticket["status"] not in OPEN_STATUSES:
            continue
        if ticket["assigned_agent_id"]:
            agents[ticket["assigned_agent_id"]]["open_tickets"] += 1
        else:
            teams[ticket["team"]]["unassigned_open"] += 1
    leave_requests: dict[str, Any] = {}
    counters["leave_request"] = rng.randrange(100, 900)
    for request in sorted(raw_leave, key=lambda r: r["submitted_on"]):
        counters["leave_request"] += rng.randint(1, 12)
        request_id = f"LR-{today.year}-{counters['leave_request']:05d}"
        leave_requests[request_id] = {"leave_request_id": request_id, **request}
    return {
        "tables": {
            "meta": {"clock": {"today": today.isoformat(), "now": stamp(now)}},
            "employees": employees, "agents": agents, "teams": teams, "tickets": tickets, "assets": assets,
            "leave_requests": leave_requests,
        },
        "counters": counters,
    }
