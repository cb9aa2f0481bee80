"""How the company's staff talk about their calendars: intents per tool, references, value samplers."""

from __future__ import annotations

import random
from datetime import date, timedelta
from typing import Any

from builders.calendar.state import CLIENTS, TOPICS, to_hhmm, to_minutes
from covert.env import Intent, Language, Reference, State

NEW_TITLES = (
    "Project kickoff", "Hiring debrief", "Coffee chat", "Budget check-in", "Vendor demo: {client}",
    "Quarterly planning", "Customer onboarding review", "Design sync: {topic}", "Launch readiness review",
    "Brainstorm: {topic}", "Contract review with {client}", "Team lunch", "Performance review prep",
    "Security training", "Interview loop debrief", "Release go/no-go",
)
PERSONAL_TITLES = ("Focus time", "Doctor's appointment", "Lunch", "Prep for {client} call", "Deep work: {topic}")
NOTES = (
    "Something came up, sorry for the short notice.",
    "We'll handle this async in the doc instead.",
    "Postponing until the numbers are final.",
    "The client cancelled on their side.",
    "",
)
COMMENTS = (
    "Running a few minutes late.", "I'll join remotely.", "I have a conflict, sorry!",
    "Might need to leave early.", "Looking forward to it.",
)


# -- helpers ---------------------------------------------------------------------------------------
def _clock(state: State) -> tuple[date, int]:
    clock = state.get("meta", "clock")
    today = clock["today"]
    return date(int(today[:4]), int(today[5:7]), int(today[8:10])), to_minutes(clock["now"][11:16])


def _next_workdays(state: State, count: int) -> list[str]:
    today, _ = _clock(state)
    days, cursor = [], today
    while len(days) < count:
        cursor += timedelta(days=1)
        if cursor.weekday() < 5:
            days.append(cursor.isoformat())
    return days


def _fill(template: str, rng: random.Random) -> str:
    return template.format(client=rng.choice(CLIENTS), topic=rng.choice(TOPICS))


def _busy(state: State) -> dict[tuple[str, str], list[tuple[int, int]]]:
    """Booked intervals per (person or room, day) of confirmed events; declined invitees are free."""
    busy: dict[tuple[str, str], list[tuple[int, int]]] = {}
    for _, event in state.records("events"):
        if event["status"] != "confirmed":
            continue
        span = (to_minutes(event["start_time"]), to_minutes(event["end_time"]))
        for attendee in event["attendees"]:
            if attendee["response_status"] != "declined":
                busy.setdefault((attendee["person_id"], event["date"]), []).append(span)
        if event["room_id"]:
            busy.setdefault((event["room_id"], event["date"]), []).append(span)
    return busy


def _free_slot(rng: random.Random, state: State, duration: int) -> tuple[str, str]:
    """A future slot in which every person and every room is free (falling back to people only)."""
    busy = _busy(state)
    people, rooms = state.ids("people"), state.ids("rooms")
    candidates = [(day, start) for day in _next_workdays(state, 5)
                  for start in range(9 * 60 + 30, 17 * 60 - duration + 1, 30)]
    rng.shuffle(candidates)

    def free(keys: list[str], day: str, start: int) -> bool:
        return all(start + duration <= s or start >= e for k in keys for s, e in busy.get((k, day), ()))

    for keys in (people + rooms, people):
        for day, start in candidates:
            if free(keys, day, start):
                return day, to_hhmm(start)
    day, start = candidates[0] if candidates else (_next_workdays(state, 1)[0], 10 * 60)
    return day, to_hhmm(start)


def _upcoming(state: State, keep=lambda event: True) -> list[str]:
    today, now = _clock(state)
    iso = today.isoformat()
    return [
        key for key, event in state.records("events")
        if event["status"] == "confirmed" and keep(event)
        and (event["date"] > iso or (event["date"] == iso and to_minutes(event["start_time"]) > now))
    ]


def _event_sampler(keep=lambda event: True):
    def sample(rng: random.Random, state: State) -> str:
        return rng.choice(_upcoming(state, keep) or _upcoming(state) or state.ids("events"))
    return sample


def _person(rng: random.Random, state: State) -> dict[str, Any]:
    return state.get("people", rng.choice(state.ids("people")))


def _name_or_email(rng: random.Random, state: State) -> str:
    person = _person(rng, state)
    return person["email"] if rng.random() < 0.4 else person["name"]


