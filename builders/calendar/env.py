"""Calendar tools: the company directory, people's calendars, free/busy search, meeting rooms and events.

Who is who: the person asking is identified by their work ``email`` (as calendar APIs do); colleagues
are looked up in the directory and carried by ``person_id``; the invitees of one event are listed with
an ``attendee_id``. Emails of other people in outputs are tagged as other entities so that they never
stand in for the requester's own email.
"""

from __future__ import annotations

import re
from datetime import date
from typing import Annotated, Literal, Optional, TypedDict

from builders.calendar.state import event_id_for, meet_link_for, to_hhmm, to_minutes
from covert.env import Entity, Environment, ToolError, tool

_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_TIME = re.compile(r"^\d{2}:\d{2}$")
DAY_START = 6 * 60  # events may start at 06:00 at the earliest
DAY_END = 22 * 60  # and must end by 22:00
MAX_RANGE_DAYS = 31
RSVP = {"yes": "accepted", "no": "declined", "maybe": "tentative"}

OtherEmail = Annotated[str, Entity("directory_email")]


# -- return types ------------------------------------------------------------------------------------
class PersonDetails(TypedDict):
    """A person in the company directory.

    Attributes:
        person_id: The person's directory id.
        name: Full name.
        email: Work email address.
        title: Job title.
        department: Department or team.
        phone: Work phone number.
        work_start: Start of their working hours (HH:MM, company time zone).
        work_end: End of their working hours (HH:MM, company time zone).
        time_zone: IANA time zone of the times above.
    """

    person_id: str
    name: str
    email: OtherEmail
    title: str
    department: str
    phone: str
    work_start: str
    work_end: str
    time_zone: str


class EventSummary(TypedDict):
    """One event on a calendar.

    Attributes:
        event_id: The event id.
        title: Event title.
        date: Date of the event (YYYY-MM-DD).
        start_time: Start time (HH:MM).
        end_time: End time (HH:MM).
        duration_minutes: Length in minutes.
        organizer_name: Who organizes it.
        is_organizer: Whether the calendar's owner organizes it.
        response_status: The owner's answer: accepted, declined, tentative or needs_action.
        location: Room and floor ("Fjord room, floor 3"), "Video call" or "No location".
        attendee_count: Number of people on the invite, organizer included.
    """

    event_id: str
    title: str
    date: str
    start_time: str
    end_time: str
    duration_minutes: int
    organizer_name: str
    is_organizer: bool
    response_status: str
    location: str
    attendee_count: int


class CalendarView(TypedDict):
    """A person's calendar over one or more days.

    Attributes:
        email: Whose calendar this is (their work email).
        name: Their full name.
        start_date: First day shown (YYYY-MM-DD).
        end_date: Last day shown (YYYY-MM-DD).
        period: The days shown, in words ("on 2026-03-16" or "from 2026-03-16 to 2026-03-20").
        time_zone: IANA time zone of all times.
        event_count: Number of events shown.
        events: The events, in chronological order; cancelled events are left out.
    """

    email: str
    name: str
    start_date: str
    end_date: str
    period: str
    time_zone: str
    event_count: int
    events: list[EventSummary]


class Attendee(TypedDict):
    """One invitee of an event (the organizer is listed separately).

    Attributes:
        attendee_id: The invitee's directory id.
        name: Full name.
        email: Work email address.
        response_status: accepted, declined, tentative or needs_action.
        optional: Whether their attendance is optional.
    """

    attendee_id: str
    name: str
    email: Annotated[str, Entity("attendee_email")]
    response_status: str
    optional: bool


class RoomRef(TypedDict):
    """The meeting room booked for an event.

    Attributes:
        room_id: The room's resource id, such as hq-3-fjord.
        name: Room name.
        floor: Floor number.
        capacity: Number of seats.
    """

    room_id: Annotated[str, Entity("booked_room")]
    name: str
    floor: int
    capacity: int


class EventDetails(TypedDict):
    """A full event.

    Attributes:
        event_id: The event id.
        title: Event title.
        description: Agenda or notes, may be empty.
        kind: meeting, one_on_one, interview, external or personal.
        status: confirmed or cancelled.
        date: Date (YYYY-MM-DD).
        start_time: Start time (HH:MM).
        end_time: End time (HH:MM).
        duration_minutes: Length in minutes.
        start: Start as an ISO 8601 local date-time.
        end: End as an ISO 8601 local date-time.
        time_zone: IANA time zone of the times.
        organizer_name: Who organizes it.
        organizer_email: The organizer's work email.
        attendees: The invitees other than the organizer.
        attendee_count: Number of people on the invite, organizer included.
        accepted_count: Number of people who accepted, organizer included.
        room: The booked meeting room, or null.
        location: Room and floor ("Fjord room, floor 3"), "Video call" or "No location".
        video_link: Video-call link, may be empty.
        created_at: When the event was created (ISO 8601).
    """

    event_id: str
    title: str
    description: str
    kind: str
    status: str
    date: str
    start_time: str
    end_time: str
    duration_minutes: int
    start: str
    end: str
    time_zone: str
    organizer_name: str
    organizer_email: str
    attendees: list[Attendee]
    attendee_count: int
    accepted_count: int
    room: Optional[RoomRef]
    location: str
    video_link: str
    created_at: str


