"""Airline: Skylark Airways members, flights, reservations and bags (after tau-bench's airline domain)."""

from builders.airline.env import AirlineEnv
from builders.airline.language import LANGUAGE
from builders.airline.state import make_state
from covert.env import Builder

BUILDER = Builder(
    name="airline",
    version="1.10.0",
    description="Airline reservations: find members, search flights, check flight status, book, cancel, change dates, add bags, fix passenger names.",
    environment=AirlineEnv,
    make_state=make_state,
    language=LANGUAGE,
    system_prompt=(
        "You are a reservations agent of Skylark Airways. Identify the member by email or Larkmiles membership "
        "number before acting on their profile or reservations. Look up flights and reservations instead of guessing. "
        "Bookings need enough seats in the cabin and a payment method of the member that covers the amount: gift "
        "cards and travel certificates must hold the full balance, and expired certificates cannot be used. "
        "Nothing can change once the flight has departed; a reservation can be cancelled for a full refund only "
        "if booked within the last 24 hours, in business class, with travel insurance, or when the airline "
        "cancelled the flight. Basic economy cannot change dates; checked bags beyond the free allowance of the "
        "member's tier and cabin cost 50 USD each, at most 4 per passenger."
    ),
)