def _range(rng: random.Random, state: State) -> dict[str, str]:
    today, _ = _clock(state)
    start = today + timedelta(days=rng.randrange(-2, 6))
    end = start + timedelta(days=rng.choice((0, 1, 2, 4, 6)))
    return {"start_date": start.isoformat(), "end_date": end.isoformat()}


def _free_slots_args(rng: random.Random, state: State) -> dict[str, Any]:
    return {"date": rng.choice(_next_workdays(state, 5)), "duration_minutes": rng.choice((30, 30, 45, 60))}


def _team(rng: random.Random, state: State) -> list[str]:
    meetings = [state.get("events", k) for k in _upcoming(state, lambda e: len(e["attendees"]) >= 2)]
    if meetings:
        attendees = [a["person_id"] for a in rng.choice(meetings)["attendees"]]
        return attendees[: rng.randint(2, min(4, len(attendees)))]
    return rng.sample(state.ids("people"), 2)


def _room_search(rng: random.Random, state: State) -> dict[str, Any]:
    duration = rng.choice((30, 60, 60, 90))
    day, start = _free_slot(rng, state, duration)
    return {"date": day, "start_time": start, "duration_minutes": duration, "min_capacity": rng.choice((2, 4, 5, 6, 8))}


def _new_event(rng: random.Random, state: State) -> dict[str, Any]:
    duration = rng.choice((15, 30, 30, 45, 60))
    day, start = _free_slot(rng, state, duration)
    return {"title": _fill(rng.choice(NEW_TITLES), rng), "date": day, "start_time": start,
            "duration_minutes": duration}


def _new_time(rng: random.Random, state: State) -> dict[str, Any]:
    day, start = _free_slot(rng, state, 90)
    return {"date": day, "start_time": start}


def _date(rng: random.Random, state: State) -> str:
    return rng.choice(_next_workdays(state, 5))


def _start_time(rng: random.Random, state: State) -> str:
    return to_hhmm(rng.randrange(9 * 60, 16 * 60 + 1, 30))