class RescheduledEvent(EventDetails):
    """An event after it moved.

    Attributes:
        event_id: The event id.
        title: Event title.
        description: Agenda or notes, may be empty.
        kind: meeting, one_on_one, interview, external or personal.
        status: confirmed or cancelled.
        date: New date (YYYY-MM-DD).
        start_time: New start time (HH:MM).
        end_time: New end time (HH:MM).
        duration_minutes: Length in minutes.
        start: New start as an ISO 8601 local date-time.
        end: New end as an ISO 8601 local date-time.
        time_zone: IANA time zone of the times.
        organizer_name: Who organizes it.
        organizer_email: The organizer's work email.
        attendees: The invitees other than the organizer.
        attendee_count: Number of people on the invite, organizer included.
        accepted_count: Number of people who accepted, organizer included.
        room: The booked meeting room, or null.
        location: Room and floor ("Fjord room, floor 3"), "Video call" or "No location".
        video_link: Video-call link, may be empty.
        created_at: When the event was created (ISO 8601).
        previous_date: Date before the move (YYYY-MM-DD).
        previous_start_time: Start time before the move (HH:MM).
        reconfirm_count: Number of invitees asked to confirm again.
    """

    previous_date: str
    previous_start_time: str
    reconfirm_count: int


class FreeSlot(TypedDict):
    """A window in which everyone asked about is free.

    Attributes:
        date: Date (YYYY-MM-DD).
        start_time: Window start (HH:MM).
        end_time: Window end (HH:MM).
        length_minutes: Window length in minutes.
    """

    date: str
    start_time: str
    end_time: str
    length_minutes: int


class PersonLoad(TypedDict):
    """One person's day in a free/busy search.

    Attributes:
        person_id: The person's directory id.
        name: Full name.
        work_start: Start of their working hours (HH:MM).
        work_end: End of their working hours (HH:MM).
        busy_minutes: Minutes already booked in their working hours that day.
    """

    person_id: str
    name: str
    work_start: str
    work_end: str
    busy_minutes: int


class FreeSlots(TypedDict):
    """Common free time of several people on one day.

    Attributes:
        date: The day searched (YYYY-MM-DD).
        duration_minutes: The meeting length asked for.
        time_zone: IANA time zone of all times.
        people: Each person's working hours and load, the requester first.
        slots: Windows of at least the asked length inside everyone's working hours, earliest first.
        slot_count: Number of windows found.
        first_start_time: Start of the earliest window (HH:MM), or "none".
    """

    date: str
    duration_minutes: int
    time_zone: str
    people: list[PersonLoad]
    slots: list[FreeSlot]
    slot_count: int
    first_start_time: str


class RoomAvailability(TypedDict):
    """A meeting room and whether it is free at the asked time.

    Attributes:
        room_id: The room's resource id, such as hq-3-fjord.
        name: Room name.
        floor: Floor number.
        capacity: Number of seats.
        has_video_conferencing: Whether it has a video-conferencing setup.
        has_whiteboard: Whether it has a whiteboard.
        available: Whether it is free for the whole asked time.
    """

    room_id: str
    name: str
    floor: int
    capacity: int
    has_video_conferencing: bool
    has_whiteboard: bool
    available: bool


class RoomSearch(TypedDict):
    """Rooms that fit a group, with their availability.

    Attributes:
        date: The day asked about (YYYY-MM-DD).
        start_time: Start of the asked time (HH:MM).
        end_time: End of the asked time (HH:MM).
        min_capacity: The smallest number of seats asked for.
        rooms: Rooms with enough seats, smallest first.
        room_count: Number of rooms with enough seats.
        available_count: Number of those rooms that are free.
    """

    date: str
    start_time: str
    end_time: str
    min_capacity: int
    rooms: list[RoomAvailability]
    room_count: int
    available_count: int


class CancelResult(TypedDict):
    """A cancelled event.

    Attributes:
        event_id: The event id.
        title: Event title.
        date: Date it was planned for (YYYY-MM-DD).
        start_time: Start time it was planned for (HH:MM).
        status: Always cancelled.
        notified: Names of the invitees who were sent a cancellation.
        notified_count: Number of invitees notified.
        released_room: Name of the room that was freed, empty if none.
        note: The message sent with the cancellation.
    """

    event_id: str
    title: str
    date: str
    start_time: str
    status: str
    notified: list[str]
    notified_count: int
    released_room: str
    note: str


