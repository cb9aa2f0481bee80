"""Seeded state factory for the calendar domain: a company's people, meeting rooms and events.

Tables:

- ``people``: ``{person_id: {person_id, first_name, last_name, name, email, title, department, phone,
  work_start, work_end, event_ids}}``; ``event_ids`` lists every event the person organizes or is invited to.
- ``rooms``: ``{room_id: {room_id, name, floor, capacity, has_video_conferencing, has_whiteboard}}``.
- ``events``: ``{event_id: {event_id, title, description, kind, status, date, start_time, end_time,
  organizer_id, attendees: [{person_id, response_status, optional?}], room_id, room_day, video_link,
  created_at}}``; ``room_day`` (``"<room_id>|<date>"`` or ``None``) indexes room bookings per day.
- ``meta``: ``{"clock": {today, now, time_zone}, "company": {name, domain}}``.
"""

from __future__ import annotations

import random
from datetime import date, timedelta
from typing import Any

FIRST_NAMES = (
    "Maria", "James", "Aisha", "Chen", "Lucas", "Sofia", "Omar", "Yuki", "Elena", "Mateo", "Priya", "Noah",
    "Fatima", "Liam", "Hana", "Diego", "Amara", "Jonas", "Ingrid", "Ravi", "Chloe", "Kwame", "Mei", "Tomas",
    "Grace", "Samuel", "Leila", "Victor", "Nadia", "Felix", "Rosa", "Daniel", "Zara", "Oscar", "Anika", "Hugo",
)
LAST_NAMES = (
    "Garcia", "Okafor", "Muller", "Rossi", "Nguyen", "Silva", "Kowalski", "Haddad", "Tanaka", "Smith", "Brennan",
    "Johansson", "Patel", "Dubois", "Kim", "Novak", "Mensah", "Lopez", "Schmidt", "Ivanova", "Park", "Costa",
    "Fischer", "Adeyemi", "Larsen", "Moreau", "Walsh", "Yilmaz", "Castillo", "Hughes", "Sato", "Bianchi",
)
# company name, email domain, time zone, phone area code
COMPANIES = (
    ("Northwind Analytics", "northwind-analytics.com", "America/Chicago", "312"),
    ("Bluefin Robotics", "bluefinrobotics.io", "America/Los_Angeles", "415"),
    ("Larkspur Health", "larkspurhealth.com", "America/New_York", "617"),
    ("Copperleaf Studios", "copperleaf.studio", "America/Denver", "303"),
    ("Tidewater Logistics", "tidewaterlogistics.com", "America/New_York", "757"),
    ("Redwood Ledger", "redwoodledger.com", "America/Los_Angeles", "503"),
)
DEPARTMENTS = {
    "Engineering": ("Software Engineer", "Senior Software Engineer", "Engineering Manager", "Staff Engineer",
                    "QA Engineer"),
    "Product": ("Product Manager", "Senior Product Manager", "Product Analyst"),
    "Design": ("Product Designer", "UX Researcher", "Design Lead"),
    "Sales": ("Account Executive", "Sales Manager", "Sales Development Representative"),
    "Marketing": ("Marketing Manager", "Content Strategist", "Growth Marketer"),
    "Finance": ("Financial Analyst", "Controller", "Head of Finance"),
    "People Operations": ("Recruiter", "People Partner", "Office Manager"),
    "Customer Success": ("Customer Success Manager", "Support Engineer", "Onboarding Specialist"),
}
TOPICS = ("payments service", "search indexing", "mobile release 4.2", "data pipeline", "auth migration",
          "billing API", "checkout flow", "onboarding emails", "pricing page", "Q3 roadmap", "analytics dashboard")
CLIENTS = ("Globex", "Initech", "Umbrella Health", "Stark Logistics", "Wayne Foods", "Acme Retail", "Hooli",
           "Vandelay Imports", "Soylent Labs", "Cyberdyne Systems", "Pied Piper", "Massive Dynamic")