LANGUAGE = Language(
    scope="calendars, meetings, availability and meeting-room bookings for the company's staff",
    intents={
        "find_person": (
            Intent(ask=("can you look up {name_or_email} in the company directory?",
                        "who is {name_or_email}? I need their job title and team",
                        "what's the work email and phone number of {name_or_email}?"),
                   answer=("{name} is {title} in {department}; their email is {email} and their phone is {phone}.",),
                   context=("I'm {name_or_email}", "this is {name_or_email}",
                            "you'll find me in the directory as {name_or_email}")),
            Intent(ask=("what are {name_or_email}'s working hours?", "when does {name_or_email} usually work?"),
                   answer=("{name} works from {work_start} to {work_end} ({time_zone}).",),
                   context=("it's about my colleague {name_or_email}", "the person I mean is {name_or_email}")),
        ),
        "list_events": (
            Intent(ask=("what's on my calendar on {start_date}?", "what meetings do I have on {start_date}?",
                        "can you walk me through my day on {start_date}?"),
                   answer=("You have {event_count} events on {start_date}.",),
                   context=("I'm looking at my schedule for {start_date}", "it's on {start_date}",
                            "it's one of my meetings on {start_date}")),
            Intent(ask=("what do I have between {start_date} and {end_date}?",
                        "can you list my meetings from {start_date} through {end_date}?",
                        "how busy am I from {start_date} to {end_date}?"),
                   answer=("You have {event_count} events between {start_date} and {end_date}.",),
                   context=("it's somewhere between {start_date} and {end_date}",
                            "it's one of my meetings from {start_date} to {end_date}")),
            Intent(ask=("what does {person_id}'s day look like on {start_date}?",
                        "is {person_id} in meetings on {start_date}?"),
                   answer=("{name} has {event_count} events on {start_date}.",),
                   context=("it's on {person_id}'s calendar on {start_date}",)),
        ),
        "get_event": (
            Intent(ask=("who's coming to {event_id}?", "can you give me the details of {event_id}?",
                        "where is {event_id} and who's invited?"),
                   answer=("{title} is on {date} from {start_time} to {end_time} in {location}, "
                           "with {attendee_count} people invited.",)),
            Intent(ask=("has everyone answered the invite for {event_id}?", "how many people accepted {event_id}?"),
                   answer=("{accepted_count} of the {attendee_count} people invited to {title} have accepted.",)),
            Intent(ask=("what's the video link for {event_id}?", "how do I dial into {event_id}?"),
                   answer=("The video link for {title} is {video_link}.",)),
        ),
        "find_free_slots": (
            Intent(ask=("when are {person_ids} all free on {date} for {duration_minutes} minutes?",
                        "can you find a {duration_minutes}-minute slot on {date} that works for {person_ids}?",
                        "I need {duration_minutes} minutes with {person_ids} on {date} — when is everyone available?"),
                   answer=("The earliest time everyone is free on {date} is {first_start_time}; "
                           "I found {slot_count} open windows.",),
                   context=("we need {duration_minutes} minutes with {person_ids} on {date}",
                            "it should include {person_ids}, for {duration_minutes} minutes on {date}")),
        ),
        "search_rooms": (
            Intent(ask=("which rooms are free on {date} at {start_time} for {duration_minutes} minutes? "
                        "We're {min_capacity} people",
                        "I need a room for {min_capacity} on {date} from {start_time}, {duration_minutes} minutes — "
                        "what's available?",
                        "is there a meeting room for {min_capacity} people free at {start_time} on {date} "
                        "for {duration_minutes} minutes?"),
                   answer=("{available_count} rooms with at least {min_capacity} seats are free on {date} "
                           "from {start_time} to {end_time}.",),
                   context=("we're {min_capacity} people meeting on {date} at {start_time} for "
                            "{duration_minutes} minutes",
                            "it's for {min_capacity} people, {date} at {start_time}, {duration_minutes} minutes")),
        ),
        "create_event": (
            Intent(ask=("please set up {title} on {date} at {start_time} for {duration_minutes} minutes and "
                        "invite {person_ids}",
                        "can you schedule a {duration_minutes}-minute meeting called {title} with {person_ids} "
                        "on {date} at {start_time}?",
                        "put {title} on my calendar for {date}, {start_time}, {duration_minutes} minutes, "
                        "with {person_ids}"),
                   answer=("{title} is booked on {date} from {start_time} to {end_time} and "
                           "{attendee_count} people are on the invite.",)),
            Intent(ask=("book {title} on {date} at {start_time} for {duration_minutes} minutes in {room_id} "
                        "and invite {person_ids}",
                        "I want {title} in {room_id} on {date} at {start_time}, {duration_minutes} minutes, "
                        "with {person_ids}"),
                   answer=("{title} is booked in {location} on {date} from {start_time} to {end_time}.",)),
            Intent(ask=("block {duration_minutes} minutes on my calendar on {date} at {start_time} for {title}",
                        "can you hold {start_time} on {date} for {title}? {duration_minutes} minutes is enough"),
                   answer=("{title} is on your calendar on {date} from {start_time} to {end_time}.",)),
        ),
        "reschedule_event": (
            Intent(ask=("can you move {event_id} to {date} at {start_time}?",
                        "please push {event_id} to {start_time} on {date}",
                        "{event_id} needs to move — {date} at {start_time} works better"),
                   answer=("{title} now takes place on {date} from {start_time} to {end_time}; "
                           "{reconfirm_count} attendees were asked to confirm again.",)),
            Intent(ask=("please move {event_id} to {date} at {start_time} and make it {duration_minutes} minutes",
                        "can {event_id} become a {duration_minutes}-minute meeting on {date} at {start_time}?"),
                   answer=("{title} is now on {date} from {start_time} to {end_time}.",)),
        ),
        "cancel_event": (
            Intent(ask=("please cancel {event_id}", "{event_id} isn't happening anymore — can you cancel it?",
                        "call off {event_id} and let everyone know"),
                   answer=("{title} on {date} is cancelled and {notified_count} attendees were notified.",)),
            Intent(ask=("cancel {event_id} and tell everyone: {note}",
                        "please call off {event_id} with this message: {note}"),
                   answer=("{title} on {date} is cancelled; {notified_count} attendees got your note.",)),
        ),
        "add_attendees": (
            Intent(ask=("please add {person_ids} to {event_id}", "can you invite {person_ids} to {event_id}?",
                        "{person_ids} should join {event_id} too — please send them the invite"),
                   answer=("{title} now has {attendee_count} people on the invite.",)),
        ),
        "remove_attendee": (
            Intent(ask=("please take {person_id} off {event_id}",
                        "{person_id} doesn't need to be in {event_id}; can you remove them?",
                        "remove {person_id} from the guest list of {event_id}"),
                   answer=("{title} now has {attendee_count} people on the invite.",)),
        ),
        "book_room": (
            Intent(ask=("can you book {room_id} for {event_id}?", "please put {event_id} in {room_id}",
                        "I'd like {event_id} to happen in {room_id}"),
                   answer=("{title} on {date} at {start_time} is now in {location}.",)),
        ),
        "respond_to_event": (
            Intent(ask=("RSVP {response} to {event_id} for me", "my answer for {event_id} is {response}",
                        "please reply {response} to the invite for {event_id}"),
                   answer=("You're now marked as {response_status} for {title} on {date}.",)),
            Intent(ask=("RSVP {response} to {event_id} and tell the organizer: {comment}",
                        "reply {response} to {event_id} with the note \"{comment}\""),
                   answer=("You're marked as {response_status} for {title}; {accepted_count} people have accepted.",)),
        ),
    },
    references={
        "person_id": Reference(
            noun="person", plural="people", by_id=("person {value}",), user_knows_id=False,
            by_field={"name": ("{value}",), "email": ("{value}", "the person at {value}")},
            superlative={"busy_minutes": ("the busiest person", "the least busy person")},
        ),
        "event_id": Reference(
            noun="meeting", plural="meetings", by_id=("event {value}",), user_knows_id=False,
            by_field={"title": ('my "{value}" meeting', 'the "{value}" event', '"{value}"'),
                      "date": ("my meeting on {value}", "the event on {value}"),
                      "start_time": ("my {value} meeting", "the meeting at {value}")},
            superlative={"duration_minutes": ("my longest meeting", "my shortest meeting"),
                         "attendee_count": ("my biggest meeting", "my smallest meeting")},
        ),
        "room_id": Reference(
            noun="room", plural="rooms", by_id=("room {value}",), user_knows_id=False,
            by_field={"name": ("the {value} room", "{value}")},
            superlative={"capacity": ("the biggest room", "the smallest room")},
        ),
    },
    entity_tables={"person_id": "people", "event_id": "events", "room_id": "rooms"},
    values={
        "name_or_email": _name_or_email,
        "list_events": _range,
        "start_date": lambda rng, state: _range(rng, state)["start_date"],
        "find_free_slots": _free_slots_args,
        "find_free_slots.person_ids": _team,
        "search_rooms": _room_search,
        "create_event": _new_event,
        "reschedule_event": _new_time,
        "date": _date,
        "start_time": _start_time,
        "duration_minutes": lambda rng, state: rng.choice((15, 30, 45, 60, 90)),
        "min_capacity": lambda rng, state: rng.choice((2, 3, 4, 6, 8)),
        "title": lambda rng, state: _fill(rng.choice(NEW_TITLES + PERSONAL_TITLES), rng),
        "note": lambda rng, state: rng.choice(NOTES[:-1]),
        "comment": lambda rng, state: rng.choice(COMMENTS),
        "reschedule_event.event_id": _event_sampler(),
        "cancel_event.event_id": _event_sampler(lambda e: len(e["attendees"]) >= 2),
        "add_attendees.event_id": _event_sampler(lambda e: 2 <= len(e["attendees"]) <= 4 and not e["room_id"]),
        "remove_attendee.event_id": _event_sampler(lambda e: len(e["attendees"]) >= 3),
        "book_room.event_id": _event_sampler(lambda e: not e["room_id"] and len(e["attendees"]) >= 2),
        "respond_to_event.event_id": _event_sampler(lambda e: len(e["attendees"]) >= 2),
    },
    field_nouns={
        "duration_minutes": "meeting length in minutes", "attendee_count": "number of invitees",
        "accepted_count": "number of acceptances", "capacity": "seating capacity", "floor": "floor",
        "event_count": "number of events", "available_count": "number of free rooms",
        "slot_count": "number of open windows", "length_minutes": "window length in minutes",
        "busy_minutes": "booked minutes", "start_time": "start time", "end_time": "end time",
        "first_start_time": "earliest free time", "notified_count": "number of attendees notified",
        "reconfirm_count": "number of attendees asked to reconfirm", "pending_count": "number of open invitations",
        "declined_count": "number of declines",
    },
    out_of_scope=(
        "Can you book me a flight to Denver for the offsite next month?",
        "What's the weather going to be like tomorrow afternoon?",
        "Can you approve my expense report from last week?",
        "How many vacation days do I have left this year?",
        "Please write up the notes from yesterday's sprint retro.",
        "Can you order lunch for the twelve people in my workshop?",
        "I forgot my laptop password, can you reset it?",
        "What's the exchange rate between dollars and euros today?",
        "Can you translate this agenda into Spanish?",
        "Who won the basketball game last night?",
    ),
)