class RsvpResult(TypedDict):
    """An invitee's answer to an invitation.

    Attributes:
        event_id: The event id.
        title: Event title.
        date: Date (YYYY-MM-DD).
        start_time: Start time (HH:MM).
        email: Work email of the invitee who answered.
        name: Their full name.
        response_status: Their answer now: accepted, declined or tentative.
        previous_response: Their answer before.
        comment: Comment sent to the organizer, may be empty.
        accepted_count: Number of people who accepted, organizer included.
        declined_count: Number of people who declined.
        pending_count: Number of people who have not answered.
    """

    event_id: str
    title: str
    date: str
    start_time: str
    email: str
    name: str
    response_status: str
    previous_response: str
    comment: str
    accepted_count: int
    declined_count: int
    pending_count: int


class CalendarEnv(Environment):
    """A small company's shared calendar system."""

    name = "calendar"

    # -- helpers ---------------------------------------------------------------------------------
    def _clock(self) -> tuple[str, int, str]:
        clock = self.state.get("meta", "clock")
        return clock["today"], to_minutes(clock["now"][11:16]), clock["time_zone"]

    def _person(self, person_id: str) -> dict:
        person = self.state.get("people", person_id)
        if person is None:
            raise ToolError("person_not_found", f"No one in the directory has person id {person_id}.")
        return person

    def _by_email(self, email: str) -> dict:
        person = self.state.find_one("people", email=email.strip().lower())
        if person is None:
            raise ToolError("person_not_found", f"No one in the directory has the email address {email}.")
        return person

    def _event(self, event_id: str) -> dict:
        event = self.state.get("events", event_id)
        if event is None:
            raise ToolError("event_not_found", f"No event has id {event_id}.")
        return event

    def _room(self, room_id: str) -> dict:
        room = self.state.get("rooms", room_id)
        if room is None:
            raise ToolError("room_not_found", f"No meeting room has id {room_id}.")
        return room

    @staticmethod
    def _date(value: str) -> date:
        if not _DATE.match(value):
            raise ToolError("invalid_date", f"{value!r} is not a date; use YYYY-MM-DD.")
        try:
            return date(int(value[:4]), int(value[5:7]), int(value[8:10]))
        except ValueError:
            raise ToolError("invalid_date", f"{value} is not a calendar date.") from None

    @staticmethod
    def _duration(minutes: int) -> int:
        if minutes < 5 or minutes > 600 or minutes % 5:
            raise ToolError("invalid_duration", "A duration is a multiple of 5 minutes between 5 and 600.")
        return minutes

    @staticmethod
    def _time(value: str, duration: int) -> tuple[int, int]:
        if not _TIME.match(value):
            raise ToolError("invalid_time", f"{value!r} is not a time; use 24-hour HH:MM.")
        start = to_minutes(value)
        if int(value[:2]) > 23 or int(value[3:]) > 59 or start % 5:
            raise ToolError("invalid_time", f"{value} is not a valid start time; use HH:MM on a 5-minute mark.")
        if start < DAY_START or start + duration > DAY_END:
            raise ToolError("invalid_time", "Events must start at 06:00 or later and end by 22:00.")
        return start, start + duration

    def _when(self, day: str, start_time: str, duration_minutes: int) -> tuple[str, int, int]:
        """Validate a future slot; returns (date, start, end) with times in minutes."""
        self._date(day)
        start, end = self._time(start_time, self._duration(duration_minutes))
        today, now, _ = self._clock()
        if day < today or (day == today and start < now):
            raise ToolError("time_in_past", f"{day} {start_time} has already passed; it is now {today} {to_hhmm(now)}.")
        return day, start, end

    def _started(self, event: dict) -> bool:
        today, now, _ = self._clock()
        return event["date"] < today or (event["date"] == today and to_minutes(event["start_time"]) <= now)

    def _changeable(self, event: dict) -> None:
        if event["status"] == "cancelled":
            raise ToolError("event_cancelled", f"{event['title']} on {event['date']} was cancelled.")
        if self._started(event):
            raise ToolError("event_in_past", f"{event['title']} on {event['date']} at {event['start_time']} has already started.")

    def _as_organizer(self, event: dict, email: str) -> dict:
        """The requester, who must organize ``event`` to change it."""
        person = self._by_email(email)
        if person["person_id"] != event["organizer_id"]:
            organizer = self.state.get("people", event["organizer_id"]) or {"name": "someone else", "email": ""}
            raise ToolError(
                "not_organizer",
                f"Only the organizer, {organizer['name']} ({organizer['email']}), can change {event['title']}; "
                f"{person['name']} can only RSVP.",
            )
        return person

    def _busy(self, person: dict, day: str, exclude: str = "") -> list[dict]:
        """Confirmed events of ``person`` on ``day`` that they have not declined."""
        out = []
        for event_id in person["event_ids"]:
            if event_id == exclude:
                continue
            event = self.state.get("events", event_id)
            if event is None or event["date"] != day or event["status"] != "confirmed":
                continue
            for attendee in event["attendees"]:
                if attendee["person_id"] == person["person_id"]:
                    if attendee["response_status"] != "declined":
                        out.append(event)
                    break
        return out

    def _organizer_free(self, person: dict, day: str, start: int, end: int, exclude: str = "") -> None:
        # zero-padded HH:MM strings order like the times they name
        first, last = to_hhmm(start), to_hhmm(end)
        for event in self._busy(person, day, exclude):
            if event["start_time"] < last and first < event["end_time"]:
                raise ToolError(
                    "organizer_busy",
                    f"{person['name']} already has {event['title']} from {event['start_time']} to "
                    f"{event['end_time']} on {day}.",
                )

    def _room_clash(self, room_id: str, day: str, start: int, end: int, exclude: str = "") -> dict | None:
        first, last = to_hhmm(start), to_hhmm(end)
        for event in self.state.find("events", room_day=f"{room_id}|{day}"):
            if (event["start_time"] < last and first < event["end_time"] and event["event_id"] != exclude
                    and event["status"] == "confirmed"):
                return event
        return None

    def _room_free(self, room: dict, day: str, start: int, end: int, exclude: str = "") -> None:
        clash = self._room_clash(room["room_id"], day, start, end, exclude)
        if clash is not None:
            raise ToolError(
                "room_unavailable",
                f"{room['name']} is booked from {clash['start_time']} to {clash['end_time']} on {day}.",
            )

    @staticmethod
    def _room_fits(room: dict, headcount: int) -> None:
        if room["capacity"] < headcount:
            raise ToolError("room_too_small", f"{room['name']} seats {room['capacity']}; this meeting has {headcount} people.")

    def _location(self, event: dict) -> str:
        if event["room_id"]:
            room = self.state.get("rooms", event["room_id"])
            if room is not None:
                return f"{room['name']} room, floor {room['floor']}"
        return "Video call" if event["video_link"] else "No location"

    def _details(self, event: dict) -> EventDetails:
        _, _, time_zone = self._clock()
        attendees = []
        for attendee in event["attendees"]:
            if attendee["person_id"] == event["organizer_id"]:
                continue
            person = self.state.get("people", attendee["person_id"]) or {"name": "Former employee", "email": ""}
            attendees.append({
                "attendee_id": attendee["person_id"], "name": person["name"], "email": person["email"],
                "response_status": attendee["response_status"], "optional": attendee.get("optional", False),
            })
        organizer = self.state.get("people", event["organizer_id"]) or {"name": "Former employee", "email": ""}
        room = self.state.get("rooms", event["room_id"]) if event["room_id"] else None
        start, end = to_minutes(event["start_time"]), to_minutes(event["end_time"])
        return {
            "event_id": event["event_id"], "title": event["title"], "description": event["description"],
            "kind": event["kind"], "status": event["status"], "date": event["date"],
            "start_time": event["start_time"], "end_time": event["end_time"], "duration_minutes": end - start,
            "start": f"{event['date']}T{event['start_time']}:00", "end": f"{event['date']}T{event['end_time']}:00",
            "time_zone": time_zone, "organizer_name": organizer["name"], "organizer_email": organizer["email"],
            "attendees": attendees, "attendee_count": len(event["attendees"]),
            "accepted_count": sum(1 for a in event["attendees"] if a["response_status"] == "accepted"),
            "room": None if room is None else {"room_id": room["room_id"], "name": room["name"],
                                               "floor": room["floor"], "capacity": room["capacity"]},
            "location": self._location(event), "video_link": event["video_link"], "created_at": event["created_at"],
        }

    def _add_to_calendar(self, person_id: str, event_id: str) -> None:
        person = self.state.edit("people", person_id)
        if event_id not in person["event_ids"]:
            person["event_ids"].append(event_id)

    # -- reads -----------------------------------------------------------------------------------
    @tool(errors=("person_not_found", "ambiguous_name"))
    def find_person(self, name_or_email: str) -> PersonDetails:
        """Look someone up in the company directory by full name, first or last name, or work email.

        Args:
            name_or_email: A full name ("Maria Garcia"), a first or last name, or a work email address.
        """
        query = " ".join(name_or_email.split())
        if "@" in query:
            matches = self.state.find("people", email=query.lower())
        else:
            title = query.title()
            matches = (self.state.find("people", name=title) or self.state.find("people", last_name=title)
                       or self.state.find("people", first_name=title))
        if not matches:
            raise ToolError("person_not_found", f"No one in the directory matches {query!r}.")
        if len(matches) > 1:
            listed = "; ".join(f"{p['name']} ({p['email']}, {p['department']})" for p in matches[:5])
            raise ToolError("ambiguous_name", f"{len(matches)} people match {query!r}: {listed}. Ask which one, or for their email address.")
        person = matches[0]
        _, _, time_zone = self._clock()
        return {
            "person_id": person["person_id"], "name": person["name"], "email": person["email"],
            "title": person["title"], "department": person["department"], "phone": person["phone"],
            "work_start": person["work_start"], "work_end": person["work_end"], "time_zone": time_zone,
        }

    @tool(errors=("person_not_found", "invalid_date"))
    def list_events(self, email: str, start_date: str, end_date: Optional[str] = None) -> CalendarView:
        """List the events on someone's calendar for one day or a range of days (at most 31).

        Args:
            email: Work email of the calendar's owner, such as maria.garcia@northwind-analytics.com.
            start_date: First day to show (YYYY-MM-DD).
            end_date: Last day to show (YYYY-MM-DD); defaults to start_date.
        """
        person = self._by_email(email)
        person_id = person["person_id"]
        end_date = end_date or start_date
        first, last = self._date(start_date), self._date(end_date)
        if last < first:
            raise ToolError("invalid_date", f"end_date {end_date} is before start_date {start_date}.")
        if (last - first).days >= MAX_RANGE_DAYS:
            raise ToolError("invalid_date", f"Show at most {MAX_RANGE_DAYS} days at a time.")
        _, _, time_zone = self._clock()
        rows = []
        for event_id in person["event_ids"]:
            event = self.state.get("events", event_id)
            if event is None or event["status"] != "confirmed" or not start_date <= event["date"] <= end_date:
                continue
            response = next((a["response_status"] for a in event["attendees"] if a["person_id"] == person_id),
                            "needs_action")
            organizer = self.state.get("people", event["organizer_id"])
            rows.append({
                "event_id": event_id, "title": event["title"], "date": event["date"],
                "start_time": event["start_time"], "end_time": event["end_time"],
                "duration_minutes": to_minutes(event["end_time"]) - to_minutes(event["start_time"]),
                "organizer_name": organizer["name"] if organizer else "Former employee",
                "is_organizer": event["organizer_id"] == person_id, "response_status": response,
                "location": self._location(event), "attendee_count": len(event["attendees"]),
            })
        rows.sort(key=lambda r: (r["date"], r["start_time"], r["title"]))
        period = f"on {start_date}" if start_date == end_date else f"from {start_date} to {end_date}"
        return {"email": person["email"], "name": person["name"], "start_date": start_date, "end_date": end_date,
                "period": period, "time_zone": time_zone, "event_count": len(rows), "events": rows}

    @tool(errors=("event_not_found",))
    def get_event(self, event_id: str) -> EventDetails:
        """Get the full details of an event: time, organizer, invitees and their answers, room and video link.

        Args:
            event_id: The event id, such as evt_3k9q2m7x1b.
        """
        return self._details(self._event(event_id))

    @tool(errors=("person_not_found", "invalid_date", "invalid_duration", "date_in_past"))
    def find_free_slots(self, email: str, person_ids: list[str], date: str, duration_minutes: int = 30) -> FreeSlots:
        """Find the windows on one day when the requester and the given colleagues are all free within
        their working hours (Monday to Friday).

        Args:
            email: Work email of the person asking; their calendar is included.
            person_ids: Directory ids of the colleagues who must also attend.
            date: The day to search (YYYY-MM-DD).
            duration_minutes: How long the meeting needs to be, in minutes.
        """
        requester = self._by_email(email)
        weekend = self._date(date).weekday() >= 5
        self._duration(duration_minutes)
        today, now, time_zone = self._clock()
        if date < today:
            raise ToolError("date_in_past", f"{date} has already passed; today is {today}.")
        people = [requester] + [self._person(pid) for pid in dict.fromkeys(person_ids) if pid != requester["person_id"]]
        window_start = max(to_minutes(p["work_start"]) for p in people)
        window_end = min(to_minutes(p["work_end"]) for p in people)
        if date == today:
            window_start = max(window_start, -(-now // 15) * 15)
        if weekend:  # working hours are Monday to Friday
            window_end = window_start
        loads, busy = [], []
        for person in people:
            own_start, own_end = to_minutes(person["work_start"]), to_minutes(person["work_end"])
            minutes = 0
            for event in self._busy(person, date):
                start, end = to_minutes(event["start_time"]), to_minutes(event["end_time"])
                busy.append((start, end))
                minutes += max(0, min(end, own_end) - max(start, own_start))
            loads.append({"person_id": person["person_id"], "name": person["name"], "work_start": person["work_start"],
                          "work_end": person["work_end"], "busy_minutes": minutes})
        slots, cursor = [], window_start
        for start, end in [*sorted(busy), (window_end, window_end)]:
            if start > cursor and min(start, window_end) - cursor >= duration_minutes:
                stop = min(start, window_end)
                slots.append({"date": date, "start_time": to_hhmm(cursor), "end_time": to_hhmm(stop),
                              "length_minutes": stop - cursor})
            cursor = max(cursor, end)
            if cursor >= window_end:
                break
        return {"date": date, "duration_minutes": duration_minutes, "time_zone": time_zone, "people": loads,
                "slots": slots, "slot_count": len(slots),
                "first_start_time": slots[0]["start_time"] if slots else "none"}

    @tool(errors=("invalid_date", "invalid_time", "invalid_duration", "time_in_past"))
    def search_rooms(
        self, date: str, start_time: str, duration_minutes: int = 30, min_capacity: int = 1, needs_video: bool = False
    ) -> RoomSearch:
        """List the meeting rooms that seat a group and say which are free at a given time.

        Args:
            date: The day of the meeting (YYYY-MM-DD).
            start_time: Start time of the meeting (24-hour HH:MM).
            duration_minutes: Length of the meeting in minutes.
            min_capacity: The number of seats needed.
            needs_video: Only list rooms with video conferencing.
        """
        day, start, end = self._when(date, start_time, duration_minutes)
        rooms = []
        for room_id, room in self.state.records("rooms"):
            if room["capacity"] < min_capacity or (needs_video and not room["has_video_conferencing"]):
                continue
            rooms.append({
                "room_id": room_id, "name": room["name"], "floor": room["floor"], "capacity": room["capacity"],
                "has_video_conferencing": room["has_video_conferencing"], "has_whiteboard": room["has_whiteboard"],
                "available": self._room_clash(room_id, day, start, end) is None,
            })
        rooms.sort(key=lambda r: (r["capacity"], r["name"]))
        return {"date": day, "start_time": to_hhmm(start), "end_time": to_hhmm(end), "min_capacity": min_capacity,
                "rooms": rooms, "room_count": len(rooms), "available_count": sum(1 for r in rooms if r["available"])}

    # -- writes ----------------------------------------------------------------------------------
    @tool(writes=True, errors=("person_not_found", "invalid_date", "invalid_time", "invalid_duration",
                               "time_in_past", "organizer_busy", "room_not_found", "room_too_small",
                               "room_unavailable"))
    def create_event(
        self,
        email: str,
        title: str,
        date: str,
        start_time: str,
        duration_minutes: int,
        person_ids: list[str],
        room_id: Optional[str] = None,
        description: str = "",
    ) -> EventDetails:
        """Create an event organized by the requester, invite colleagues and optionally book a room.

        The organizer must be free at that time, and a booked room must be free and seat everyone.

        Args:
            email: Work email of the organizer (the person asking).
            title: Title of the event.
            date: Day of the event (YYYY-MM-DD).
            start_time: Start time (24-hour HH:MM, such as 14:30).
            duration_minutes: Length in minutes.
            person_ids: Directory ids of the colleagues to invite; empty for a private time block.
            room_id: Resource id of the meeting room to book, such as hq-3-fjord, if any.
            description: Agenda or notes for the invitation.
        """
        organizer = self._by_email(email)
        person_id = organizer["person_id"]
        invitees = [self._person(pid) for pid in dict.fromkeys(person_ids) if pid != person_id]
        day, start, end = self._when(date, start_time, duration_minutes)
        self._organizer_free(organizer, day, start, end)
        if room_id is not None:
            room = self._room(room_id)
            self._room_fits(room, 1 + len(invitees))
            self._room_free(room, day, start, end)
        number = self.state.next_id("events")
        event_id = event_id_for(number)
        today, now, _ = self._clock()
        attendees = [{"person_id": person_id, "response_status": "accepted"}]
        attendees += [{"person_id": p["person_id"], "response_status": "needs_action"} for p in invitees]
        event = {
            "event_id": event_id, "title": title.strip() or "(No title)", "description": description,
            "kind": ("one_on_one" if len(invitees) == 1 else "meeting") if invitees else "personal",
            "status": "confirmed", "date": day, "start_time": to_hhmm(start), "end_time": to_hhmm(end),
            "organizer_id": person_id, "attendees": attendees, "room_id": room_id,
            "room_day": f"{room_id}|{day}" if room_id else None,
            "video_link": meet_link_for(number) if invitees else "",
            "created_at": f"{today}T{to_hhmm(now)}:00",
        }
        self.state.insert("events", event_id, event)
        for attendee in attendees:
            self._add_to_calendar(attendee["person_id"], event_id)
        return self._details(event)

    @tool(writes=True, errors=("event_not_found", "person_not_found", "not_organizer", "event_cancelled",
                               "event_in_past", "invalid_date", "invalid_time", "invalid_duration", "time_in_past",
                               "organizer_busy", "room_unavailable"))
    def reschedule_event(
        self, event_id: str, email: str, date: str, start_time: str, duration_minutes: Optional[int] = None
    ) -> RescheduledEvent:
        """Move an upcoming event to a new date and time; invitees are asked to confirm again.

        Only the organizer can move an event. The organizer must be free at the new time, and the event's
        room, if any, must be free too.

        Args:
            event_id: The event id, such as evt_3k9q2m7x1b.
            email: Work email of the person asking, who must be the organizer.
            date: The new day (YYYY-MM-DD).
            start_time: The new start time (24-hour HH:MM).
            duration_minutes: The new length in minutes; keeps the current length if omitted.
        """
        current = self._event(event_id)
        organizer = self._as_organizer(current, email)
        self._changeable(current)
        if duration_minutes is None:
            duration_minutes = to_minutes(current["end_time"]) - to_minutes(current["start_time"])
        day, start, end = self._when(date, start_time, duration_minutes)
        self._organizer_free(organizer, day, start, end, exclude=event_id)
        if current["room_id"]:
            self._room_free(self._room(current["room_id"]), day, start, end, exclude=event_id)
        event = self.state.edit("events", event_id)
        previous_date, previous_start = event["date"], event["start_time"]
        event.update(date=day, start_time=to_hhmm(start), end_time=to_hhmm(end),
                     room_day=f"{event['room_id']}|{day}" if event["room_id"] else None)
        reconfirm = 0
        for attendee in event["attendees"]:
            if attendee["person_id"] != event["organizer_id"] and attendee["response_status"] != "needs_action":
                attendee["response_status"] = "needs_action"
                reconfirm += 1
        return {**self._details(event), "previous_date": previous_date, "previous_start_time": previous_start,
                "reconfirm_count": reconfirm}

    @tool(writes=True, errors=("event_not_found", "person_not_found", "not_organizer", "event_cancelled",
                               "event_in_past"))
    def cancel_event(self, event_id: str, email: str, note: str = "") -> CancelResult:
        """Cancel an upcoming event, notify its invitees and release its room. Only the organizer can cancel.

        Args:
            event_id: The event id, such as evt_3k9q2m7x1b.
            email: Work email of the person asking, who must be the organizer.
            note: A short message sent to the invitees with the cancellation.
        """
        current = self._event(event_id)
        self._as_organizer(current, email)
        self._changeable(current)
        event = self.state.edit("events", event_id)
        event["status"] = "cancelled"
        event["room_day"] = None
        event["cancel_note"] = note
        room = self.state.get("rooms", event["room_id"]) if event["room_id"] else None
        notified = []
        for attendee in event["attendees"]:
            if attendee["person_id"] != event["organizer_id"]:
                person = self.state.get("people", attendee["person_id"])
                if person is not None:
                    notified.append(person["name"])
        return {"event_id": event_id, "title": event["title"], "date": event["date"], "start_time": event["start_time"],
                "status": "cancelled", "notified": notified, "notified_count": len(notified),
                "released_room": room["name"] if room else "", "note": note}

    @tool(writes=True, errors=("event_not_found", "person_not_found", "not_organizer", "event_cancelled",
                               "event_in_past", "no_people", "already_invited", "room_too_small"))
    def add_attendees(self, event_id: str, email: str, person_ids: list[str], optional: bool = False) -> EventDetails:
        """Invite more colleagues to an upcoming event. Only the organizer can change the guest list, and the
        event's room, if any, must seat everyone.

        Args:
            event_id: The event id, such as evt_3k9q2m7x1b.
            email: Work email of the person asking, who must be the organizer.
            person_ids: Directory ids of the colleagues to invite.
            optional: Mark the new invitees as optional attendees.
        """
        current = self._event(event_id)
        self._as_organizer(current, email)
        self._changeable(current)
        if not person_ids:
            raise ToolError("no_people", "Name at least one person to invite.")
        people = [self._person(pid) for pid in dict.fromkeys(person_ids)]
        invited = {a["person_id"] for a in current["attendees"]}
        for person in people:
            if person["person_id"] in invited:
                raise ToolError("already_invited", f"{person['name']} is already invited to {current['title']}.")
        if current["room_id"]:
            self._room_fits(self._room(current["room_id"]), len(invited) + len(people))
        event = self.state.edit("events", event_id)
        for person in people:
            attendee = {"person_id": person["person_id"], "response_status": "needs_action"}
            if optional:
                attendee["optional"] = True
            event["attendees"].append(attendee)
            self._add_to_calendar(person["person_id"], event_id)
        if not event["video_link"]:
            event["video_link"] = meet_link_for(self.state.next_id("meet_links") + 500000)
        if event["kind"] == "personal":
            event["kind"] = "meeting"
        return self._details(event)

    @tool(writes=True, errors=("event_not_found", "person_not_found", "not_organizer", "event_cancelled",
                               "event_in_past", "not_invited", "cannot_remove_organizer"))
    def remove_attendee(self, event_id: str, email: str, attendee_id: str) -> EventDetails:
        """Take one invitee off the guest list of an upcoming event; they are sent a cancellation. Only the
        organizer can change the guest list.

        Args:
            event_id: The event id, such as evt_3k9q2m7x1b.
            email: Work email of the person asking, who must be the organizer.
            attendee_id: Directory id of the invitee to remove.
        """
        current = self._event(event_id)
        self._as_organizer(current, email)
        self._changeable(current)
        if attendee_id == current["organizer_id"]:
            raise ToolError("cannot_remove_organizer", f"That person organizes {current['title']}; cancel the event instead.")
        if all(a["person_id"] != attendee_id for a in current["attendees"]):
            raise ToolError("not_invited", f"{attendee_id} is not on the guest list of {current['title']}.")
        event = self.state.edit("events", event_id)
        event["attendees"] = [a for a in event["attendees"] if a["person_id"] != attendee_id]
        if self.state.get("people", attendee_id) is not None:
            calendar = self.state.edit("people", attendee_id)
            calendar["event_ids"] = [e for e in calendar["event_ids"] if e != event_id]
        return self._details(event)

    @tool(writes=True, errors=("event_not_found", "person_not_found", "not_organizer", "room_not_found",
                               "event_cancelled", "event_in_past", "room_too_small", "room_unavailable"))
    def book_room(self, event_id: str, email: str, room_id: str) -> EventDetails:
        """Book a meeting room for an upcoming event, replacing any room it had.

        Only the organizer can book a room for an event; the room must seat everyone on the invite and be
        free for the whole event.

        Args:
            event_id: The event id, such as evt_3k9q2m7x1b.
            email: Work email of the person asking, who must be the organizer.
            room_id: Resource id of the meeting room to book, such as hq-3-fjord.
        """
        current = self._event(event_id)
        self._as_organizer(current, email)
        room = self._room(room_id)
        self._changeable(current)
        self._room_fits(room, len(current["attendees"]))
        start, end = to_minutes(current["start_time"]), to_minutes(current["end_time"])
        self._room_free(room, current["date"], start, end, exclude=event_id)
        event = self.state.edit("events", event_id)
        event["room_id"] = room_id
        event["room_day"] = f"{room_id}|{event['date']}"
        return self._details(event)

    @tool(writes=True, errors=("event_not_found", "person_not_found", "event_cancelled", "event_in_past",
                               "not_invited", "organizer_cannot_respond"))
    def respond_to_event(
        self, event_id: str, email: str, response: Literal["yes", "no", "maybe"], comment: str = ""
    ) -> RsvpResult:
        """Answer an invitation for the invitee who asks: yes (accept), no (decline) or maybe (tentative).

        Args:
            event_id: The event id, such as evt_3k9q2m7x1b.
            email: Work email of the invitee who answers (the person asking).
            response: yes, no or maybe.
            comment: An optional note for the organizer.
        """
        current = self._event(event_id)
        person = self._by_email(email)
        person_id = person["person_id"]
        self._changeable(current)
        if person_id == current["organizer_id"]:
            raise ToolError("organizer_cannot_respond", f"{person['name']} organizes {current['title']} and always attends.")
        if all(a["person_id"] != person_id for a in current["attendees"]):
            raise ToolError("not_invited", f"{person['name']} is not invited to {current['title']}.")
        event = self.state.edit("events", event_id)
        previous = ""
        for attendee in event["attendees"]:
            if attendee["person_id"] == person_id:
                previous = attendee["response_status"]
                attendee["response_status"] = RSVP[response]
                if comment:
                    attendee["comment"] = comment
        statuses = [a["response_status"] for a in event["attendees"]]
        return {"event_id": event_id, "title": event["title"], "date": event["date"], "start_time": event["start_time"],
                "email": person["email"], "name": person["name"], "response_status": RSVP[response],
                "previous_response": previous, "comment": comment, "accepted_count": statuses.count("accepted"),
                "declined_count": statuses.count("declined"), "pending_count": statuses.count("needs_action")}
