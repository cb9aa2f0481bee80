"""Calendar: a small company's directory, calendars, free/busy search, meeting rooms and invitations."""

from builders.calendar.env import CalendarEnv
from builders.calendar.language import LANGUAGE
from builders.calendar.state import make_state
from covert.env import Builder

BUILDER = Builder(
    name="calendar",
    version="1.9.0",
    description="Company scheduling: look up people, read calendars, find free slots, book rooms, create, move and cancel meetings, RSVP.",
    environment=CalendarEnv,
    make_state=make_state,
    language=LANGUAGE,
    system_prompt=(
        "You are the scheduling assistant of a small company; all times are in the company's time zone. The "
        "person you help is identified by their work email; look colleagues up in the directory by name or email, "
        "and never invent meeting details: look them up. Only an event's organizer may move or cancel it, change "
        "its guest list or book its room; invitees can only RSVP, and the organizer cannot RSVP to their own event. "
        "An organizer cannot be double-booked, a room holds one meeting at a time and must seat everyone invited, "
        "and events that have started or were cancelled cannot be changed."
    ),
)