ROLES = ("Senior Backend Engineer", "Product Designer", "Account Executive", "Data Analyst", "Recruiter")
MEETINGS = {
    "Engineering": ("Sprint planning", "Backlog grooming", "Architecture review: {topic}",
                    "Incident postmortem: {topic}", "Sprint retro", "Code review session"),
    "Product": ("Roadmap review", "PRD walkthrough: {topic}", "Customer feedback triage", "Pricing discussion"),
    "Design": ("Design critique", "Usability test debrief", "Design review: {topic}"),
    "Sales": ("Pipeline review", "Deal review: {client}", "Call with {client}", "Demo prep: {client}"),
    "Marketing": ("Campaign kickoff: {topic}", "Content calendar review", "Launch plan: {topic}"),
    "Finance": ("Budget review Q{quarter}", "Month-end close", "Forecast review", "Expense policy update"),
    "People Operations": ("Interview: {role}", "Onboarding check-in", "Hiring sync", "Benefits Q&A"),
    "Customer Success": ("QBR with {client}", "Escalation review", "Renewal planning: {client}"),
}
SHARED_MEETINGS = ("Lunch & learn: {topic}", "All-hands prep", "Offsite planning", "Cross-team sync: {topic}")
PERSONAL_BLOCKS = ("Focus time", "Lunch", "Dentist appointment", "Parent-teacher conference", "Doctor's appointment",
                   "Gym", "Deep work: {topic}", "Travel to {client}")
AGENDAS = (
    "Agenda: status updates, blockers, next steps.",
    "Please review the doc linked in the invite beforehand.",
    "Goal: agree on scope and owners for the next two weeks.",
    "Bring your numbers for the month; we will go through them together.",
    "Dial-in details are in the video link.",
    "",
)
ROOM_NAMES = (
    "Fjord", "Atlas", "Juniper", "Kestrel", "Lighthouse", "Meridian", "Nimbus", "Orchard", "Pioneer", "Quarry",
    "Redwood", "Summit", "Tundra", "Vista", "Willow", "Aurora", "Basalt", "Cobalt", "Delta", "Ember", "Granite",
    "Harbor", "Iris", "Lagoon", "Mesa", "Prairie", "Sequoia", "Timber",
)
WORK_HOURS = (("08:00", "16:30"), ("08:30", "17:00"), ("09:00", "17:30"), ("09:00", "17:30"), ("09:30", "18:00"),
              ("10:00", "18:30"))
ID_CHARS = "ABCDEFGHJKLMNPQRSTUVWXYZ0123456789"
BASE36 = "0123456789abcdefghijklmnopqrstuvwxyz"


def event_id_for(number: int) -> str:
    """The event id of the ``number``-th event (a bijective scramble, so ids look random but never collide)."""
    value = (number * 2718281828459045 + 1597334677) % 36**10
    chars = []
    for _ in range(10):
        value, digit = divmod(value, 36)
        chars.append(BASE36[digit])
    return "evt_" + "".join(reversed(chars))


def meet_link_for(number: int) -> str:
    """A video-call link for the ``number``-th event, like https://meet.google.com/abc-defg-hij."""
    value = (number * 31415926535897 + 918273645) % 26**10
    letters = []
    for _ in range(10):
        value, digit = divmod(value, 26)
        letters.append(chr(97 + digit))
    code = "".join(letters)
    return f"https://meet.google.com/{code[:3]}-{code[3:7]}-{code[7:]}"


def to_minutes(hhmm: str) -> int:
    """Minutes since midnight of an ``HH:MM`` time."""
    return int(hhmm[:2]) * 60 + int(hhmm[3:5])


def to_hhmm(minutes: int) -> str:
    """``HH:MM`` of minutes since midnight."""
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


def _workdays(today: date, before: int, after: int) -> list[date]:
    days, cursor = [], today
    while len(days) < before:
        cursor -= timedelta(days=1)
        if cursor.weekday() < 5:
            days.append(cursor)
    days.reverse()
    days.append(today)
    cursor = today
    while len(days) < before + 1 + after:
        cursor += timedelta(days=1)
        if cursor.weekday() < 5:
            days.append(cursor)
    return days


def _fill(template: str, rng: random.Random) -> str:
    return template.format(topic=rng.choice(TOPICS), client=rng.choice(CLIENTS), role=rng.choice(ROLES),
                           quarter=rng.randint(1, 4))


