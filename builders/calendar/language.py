"""How the company's staff talk about their calendars: intents per tool, references, value samplers.

The person asking gives their work email (the ``email`` entity); colleagues are named and looked up in
the directory (``person_id``); invitees of an event are picked from its guest list (``attendee_id``).
Optional parameters that have samplers are sometimes filled, so every intent has a phrasing for each
combination of them.
"""

from __future__ import annotations

import random
from datetime import date, timedelta
from typing import Any

from builders.calendar.state import CLIENTS, TOPICS, to_hhmm, to_minutes
from covert.env import Intent, Language, Reference, State
from covert.env.policy import Identity

NEW_TITLES = (
    "Project kickoff", "Hiring debrief", "Coffee chat", "Budget check-in", "Vendor demo: {client}",
    "Quarterly planning", "Customer onboarding review", "Design sync: {topic}", "Launch readiness review",
    "Brainstorm: {topic}", "Contract review with {client}", "Team lunch", "Performance review prep",
    "Security training", "Interview loop debrief", "Release go/no-go",
)
NOTES = (
    "Something came up, sorry for the short notice.",
    "We'll handle this async in the doc instead.",
    "Postponing until the numbers are final.",
    "The client cancelled on their side.",
)
COMMENTS = (
    "I'll follow up by email.", "Thanks for the heads-up.", "Please share the notes afterwards.",
    "Let me know if the agenda changes.", "Thanks for the invite.",
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


def _upcoming(state: State) -> list[dict[str, Any]]:
    """Confirmed events that have not started yet."""
    today, now = _clock(state)
    iso = today.isoformat()
    return [
        event for _, event in state.records("events")
        if event["status"] == "confirmed"
        and (event["date"] > iso or (event["date"] == iso and to_minutes(event["start_time"]) > now))
    ]


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
    """A slot in the next workdays in which every person and every room is free (else every person)."""
    busy = _busy(state)
    people, rooms = state.ids("people"), state.ids("rooms")
    days = _next_workdays(state, 4)
    candidates = [(day, start) for day in days for start in range(9 * 60, 17 * 60 - duration + 1, 30)]
    rng.shuffle(candidates)
    for keys in (set(people + rooms), set(people)):
        # the booked intervals of those keys, per day: a slot is free when it overlaps none of them
        taken: dict[str, list[tuple[int, int]]] = {day: [] for day in days}
        for (key, day), spans in busy.items():
            if day in taken and key in keys:
                taken[day].extend(spans)
        for day, start in candidates:
            if all(start + duration <= s or start >= e for s, e in taken[day]):
                return day, to_hhmm(start)
    day, start = candidates[0]
    return day, to_hhmm(start)


def _person(rng: random.Random, state: State) -> dict[str, Any]:
    return state.get("people", rng.choice(state.ids("people")))


def _room(rng: random.Random, state: State, seats: int) -> str:
    """A room with at least ``seats`` seats (the users quote its resource id, such as hq-3-fjord)."""
    rooms = [k for k, r in state.records("rooms") if r["capacity"] >= seats] or state.ids("rooms")
    return rng.choice(rooms)


def _name_or_email(rng: random.Random, state: State) -> str:
    """A colleague's full name, or for about a third of the people their email (always the same form per
    person, so that one person is never asked about twice under two forms)."""
    person = _person(rng, state)
    return person["email"] if person["person_id"][-1] in "ABCDEFGHJKL" else person["name"]


def _focus(state: State) -> dict[str, Any] | None:
    """One upcoming meeting that still needs a room, the same for every sampler of a state.

    The calendar view and the room search both favour it, so that a state's calendar view often shows a
    meeting to book a room for, and its room search often asks about a real meeting's time and size.
    """
    roomless = [e for e in _upcoming(state) if not e["room_id"] and len(e["attendees"]) >= 2]
    return min(roomless, key=lambda e: e["event_id"]) if roomless else None


def _calendar_view(rng: random.Random, state: State) -> dict[str, str]:
    """Someone's email and a day on which they have upcoming events, mostly a day on which they organize
    one (only organizers may change an event) and sometimes one on which they are invited (to RSVP)."""
    focus = _focus(state)
    if focus is not None and rng.random() < 0.35:
        owner = focus["organizer_id"] if rng.random() < 0.7 else rng.choice(focus["attendees"])["person_id"]
        end = date.fromisoformat(focus["date"]) + timedelta(days=rng.choice((1, 2, 4)))
        return {"email": state.get("people", owner)["email"], "start_date": focus["date"],
                "end_date": end.isoformat()}
    organized: dict[tuple[str, str], int] = {}
    invited: dict[tuple[str, str], int] = {}
    for event in _upcoming(state):
        for attendee in event["attendees"]:
            key = (attendee["person_id"], event["date"])
            table = organized if attendee["person_id"] == event["organizer_id"] else invited
            table[key] = table.get(key, 0) + 1
    keys = sorted(set(organized) | set(invited))
    if keys:
        wanted = organized if rng.random() < 0.7 else invited
        pool = [k for k in keys if wanted.get(k) and organized.get(k, 0) + invited.get(k, 0) >= 2]
        pool = pool or [k for k in keys if wanted.get(k)] or keys
        person_id, day = rng.choice(pool)
    else:
        person_id, day = rng.choice(state.ids("people")), _next_workdays(state, 1)[0]
    end = date.fromisoformat(day) + timedelta(days=rng.choice((1, 2, 4)))
    return {"email": state.get("people", person_id)["email"], "start_date": day, "end_date": end.isoformat()}


def _free_slots_args(rng: random.Random, state: State) -> dict[str, Any]:
    return {"email": _person(rng, state)["email"], "date": rng.choice(_next_workdays(state, 4)),
            "duration_minutes": rng.choice((30, 30, 45, 60))}


def _room_search(rng: random.Random, state: State) -> dict[str, Any]:
    """Often the time of the focus meeting (which has no room yet), else a free slot."""
    event = _focus(state)
    if event is not None and rng.random() < 0.25:
        return {"date": event["date"], "start_time": event["start_time"],
                "duration_minutes": to_minutes(event["end_time"]) - to_minutes(event["start_time"]),
                "min_capacity": len(event["attendees"])}
    duration = rng.choice((30, 60, 60, 90))
    day, start = _free_slot(rng, state, duration)
    return {"date": day, "start_time": start, "duration_minutes": duration, "min_capacity": rng.choice((2, 3, 4, 6))}


def _new_event(rng: random.Random, state: State) -> dict[str, Any]:
    duration = rng.choice((15, 30, 30, 45, 60))
    day, start = _free_slot(rng, state, duration)
    return {"email": _person(rng, state)["email"], "title": _fill(rng.choice(NEW_TITLES), rng), "date": day,
            "start_time": start, "duration_minutes": duration}


def _new_time(rng: random.Random, state: State) -> dict[str, Any]:
    day, start = _free_slot(rng, state, 90)
    return {"date": day, "start_time": start, "duration_minutes": rng.choice((30, 45, 60))}


IDENTITY = Identity(table=None, self_params=("email",))


LANGUAGE = Language(
    scope="calendars, meetings, availability and meeting-room bookings for the company's staff",
    intents={
        "find_person": (
            Intent(ask=("can you look up {name_or_email} in the company directory?", "find {name_or_email} in the directory",
                        "who is {name_or_email}? I need their job title and team",
                        "what's the work email and phone number of {name_or_email}?", "I need to get hold of {name_or_email}; what's their email and number?", "what team is {name_or_email} in, and how do I contact them?", "I'm setting up an intro with {name_or_email}; what's their title and team?", "tell me about {name_or_email}: role, team, email and phone", "which department does {name_or_email} belong to, and what's their phone?", "who's {name_or_email}, and where do they sit in the org?"),
                   answer=("{name} is {title} in {department}; their email is {email} and their phone is {phone}.",
                           "I found {name}, {title} ({department}), reachable at {email} or {phone}.",
                           "{name} works in {department} as {title}; email {email}, phone {phone}."),
                   context=("my colleague is {name_or_email}", "I'm trying to reach {name_or_email}",
                            "it's about {name_or_email} from our team", "I need to reach {name_or_email}", "I'm meeting with {name_or_email}")),
            Intent(ask=("what are {name_or_email}'s working hours?", "when does {name_or_email} usually work?", "what hours is {name_or_email} around?", "I don't want to ping {name_or_email} too early; when do they start and finish?", "what time does {name_or_email} start and finish?", "is {name_or_email} on a different schedule? What hours do they keep?"),
                   answer=("{name} works from {work_start:time} to {work_end:time} ({time_zone}).",
                           "{name}'s working hours are {work_start:time} to {work_end:time}, {time_zone} time.",
                           "You can reach {name} between {work_start:time} and {work_end:time} ({time_zone})."),
                   context=("my colleague is {name_or_email}",)),
        ),
        "list_events": (
            Intent(ask=("I'm {email} — what's on my calendar on {start_date}?",
                        "what meetings do I have on {start_date}? This is {email}",
                        "can you walk me through my day on {start_date}? I'm {email}",
                        "I'm {email}. What do I have between {start_date} and {end_date}?",
                        "can you list my meetings from {start_date} through {end_date}? My calendar is under {email}", "{email} here — what meetings have I got on {start_date}?", "I'm planning my week; what's on between {start_date} and {end_date}? My address is {email}", "list my meetings for {start_date}. I'm {email}"),
                   answer=("You have {events:n:event}: {events:list:title|start_time@time}.",
                           "On your calendar: {events:list:title|start_time@time|end_time@time#+to}.",
                           "You're down for {events:list:title|start_time@time}.",
                           "{?events=}{name}, your calendar shows {events:n:event} then."),
                   context=("I'm {email} and I'm looking at my calendar for {start_date}",
                            "{email} here; the meeting is on {start_date}",
                            "this is {email}, looking at my meetings on {start_date}",
                            "I'm {email} and the meeting falls between {start_date} and {end_date}",
                            "it's {email}, and I mean my meetings from {start_date} to {end_date}", "I'm {email}; it's on {start_date}", "it's on {start_date}, and I'm {email}", "{email}: the meeting is on {start_date}", "I'm {email}, looking at {start_date}", "{email} — it's one on {start_date}", "it's on {start_date}; my calendar address is {email}", "the invite went to {email} for {start_date}", "I'm {email} and it happens on {start_date}", "it's in my diary for {start_date} ({email})", "my calendar's {email}; the date is {start_date}", "calendar: {email}, date: {start_date}", "I'm {email}; it's one of my meetings on {start_date}", "{email} here, it's on my calendar between {start_date} and {end_date}", "I'm {email}, and it's somewhere between {start_date} and {end_date}", "I'm {email}; it's a meeting between {start_date} and {end_date}", "it's in my calendar ({email}) between {start_date} and {end_date}", "I'm {email}. It falls in {start_date} to {end_date}", "{email} — look between {start_date} and {end_date}", "{email}: something from {start_date} through {end_date}", "it's between {start_date} and {end_date} on {email}'s calendar")),
            Intent(ask=("how busy am I on {start_date}? I'm {email}",
                        "I'm {email}. How packed is my calendar from {start_date} to {end_date}?", "{email} here. How booked up am I between {start_date} and {end_date}?", "how many meetings do I have on {start_date}? I'm {email}", "what meetings have I got on {start_date}? I'm {email}", "{email} here. Which meetings am I in on {start_date}?"),
                   answer=("You have {events:n:event}: {events:list:title|start_time@time}.",
                           "It's {events:n:meeting}: {events:list:title|start_time@time}.",
                           "Not too bad: {events:list:title|start_time@time|end_time@time#+to}.",
                           "{?events=}Your calendar has {events:n:event} then, so you're free.")),
        ),
        "get_event": (
            Intent(ask=("who's coming to {event_id}?", "who's invited to {event_id}?", "can you give me the details of {event_id}?",
                        "where is {event_id} and who's invited?", "who'll be at {event_id}?", "what room is {event_id} in?", "who else is invited to {event_id}?", "give me the rundown of {event_id}"),
                   answer=("{title} on {date:date} at {start_time:time} has {attendees:list:name|response_status@status} on the invite, plus the organizer, {organizer_name}.",
                           "Invited to {title}: {attendees:list:name}; {organizer_name} organizes it.",
                           "{organizer_name}'s {title} ({date:date}, {start_time:time} to {end_time:time}) includes {attendees:list:name|response_status@status}.")),
            Intent(ask=("has everyone answered the invite for {event_id}?", "how many people said yes to {event_id}?", "how many people accepted {event_id}?", "has anyone declined {event_id}?"),
                   answer=("{accepted_count} of the {attendee_count} people on the {title} invite have accepted, counting the organizer, {organizer_name}; the others' replies: {attendees:list:name|response_status@status}.",
                           "Replies for {title}: {attendees:list:name|response_status@status}.",
                           "So far {accepted_count:n:person|people} accepted {title}, counting the organizer, {organizer_name}. The invitees' replies: {attendees:list:name|response_status@status}.")),
            Intent(ask=("what's the video link for {event_id}?", "where's the dial-in for {event_id}?", "how do I dial into {event_id}?", "I'm remote today; what's the call link for {event_id}?", "what's the meeting link for {event_id}?"),
                   answer=("The video link for {title} is {video_link}.",
                           "You can join {title} at {video_link}.",
                           "{title} ({date:date}, {start_time:time}) uses {video_link}.")),
            Intent(ask=("who organizes {event_id}?", "who set up {event_id}?", "who is running {event_id}?", "who called {event_id}?"),
                   answer=("{title} is organized by {organizer_name} ({organizer_email}).",
                           "{organizer_name} organizes {title}; you can write to {organizer_email}.",
                           "The organizer of {title} on {date:date} is {organizer_name}.")),
        ),
        "find_free_slots": (
            Intent(ask=("I'm {email}. When are {person_ids} and I both free on {date}?",
                        "when can I meet {person_ids} on {date}? I'm {email} on the calendar", "{email} here. Is there a gap on {date} when {person_ids} and I are both free?", "what times on {date} work for {person_ids} and me? I'm {email}", "I'm {email}; find us a {duration_minutes}-minute window with {person_ids} on {date}",
                        "I'm {email} and I need {duration_minutes} minutes with {person_ids} on {date} — "
                        "when are we all free?",
                        "can you find a {duration_minutes}-minute slot on {date} for me and {person_ids}? "
                        "I'm {email}"),
                   answer=("The earliest time you're all free on {date:date} is {first_start_time:time}; the open windows are {slots:list:start_time@time|end_time@time#+to}.",
                           "Everyone is free on {date:date} at these times: {slots:list:start_time@time|end_time@time#+to}.",
                           "On {date:date} everyone is free starting {first_start_time:time} ({slots:n:open window}).",
                           "{?slots=}There's {slots:n:common free window} on {date:date}."),
                   context=("I'm {email} and I want to meet {person_ids} on {date}",
                            "I'm {email}; we need {duration_minutes} minutes with {person_ids} on {date}", "I'm {email}, hoping to catch {person_ids} on {date}", "{email} here, and I want time with {person_ids} on {date}", "I'm {email}; {person_ids} and I need to sync on {date}")),
        ),
        "search_rooms": (
            Intent(ask=("which meeting rooms are free on {date} at {start_time}?", "which rooms are open at {start_time} on {date}?", "{date} at {start_time}: which rooms are free?", "which rooms can I grab at {start_time} on {date}?",
                        "is there a room free at {start_time} on {date}?", "any rooms open on {date} at {start_time}?", "I need somewhere to meet at {start_time} on {date}; which rooms are open?", "find me a room for {date} at {start_time}", "we need a room at {start_time} on {date}; which ones are free?",
                        "which rooms are free on {date} at {start_time} for {duration_minutes} minutes?",
                        "I need a room on {date} from {start_time} for {duration_minutes} minutes — what's open?",
                        "I need a room for {min_capacity} people on {date} at {start_time} — what's free?", "we're {min_capacity} people; which rooms are free at {start_time} on {date}?", "which rooms are free for {duration_minutes} minutes from {start_time} on {date}?", "is anything free for {duration_minutes} minutes at {start_time} on {date}? Which rooms?", "which rooms could hold a {duration_minutes}-minute meeting at {start_time} on {date}?",
                        "which rooms seat {min_capacity} and are free at {start_time} on {date}?",
                        "which rooms are free on {date} at {start_time} for {duration_minutes} minutes? "
                        "We're {min_capacity} people",
                        "I need a room for {min_capacity} on {date} from {start_time}, {duration_minutes} minutes "
                        "— what's available?"),
                   answer=("On {date:date} from {start_time:time} to {end_time:time} these rooms are free: {rooms:list:name|capacity#seats}.",
                           "{available_count:n:room} are free on {date:date} at {start_time:time}: {rooms:list:name|floor#floor}.",
                           "Free at {start_time:time} on {date:date}: {rooms:list:name|capacity#seats}.",
                           "{?rooms=}{available_count:n:room} fit on {date:date} at {start_time:time}."),
                   context=("we're meeting on {date} at {start_time}",
                            "we meet on {date} at {start_time} for {duration_minutes} minutes",
                            "we're {min_capacity} people meeting on {date} at {start_time}",
                            "we're {min_capacity} people, {date} at {start_time}, for {duration_minutes} minutes", "it's {date} at {start_time}, for {min_capacity} of us", "the slot is {date}, {start_time}, {duration_minutes} minutes", "we'll be {min_capacity} at {start_time} on {date}")),
        ),
        "create_event": (
            Intent(ask=('I\'m {email}. Please set up "{title}" with {person_ids} on {date} at {start_time} '
                        'for {duration_minutes} minutes',
                        'can you schedule a {duration_minutes}-minute meeting called "{title}" with {person_ids} '
                        'on {date} at {start_time}? {email} here',
                        'please put "{title}" on my calendar on {date} at {start_time} for {duration_minutes} '
                        'minutes and invite {person_ids}. I\'m {email}',
                        'I\'m {email}. Book "{title}" in {room_id} on {date} at {start_time} for '
                        '{duration_minutes} minutes and invite {person_ids}'),
                   answer=("\"{title}\" is booked on {date:date} from {start_time:time} to {end_time:time} ({location}), with {attendees:list:name} invited.",
                           "I've set up \"{title}\" for {date:date} at {start_time:time} with {attendees:list:name}; location: {location}.",
                           "Your meeting \"{title}\" is on the calendar: {date:date}, {start_time:time} to {end_time:time}, invitees {attendees:list:name}.")),
        ),
        "reschedule_event": (
            Intent(ask=("can you move {event_id} to {date} at {start_time}?", "move {event_id} to {start_time} on {date}", "I'm double-booked, so push {event_id} to {date} at {start_time}",
                        "please push {event_id} to {start_time} on {date}", "something came up, so shift {event_id} to {date} at {start_time}", "reschedule {event_id} for {date}, {start_time}",
                        "{event_id} needs to move — {date} at {start_time} works better",
                        "please move {event_id} to {date} at {start_time} and make it {duration_minutes} minutes",
                        "can {event_id} become a {duration_minutes}-minute meeting on {date} at {start_time}?"),
                   answer=("{title} now takes place on {date:date} from {start_time:time} to {end_time:time}, and I asked the invitees who had already answered to confirm again.",
                           "I moved {title} from {previous_date:date} to {date:date}, {start_time:time} to {end_time:time}.",
                           "{title} is rescheduled to {date:date} at {start_time:time}; {reconfirm_count:n:invitee} will be asked to reconfirm.")),
        ),
        "cancel_event": (
            Intent(ask=("please cancel {event_id}", "cancel {event_id}", "take {event_id} off the calendar", "{event_id} isn't happening anymore — can you cancel it?",
                        "call off {event_id} and let everyone know",
                        "cancel {event_id} and tell everyone: {note}",
                        "please call off {event_id} with this message: {note}", "call off {event_id}; we don't need to meet"),
                   answer=("{title} on {date:date} is cancelled, and {notified:list:name} have been notified.",
                           "I cancelled {title} ({date:date}, {start_time:time}); {notified_count:n:person|people} got a notice.",
                           "{title} is off the calendar for {date:date}, and everyone invited was told.")),
        ),
        "add_attendees": (
            Intent(ask=("please add {person_ids} to {event_id}", "add {person_ids} to {event_id}", "loop {person_ids} into {event_id}", "can you invite {person_ids} to {event_id}?", "{person_ids} should be at {event_id} too; send them an invite",
                        "{person_ids} should join {event_id} too — please send the invite"),
                   answer=("The invite for {title} on {date:date} now lists {attendees:list:name}.",
                           "{title} now has {attendees:list:name|response_status@status} invited.",
                           "Done: {attendees:list:name} are on the {title} invite ({attendee_count} people with the organizer).")),
        ),
        "remove_attendee": (
            Intent(ask=("please take {attendee_id} off {event_id}", "drop {attendee_id} from {event_id}",
                        "{attendee_id} doesn't need to be in {event_id}; can you remove them?",
                        "remove {attendee_id} from the guest list of {event_id}", "take {attendee_id} off the invite for {event_id}"),
                   answer=("The invite for {title} on {date:date} now lists {attendees:list:name}.",
                           "Removed. {title} now has {attendee_count:n:person|people} on the invite, organizer included.",
                           "{title} ({date:date}) is now down to {attendees:list:name} plus {organizer_name}.")),
        ),
        "book_room": (
            Intent(ask=("can you book {room_id} for {event_id}?", "book {room_id} for {event_id}", "please put {event_id} in {room_id}", "grab {room_id} for {event_id}",
                        "I'd like {event_id} to happen in {room_id}"),
                   answer=("{title} on {date:date} at {start_time:time} is now in the {location}.",
                           "I booked {room.name} (floor {room.floor}, seats {room.capacity}) for {title}.",
                           "{title} has a room now: {location}, {date:date} from {start_time:time}.")),
        ),
        "respond_to_event": (
            Intent(ask=("RSVP {response} to {event_id} for me", "my answer for {event_id} is {response}",
                        "please reply {response} to the invite for {event_id}", "tell them {response} for {event_id}",
                        "RSVP {response} to {event_id} and tell the organizer: {comment}",
                        'reply {response} to {event_id} with the note "{comment}"'),
                   answer=("You're now marked as {response_status:status} for {title} on {date:date}.",
                           "I sent your reply to {title} ({date:date}, {start_time:time}): {response_status:status}.",
                           "Your RSVP for {title} now reads {response_status:status}.")),
        ),
    },
    references={
        "email": Reference(noun="email address", plural="email addresses", by_id=("{value}",), user_knows_id=True),
        "person_id": Reference(
            noun="colleague", plural="colleagues", by_id=("person {value}",), user_knows_id=False,
            by_field={"name": ("{value}",)},
            superlative={"busy_minutes": ("whoever is busiest that day", "whoever is least busy that day")},
        ),
        "attendee_id": Reference(
            noun="invitee", plural="invitees", by_id=("invitee {value}",), user_knows_id=False,
            by_field={"name": ("{value}",)},
        ),
        "event_id": Reference(
            noun="meeting", plural="meetings", by_id=("event {value}",), user_knows_id=False,
            by_field={"title": ('my "{value}" meeting', 'the "{value}" event', '"{value}"'),
                      "start_time": ("my {value} meeting", "the meeting at {value}"),
                      "date": ("my meeting on {value}",)},
            superlative={"duration_minutes": ("my longest meeting", "my shortest meeting"),
                         "attendee_count": ("my biggest meeting", "my smallest meeting")},
        ),
        "room_id": Reference(
            noun="room", plural="rooms", by_id=("{value}",), user_knows_id=True,
            by_field={"name": ("the {value} room", "{value}")},
            superlative={"capacity": ("the biggest room", "the smallest room")},
        ),
    },
    entity_tables={"email": "people", "person_id": "people", "attendee_id": "people", "event_id": "events",
                   "room_id": "rooms"},
    values={
        "email": lambda rng, state: _person(rng, state)["email"],
        "name_or_email": _name_or_email,
        "list_events": _calendar_view,
        "list_events.end_date": lambda rng, state: _calendar_view(rng, state)["end_date"],
        "find_free_slots": _free_slots_args,
        "search_rooms": _room_search,
        "create_event": _new_event,
        "reschedule_event": _new_time,
        "create_event.room_id": lambda rng, state: _room(rng, state, 4),
        "book_room.room_id": lambda rng, state: _room(rng, state, 6),
        "duration_minutes": lambda rng, state: rng.choice((30, 45, 60)),
        "min_capacity": lambda rng, state: rng.choice((2, 3, 4, 6)),
        "note": lambda rng, state: rng.choice(NOTES),
        "comment": lambda rng, state: rng.choice(COMMENTS),
    },
    field_nouns={"min_capacity": "number of people",
        "duration_minutes": "meeting length in minutes", "attendee_count": "number of people invited",
        "accepted_count": "number of acceptances", "capacity": "seating capacity", "floor": "floor",
        "event_count": "number of events", "available_count": "number of free rooms",
        "room_count": "number of rooms", "slot_count": "number of open windows",
        "length_minutes": "window length in minutes", "busy_minutes": "booked minutes",
        "start_time": "start time", "end_time": "end time", "first_start_time": "earliest free time",
        "notified_count": "number of invitees notified", "reconfirm_count": "number of invitees asked to reconfirm",
        "pending_count": "number of open invitations", "declined_count": "number of declines",
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
        # near the domain: requests the tools look like they could serve, but do not
        "Can you order lunch for everyone at my '{events.title}' meeting?",
        "Please record '{events.title}' and send me a transcript afterwards.",
        "Can you write the agenda for '{events.title}'?",
        "Can you text {people.name} that I'm running ten minutes late?",
        "Can you fix the projector in {rooms.name}? It keeps flickering.",
        "Could you get a few more chairs brought into {rooms.name}?",
        "Can you change {people.name}'s working hours? They're starting earlier now.",
        "Can you reserve a parking space for my visitor tomorrow?",
        "Can you sync my work calendar with my personal phone?",
        "Can you book a taxi to get me to '{events.title}' on time?",
        "Can you find out why {people.name} declined my invitation?",
        "Can you switch the company calendar to London time?",
        "Can you approve my holiday request for next month?",
        "Please book a flight for my trip to the Berlin office.",
        "Can you make {rooms.name} bigger by merging it with the room next door?",
        "Can you tell me {people.name}'s home address? I want to send a card.",
    ),
    identity=IDENTITY,
)