class _Planner:
    """Places events without double-booking organizers or rooms."""

    def __init__(self, rng: random.Random, today: date, now_minutes: int, rooms: dict[str, Any]) -> None:
        self.rng = rng
        self.today = today
        self.now_minutes = now_minutes
        self.rooms = rooms
        self.busy: dict[tuple[str, str], list[tuple[int, int]]] = {}
        self.events: dict[str, Any] = {}
        self.number = rng.randrange(1000, 90000)

    def free(self, key: str, day: str, start: int, end: int) -> bool:
        return all(end <= s or start >= e for s, e in self.busy.get((key, day), ()))

    def place(self, organizer: dict[str, Any], invitees: list[dict[str, Any]], title: str, kind: str,
              days: list[date], durations: tuple[int, ...], want_room: bool, fixed: tuple[int, int] | None = None,
              earliest: int = 9 * 60, latest: int = 17 * 60 + 30) -> str | None:
        rng = self.rng
        people = [organizer, *invitees]
        for attempt in range(14):
            day = rng.choice(days)
            if fixed is not None:
                start, duration = fixed
            else:
                duration = rng.choice(durations)
                start = rng.randrange(earliest, latest - duration + 1, 15)
            end = start + duration
            iso = day.isoformat()
            keys = [p["person_id"] for p in people] if attempt < 9 else [organizer["person_id"]]
            if not all(self.free(k, iso, start, end) for k in keys):
                continue
            room_id = None
            if want_room:
                fits = [r for r in self.rooms.values()
                        if r["capacity"] >= len(people) and self.free(r["room_id"], iso, start, end)]
                if fits:
                    room_id = min(fits, key=lambda r: (r["capacity"], rng.random()))["room_id"]
            return self._add(organizer, invitees, title, kind, day, start, end, room_id)
        return None

    def _add(self, organizer: dict[str, Any], invitees: list[dict[str, Any]], title: str, kind: str, day: date,
             start: int, end: int, room_id: str | None) -> str:
        rng = self.rng
        self.number += 1
        event_id = event_id_for(self.number)
        iso = day.isoformat()
        past = day < self.today or (day == self.today and start < self.now_minutes)
        attendees = [{"person_id": organizer["person_id"], "response_status": "accepted"}]
        for person in invitees:
            weights = (8, 1, 1, 1) if past else (5, 1, 1, 3)
            status = rng.choices(("accepted", "declined", "tentative", "needs_action"), weights)[0]
            attendee = {"person_id": person["person_id"], "response_status": status}
            if rng.random() < 0.15:
                attendee["optional"] = True
            attendees.append(attendee)
        cancelled = bool(invitees) and rng.random() < 0.08
        for person in (organizer, *invitees):
            self.busy.setdefault((person["person_id"], iso), []).append((start, end))
            person["event_ids"].append(event_id)
        if room_id is not None and not cancelled:
            self.busy.setdefault((room_id, iso), []).append((start, end))
        created = min(day, self.today) - timedelta(days=rng.randrange(1, 21))
        self.events[event_id] = {
            "event_id": event_id, "title": title,
            "description": rng.choice(AGENDAS) if invitees else "",
            "kind": kind, "status": "cancelled" if cancelled else "confirmed",
            "date": iso, "start_time": to_hhmm(start), "end_time": to_hhmm(end),
            "organizer_id": organizer["person_id"], "attendees": attendees,
            "room_id": room_id, "room_day": None if room_id is None or cancelled else f"{room_id}|{iso}",
            "video_link": meet_link_for(self.number) if invitees else "",
            "created_at": f"{created.isoformat()}T{rng.randrange(8, 18):02d}:{rng.randrange(0, 60):02d}:00",
        }
        return event_id


def _people(rng: random.Random, count: int, domain: str, area: str) -> list[dict[str, Any]]:
    people: list[dict[str, Any]] = []
    used_names: set[tuple[str, str]] = set()
    used_emails: set[str] = set()
    used_ids: set[str] = set()
    used_phones: set[str] = set()
    departments = list(DEPARTMENTS)
    rng.shuffle(departments)
    team_size = rng.randint(3, 5)
    for index in range(count):
        first, last = rng.choice(FIRST_NAMES), rng.choice(LAST_NAMES)
        for _ in range(20):
            if (first, last) not in used_names:
                break
            first, last = rng.choice(FIRST_NAMES), rng.choice(LAST_NAMES)
        used_names.add((first, last))
        email = f"{first.lower()}.{last.lower()}@{domain}"
        suffix = 2
        while email in used_emails:
            email = f"{first.lower()}.{last.lower()}{suffix}@{domain}"
            suffix += 1
        used_emails.add(email)
        person_id = "U0" + "".join(rng.choices(ID_CHARS, k=7))
        while person_id in used_ids:
            person_id = "U0" + "".join(rng.choices(ID_CHARS, k=7))
        used_ids.add(person_id)
        team = index // team_size
        department = departments[team % len(departments)]
        work_start, work_end = rng.choice(WORK_HOURS)
        phone = f"+1 {area}-555-{rng.randrange(100, 200):04d}"
        while phone in used_phones and len(used_phones) < 100:
            phone = f"+1 {area}-555-{rng.randrange(100, 200):04d}"
        used_phones.add(phone)
        people.append({
            "person_id": person_id, "first_name": first, "last_name": last, "name": f"{first} {last}",
            "email": email, "title": rng.choice(DEPARTMENTS[department]), "department": department,
            "phone": phone, "work_start": work_start,
            "work_end": work_end, "event_ids": [], "team": team,
        })
    return people


def _rooms(rng: random.Random, scale: int) -> dict[str, Any]:
    count = rng.randint(4, 6) + min(scale - 1, 18)
    rooms: dict[str, Any] = {}
    for name in rng.sample(ROOM_NAMES, min(count, len(ROOM_NAMES))):
        floor = rng.randint(2, 6)
        room_id = f"hq-{floor}-{name.lower()}"  # resource handle shown on the room's booking panel
        capacity = rng.choice((4, 4, 6, 6, 8, 10, 12, 16, 24))
        rooms[room_id] = {
            "room_id": room_id, "name": name, "floor": floor, "capacity": capacity,
            "has_video_conferencing": capacity >= 6 or rng.random() < 0.4,
            "has_whiteboard": rng.random() < 0.7,
        }
    return rooms


def make_state(rng: random.Random, scale: int = 1) -> dict[str, Any]:
    """A small company: 5-7 people per unit of scale in teams of 3-5, rooms, and eight workdays of events."""
    today = date(2026, 1, 5) + timedelta(days=rng.randrange(0, 320))
    while today.weekday() >= 5:
        today += timedelta(days=1)
    now_minutes = rng.randrange(8 * 60, 11 * 60 + 1, 5)
    company, domain, time_zone, area = rng.choice(COMPANIES)
    days = _workdays(today, 2, 5)
    people = _people(rng, max(rng.randint(5, 7), 7 if scale > 1 else 0) * scale, domain, area)
    rooms = _rooms(rng, scale)
    planner = _Planner(rng, today, now_minutes, rooms)
    teams: dict[int, list[dict[str, Any]]] = {}
    for person in people:
        teams.setdefault(person["team"], []).append(person)
    team_list = list(teams.values())
    for number, team in enumerate(team_list):
        lead, department = team[0], team[0]["department"]
        # a weekly team sync at a fixed weekday and time
        if len(team) >= 2:
            slot = (rng.choice((9 * 60 + 30, 10 * 60, 11 * 60, 14 * 60)), rng.choice((30, 45)))
            weekday = rng.randrange(5)
            for day in days:
                if day.weekday() == weekday:
                    planner.place(lead, team[1:], f"Weekly {department} sync", "meeting", [day], (30,), True,
                                  fixed=slot)
        for person in team:
            # one or two meetings organized by each person
            for _ in range(rng.choice((1, 1, 1, 2))):
                others = [p for p in team if p is not person]
                if rng.random() < 0.2 and len(team_list) > 1:
                    others = others + team_list[(number + 1) % len(team_list)][:2]
                invitees = rng.sample(others, min(len(others), rng.randint(1, 4)))
                if len(invitees) == 1:
                    first, other = person["first_name"], invitees[0]["first_name"]
                    if first == other:
                        first, other = person["name"], invitees[0]["name"]
                    title = f"1:1 {first} / {other}"
                    kind = "one_on_one"
                else:
                    template = rng.choice(MEETINGS[department] + SHARED_MEETINGS)
                    title = _fill(template, rng)
                    kind = "interview" if title.startswith("Interview") else (
                        "external" if "{client}" in template else "meeting")
                planner.place(person, invitees, title, kind, days, (30, 30, 45, 60, 60, 90),
                              want_room=len(invitees) >= 2 or rng.random() < 0.3)
            # a personal block
            for _ in range(rng.choice((0, 1, 1))):
                planner.place(person, [], _fill(rng.choice(PERSONAL_BLOCKS), rng), "personal", days,
                              (30, 60, 90, 120), False, earliest=8 * 60, latest=18 * 60)
    for person in people:
        del person["team"]
    events = dict(sorted(planner.events.items(), key=lambda kv: (kv[1]["date"], kv[1]["start_time"])))
    return {
        "tables": {
            "people": {p["person_id"]: p for p in people},
            "rooms": rooms,
            "events": events,
            "meta": {
                "clock": {"today": today.isoformat(), "now": f"{today.isoformat()}T{to_hhmm(now_minutes)}:00",
                          "time_zone": time_zone},
                "company": {"name": company, "domain": domain},
            },
        },
        "counters": {"events": planner.number},
    }
