"""How Skylark Airways customers talk: intents per tool, references to entities, value samplers."""

from __future__ import annotations

import random
from datetime import date, timedelta
from typing import Any

from builders.airline.state import FIRST_NAMES, LAST_NAMES, SCHEDULE_AFTER
from covert.env import Intent, Language, Reference, State
from covert.env.policy import Identity


def _clock(state: State) -> dict[str, str]:
    return state.get("meta", "clock")


def _customer(rng: random.Random, state: State) -> dict[str, Any]:
    return state.get("customers", rng.choice(state.ids("customers")))


def _days(state: State, first: int, last: int) -> list[str]:
    """Dates of the published schedule from ``first`` to ``last`` days after today (clipped to it)."""
    clock = _clock(state)
    today = date.fromisoformat(clock["today"])
    days = [(today + timedelta(days=k)).isoformat() for k in range(first, last + 1)]
    return [d for d in days if clock["schedule_start"] <= d <= clock["schedule_end"]]


def _date_between(first: int, last: int):
    def sample(rng: random.Random, state: State) -> str:
        return rng.choice(_days(state, first, last))
    return sample


def _is_open(state: State, reservation: dict[str, Any]) -> bool:
    """Confirmed and its flight has not left yet."""
    if reservation["status"] != "confirmed":
        return False
    today = _clock(state)["today"]
    if reservation["date"] < today:
        return False
    entry = state.get("flights", reservation["flight_number"])["dates"].get(reservation["date"], {})
    return entry.get("status") not in ("departed", "landed")


def _reservation_where(test):
    def sample(rng: random.Random, state: State) -> str:
        ids = [k for k, r in state.records("reservations") if test(state, r)]
        return rng.choice(ids or state.ids("reservations"))
    return sample


def _cancellable(state: State, reservation: dict[str, Any]) -> bool:
    if not _is_open(state, reservation):
        return False
    clock = _clock(state)
    yesterday = (date.fromisoformat(clock["today"]) - timedelta(days=1)).isoformat()
    entry = state.get("flights", reservation["flight_number"])["dates"].get(reservation["date"], {})
    return (reservation["booked_at"] >= f"{yesterday}T{clock['time']}" or entry.get("status") == "cancelled"
            or reservation["cabin"] == "business" or reservation["travel_insurance"])


def _changeable(state: State, reservation: dict[str, Any]) -> bool:
    return _is_open(state, reservation) and reservation["cabin"] != "basic_economy"


def _plan(state: State) -> tuple[dict[str, Any], str]:
    """The trip this state's user has in mind: ``(a flight of the route, travel date)``.

    Derived from the state alone, so a search, a status check and a booking in one task all use the same
    route and date (today or up to eight days ahead).
    """
    clock = _clock(state)
    flights = state.ids("flights")
    text = clock["today"] + clock["time"] + "".join(state.ids("customers")[:2])
    key = sum((i + 1) * ord(c) for i, c in enumerate(text))
    ahead = (key // len(flights)) % SCHEDULE_AFTER
    day = (date.fromisoformat(clock["today"]) + timedelta(days=ahead)).isoformat()
    return state.get("flights", flights[key % len(flights)]), day


def _planned_search(rng: random.Random, state: State) -> dict[str, str]:
    flight, day = _plan(state)
    return {"origin": flight["origin"], "destination": flight["destination"], "date": day}


def _planned_date(rng: random.Random, state: State) -> str:
    return _plan(state)[1]


def _planned_cabin(rng: random.Random, state: State) -> str:
    flight, day = _plan(state)
    return ("economy", "economy", "business", "basic_economy", "economy")[(ord(flight["flight_number"][-1]) + int(day[-2:])) % 5]


def _corrected_passenger(rng: random.Random, state: State) -> dict[str, str]:
    last = rng.choice(LAST_NAMES)
    if rng.random() < 0.25:
        last = f"{last}-{rng.choice([n for n in LAST_NAMES if n != last])}"
    born = date(1950, 1, 1) + timedelta(days=rng.randrange(0, 365 * 55))
    return {"new_first_name": rng.choice(FIRST_NAMES), "new_last_name": last, "new_date_of_birth": born.isoformat()}


IDENTITY = Identity(
    table="customers", tools=("find_customer_by_email", "find_customer_by_membership"), output_field="customer_id",
    owners={"reservations": "customer_id"}, self_params=("email", "membership_number"),
    requirement="Identify the member by email or Larkmiles membership number before acting on their profile or "
                "reservations.",
    signed_in="The member is signed in to the Skylark app as {first_name} {last_name} ({email}), so they are already "
              "identified; act only on their own profile and reservations.",
)


LANGUAGE = Language(
    scope="Skylark Airways flights, reservations, bags and Larkmiles profiles",
    intents={
        "find_customer_by_email": (
            Intent(ask=("can you pull up my Larkmiles profile? I'm {email}",
                        "I'd like to check my frequent flyer account — it's under {email}", "I fly with you a lot and want to see my Larkmiles profile; the email on it is {email}", "what do you have on file for {email}?"),
                   answer=("I found your Larkmiles profile, {name}; you're a {tier:status} member.",
                           "Thanks, {name}, I have your profile up ({tier:status} tier).",
                           "Your profile is under {name}, at {tier:status} tier."),
                   context=("the account is under {email}", "{email} is the email on my Larkmiles account", "I'm {email}", "you can reach my profile through {email}",
                            "you can find me by my email, {email}", "my Larkmiles login is {email}", "I signed up with {email}", "I'm registered as {email}", "{email} is what I booked with", "my bookings are under {email}", "the profile email is {email}", "I travel with you as {email}", "my Larkmiles account uses {email}", "I'm registered with {email} for Larkmiles", "profile email: {email}")),
        ),
        "find_customer_by_membership": (
            Intent(ask=("can you look up my Larkmiles membership {membership_number}?",
                        "my member number is {membership_number} — can you find my profile?", "look up Larkmiles member {membership_number}", "my card says {membership_number}; can you see my account?"),
                   answer=("I found your Larkmiles profile, {name}; you're a {tier:status} member.",
                           "Thanks, {name}, I have your profile up ({tier:status} tier).",
                           "Your profile is under {name}, at {tier:status} tier."),
                   context=("my Larkmiles number is {membership_number}", "my membership number is {membership_number}",
                            "I'm member {membership_number}", "I'm a Larkmiles member, number {membership_number}", "{membership_number} is my Larkmiles number", "my frequent flyer number is {membership_number}", "you'll have me as member {membership_number}", "I fly on Larkmiles number {membership_number}", "Larkmiles number: {membership_number}")),
        ),
        "get_customer_details": (
            Intent(ask=("what tier am I, and how many miles do I have?", "how many miles do I have, and what tier is that?", "how many Larkmiles miles do I have right now?", "what's my miles balance?", "I want to know if I can afford an award ticket; how many miles and what tier do I have?"),
                   answer=("You're a {tier:status} member with {miles_balance} miles.",
                           "Your balance is {miles_balance} miles, and your tier is {tier:status}.",
                           "{name}, you have {miles_balance} miles at {tier:status} tier.")),
            Intent(ask=("which email and phone number are on my profile?", "is my phone number still right on my profile? What do you have?", "what phone and email do you have for me?", "what contact details do you have for me?"),
                   answer=("Your profile has {email} and {phone} on file.",
                           "We have {email} as your email and {phone} as your phone number.",
                           "The contact details on file are {phone} and {email}.")),
            Intent(ask=("I forgot my membership number — what is it?", "what's my member number?", "what's my Larkmiles number again?", "can you remind me of my Larkmiles number?"),
                   answer=("Your Larkmiles membership number is {membership_number}.",
                           "It's {membership_number}.",
                           "The membership number on your profile is {membership_number}.")),
        ),
        "search_flights": (
            Intent(ask=("are there any flights from {origin} to {destination} on {date}?", "which flights go {origin} to {destination} on {date}?",
                        "I need to get from {origin} to {destination} on {date} — what flights do you have?",
                        "what can I fly from {origin} to {destination} on {date}?", "any flights {origin} to {destination} on {date}?", "I have a meeting in {destination}; which flights leave {origin} on {date}?", "show me {origin} to {destination} on {date}",
                        "are there any flights from {origin} to {destination} on {date}? I'd fly {cabin}",
                        "I need to get from {origin} to {destination} on {date} — what's available in {cabin}?",
                        "what {cabin} fares do you have from {origin} to {destination} on {date}?"),
                   answer=("From {origin_city} to {destination_city} on {date:date} I found {flights:n:direct flight}: {flights:list:flight_number|departure_time@time|price@money}.",
                           "Flights on {date:date}, {origin_city} to {destination_city}: {flights:list:flight_number|departure_time@time|price@money}.",
                           "These fly {origin_city} to {destination_city} on {date:date}: {flights:list:flight_number|departure_time@time|seats_available#~open seat}.",
                           "{?flights=}There are {flights:n:direct flight} from {origin_city} to {destination_city} on {date:date}."),
                   context=("I want to fly from {origin} to {destination} on {date}",
                            "I'm travelling from {origin} to {destination} on {date}",
                            "I want to fly from {origin} to {destination} on {date} in {cabin}",
                            "the trip is {origin} to {destination} on {date}, {cabin} cabin", "I'm heading from {origin} to {destination} on {date}", "I'm going {origin} to {destination} on {date}", "I fly out of {origin} to {destination} on {date}", "I need to be in {destination} on {date}, leaving from {origin}")),
        ),
        "get_flight_status": (
            Intent(ask=("is {flight_number} on {date} on time?", "what's the status of {flight_number} on {date}?",
                        "has {flight_number} on {date} been delayed or cancelled?", "I'm picking someone up off {flight_number} on {date}; any news on timing?", "{flight_number} on {date}, any delays?", "is {flight_number} still going on {date}?", "what's the latest on {flight_number} on {date}?", "status of {flight_number}, {date}?", "did {flight_number} on {date} leave on schedule?", "my mum is flying {flight_number} on {date}; any delay?"),
                   answer=("{?status~cancelled}{?delay_minutes=0}Flight {flight_number} is on time, leaving {scheduled_departure:when}.",
                           "{?status~cancelled}{?delay_minutes~0}Flight {flight_number} is running {delay_minutes} minutes late and should now leave {estimated_departure:when}.",
                           "{?status~cancelled}{flight_number} shows as {status:status}, with departure expected {estimated_departure:when}.",
                           "{?status=cancelled}Flight {flight_number} is cancelled; it was due to leave {scheduled_departure:when}.",
                           "{?status=cancelled}I'm sorry: {flight_number} on {date:date} has been cancelled."),
                   context=("my flight is {flight_number} on {date}", "I'm booked on {flight_number} on {date}", "I'm on {flight_number} on {date}", "I have a seat on {flight_number} on {date}")),
            Intent(ask=("which terminal and gate does {flight_number} leave from on {date}?", "which gate does {flight_number} on {date} use?",
                        "where do I board {flight_number} on {date}?", "what gate is {flight_number} on {date}?", "I'm on my way to the airport; what terminal is {flight_number} on {date}?"),
                   answer=("Flight {flight_number} leaves from terminal {terminal}, gate {gate}.",
                           "You'll board {flight_number} at gate {gate} in terminal {terminal}.",
                           "Head to terminal {terminal}; {flight_number} departs from gate {gate}."),
                   context=("I'm flying {flight_number} on {date}",)),
        ),
        "get_reservation_details": (
            Intent(ask=("can you give me the details of {reservation_id}?", "bring up {reservation_id}", "what's booked on {reservation_id}?", "when does {reservation_id} leave, and from where?",
                        "what flight am I on for {reservation_id}?", "I lost the email for {reservation_id}; what are the flight details?"),
                   answer=("Reservation {reservation_id} is on flight {flight_number} from {origin} to {destination} on {date:date}, departing at {departure_time:time}.",
                           "You're on {flight_number}, {origin} to {destination}, leaving {date:date} at {departure_time:time} (reservation {reservation_id}, {status:status}).",
                           "Booking {reservation_id}: {flight_number} on {date:date}, {departure_time:time} from {origin}, arriving in {destination} at {arrival_time:time}."),
                   context=("I'm calling about {reservation_id}", "it's about {reservation_id}",
                            "it's regarding {reservation_id}", "my booking is {reservation_id}", "I have {reservation_id} with you", "the confirmation code is {reservation_id}")),
            Intent(ask=("how many checked bags do I have on {reservation_id}?", "how many bags are checked on {reservation_id}?",
                        "how many bags can I check for free on {reservation_id}?"),
                   answer=("Reservation {reservation_id} has {checked_bags:n:checked bag}, with {free_bag_allowance:n:free checked bag} on your fare.",
                           "You have {checked_bags:n:checked bag} on {reservation_id}; your fare includes {free_bag_allowance:n:free bag}.",
                           "Your fare on {reservation_id} includes {free_bag_allowance:n:free checked bag}, and you have {checked_bags:n:checked bag} so far.")),
            Intent(ask=("how much have I paid for {reservation_id} so far?", "how much has {reservation_id} cost so far?", "what did {reservation_id} cost me?", "I'm doing my expenses; how much have I paid on {reservation_id}?"),
                   answer=("You've paid {total_paid:money} for reservation {reservation_id}.",
                           "So far {total_paid:money} has been paid on {reservation_id}.",
                           "The payments on {reservation_id} come to {total_paid:money}.")),
        ),
        "book_reservation": (
            Intent(ask=("please book {passenger_ids} on {flight_number} on {date} in {cabin}, and charge {payment_method_id}", "book {flight_number} on {date} for {passenger_ids}, {cabin}, on {payment_method_id}", "get {passenger_ids} a {cabin} seat on {flight_number} on {date}; charge {payment_method_id}",
                        "I'd like {cabin} seats on {flight_number} on {date} for {passenger_ids}; pay with {payment_method_id}",
                        "can you reserve {flight_number} on {date} for {passenger_ids}? {cabin}, on {payment_method_id}"),
                   answer=("You're booked: reservation {reservation_id} on flight {flight_number} on {date:date} in {cabin:status}; {charge.amount:money} was charged to your {charge.method_label}.",
                           "All set. Your confirmation is {reservation_id}: {flight_number}, {date:date} at {departure_time:time}, {cabin:status}. We charged {charge.amount:money} to the {charge.method_label}.",
                           "Reservation {reservation_id} is confirmed for {flight_number} from {origin} to {destination} on {date:date}, and {charge.method_label} was charged {charge.amount:money}.")),
        ),
        "cancel_reservation": (
            Intent(ask=("please cancel {reservation_id} — the reason is {reason}", "I have to cancel {reservation_id} ({reason})",
                        "I need to cancel {reservation_id} and get my money back; reason: {reason}",
                        "can you cancel {reservation_id} for me? Reason for cancelling: {reason}", "cancel {reservation_id}, {reason}"),
                   answer=("Reservation {reservation_id} is cancelled, and {refund_total:money} will be refunded to your original payment method.",
                           "I've cancelled {reservation_id}; a refund of {refund_total:money} is on its way: {refunds:list:method_label|amount@money}.",
                           "{reservation_id} is now cancelled. You'll get {refund_total:money} back.")),
        ),
        "change_flight_date": (
            Intent(ask=("can you move {reservation_id} to {new_date}? Use {payment_method_id} for any fare difference", "rebook {reservation_id} for {new_date}; charge any difference to {payment_method_id}",
                        "I need to fly on {new_date} instead for {reservation_id}; settle the difference on {payment_method_id}",
                        "please change the date of {reservation_id} to {new_date}, with {payment_method_id} for the difference", "my plans changed; move {reservation_id} to {new_date} and put any difference on {payment_method_id}"),
                   answer=("{?payment_direction=charged}Reservation {reservation_id} is now on {date:date}; the fare difference of {payment.amount:money} was charged to your {payment.method_label}.",
                           "{?payment_direction=refunded}Reservation {reservation_id} is now on {date:date}, and the fare difference of {payment.amount:money} was refunded to your {payment.method_label}.",
                           "Done: {reservation_id} now flies on {date:date} at {departure_time:time} ({flight_number}); the fare difference was {payment.amount:money}, {payment_direction:status} on the {payment.method_label}.")),
        ),
        "add_checked_bags": (
            Intent(ask=("I'd like to add {additional_bags} checked bags to {reservation_id}, paid with {payment_method_id}", "add {additional_bags} bags to {reservation_id} and bill {payment_method_id}",
                        "can I check {additional_bags} more bags on {reservation_id}? Put any fee on {payment_method_id}",
                        "please add {additional_bags} extra checked bags to {reservation_id}; any fee goes on {payment_method_id}", "we're bringing more luggage: {additional_bags} more checked bags on {reservation_id}, charged to {payment_method_id}"),
                   answer=("Reservation {reservation_id} now has {checked_bags:n:checked bag}; the bag fee came to {fee.amount:money}.",
                           "I added the bags: {reservation_id} has {checked_bags:n:checked bag} in total, and {fee.amount:money} went on your {fee.method_label}.",
                           "Your bags are on {reservation_id} ({checked_bags:n:checked bag} now), for a fee of {fee.amount:money}.")),
        ),
        "update_passenger_details": (
            Intent(ask=("the details of {passenger_id} on {reservation_id} are wrong — it should be {new_first_name} "
                        "{new_last_name}, born {new_date_of_birth}",
                        "fix {passenger_id}'s name on {reservation_id}: {new_first_name} {new_last_name}, born {new_date_of_birth}",
                        "please correct {passenger_id} on {reservation_id} to {new_first_name} {new_last_name}, "
                        "date of birth {new_date_of_birth}, as on the passport"),
                   answer=("The passenger on {reservation_id} now reads {first_name} {last_name}, born {date_of_birth:date}.",
                           "Fixed: {previous_name} on {reservation_id} is now {first_name} {last_name}, date of birth {date_of_birth:date}.",
                           "I corrected the passenger details on {reservation_id} to {first_name} {last_name} ({date_of_birth:date}).")),
        ),
    },
    references={
        "customer_id": Reference(noun="profile", plural="profiles", by_id=("profile {value}",), user_knows_id=False),
        "reservation_id": Reference(
            noun="reservation", plural="reservations",
            by_id=("reservation {value}", "booking {value}", "confirmation code {value}", "my booking {value}", "trip {value}"),
            by_field={"destination_city": ("my trip to {value}", "my reservation to {value}"),
                      "date": ("my reservation on {value}", "the booking for {value}")},
            superlative={"total_paid": ("my most expensive booking", "my cheapest booking")},
        ),
        "flight_number": Reference(
            noun="flight", plural="flights", by_id=("flight {value}", "{value}"),
            by_field={"departure_time": ("the {value} departure", "the flight leaving at {value}"),
                      "destination_city": ("the flight to {value}", "my flight to {value}")},
            superlative={"price": ("the most expensive flight", "the cheapest flight"),
                         "duration_minutes": ("the longest flight", "the quickest flight"),
                         "seats_available": ("the flight with the most seats left", "the flight with the fewest seats left")},
        ),
        "passenger_id": Reference(noun="passenger", plural="passengers", user_knows_id=False,
                                  by_field={"first_name": ("{value}", "the passenger {value}"),
                                            "date_of_birth": ("the passenger born on {value}",)}),
        "payment_method_id": Reference(noun="payment method", plural="payment methods", user_knows_id=False,
                                       by_field={"label": ("my {value}", "the {value}"),
                                                 "method_label": ("my {value}", "the {value}")}),
    },
    entity_tables={"customer_id": "customers", "reservation_id": "reservations", "flight_number": "flights"},
    values={
        # the ask templates say "bags": a request adds two or three (one bag would read "1 more bags")
        "add_checked_bags.additional_bags": lambda rng, state: rng.choice((2, 3)),
        "email": lambda rng, state: _customer(rng, state)["email"],
        "membership_number": lambda rng, state: _customer(rng, state)["membership_number"],
        "search_flights": _planned_search,
        "date": _planned_date,
        "cabin": _planned_cabin,
        "change_flight_date.new_date": _date_between(1, SCHEDULE_AFTER),
        "update_passenger_details": _corrected_passenger,
        "cancel_reservation.reservation_id": _reservation_where(_cancellable),
        "change_flight_date.reservation_id": _reservation_where(_changeable),
        "add_checked_bags.reservation_id": _reservation_where(_is_open),
        "update_passenger_details.reservation_id": _reservation_where(_is_open),
    },
    eligible={
        "cancel_reservation.reservation_id": _cancellable,
        "change_flight_date.reservation_id": _changeable,
        "add_checked_bags.reservation_id": _is_open,
        "update_passenger_details.reservation_id": _is_open,
    },
    field_nouns={
        "price": "fare", "total_paid": "amount paid", "miles_balance": "miles balance", "balance": "remaining balance",
        "duration_minutes": "flight time in minutes", "delay_minutes": "delay in minutes",
        "seats_available": "seats left", "fare_per_passenger": "fare per passenger",
        "fare_difference": "fare difference", "refund_total": "refund total",
        "free_bag_allowance": "free checked-bag allowance", "checked_bags": "checked bags",
        "chargeable_bags": "bags charged", "date": "travel date", "departure_time": "departure time",
        "estimated_departure": "expected departure", "amount": "amount",
    },
    out_of_scope=(
        "Can you find me a hotel near the airport in Denver for Friday night?",
        "I need a rental car when I land in Phoenix — can you reserve one?",
        "Do I need a visa to visit Japan on a US passport?",
        "What's the weather going to be like in Miami this weekend?",
        "Can you recommend a good seafood restaurant in Boston?",
        "How do I apply for TSA PreCheck?",
        "What's the exchange rate from dollars to euros today?",
        "Can you book me a train from New York to Philadelphia?",
        "Which credit card gives the best travel rewards?",
        "Can you help me write a complaint letter to my landlord?",
        # near the domain: requests the tools look like they could serve, but do not
        "Can you pick a window seat for me on flight {flights.flight_number}?",
        "Could you order a vegetarian meal for me on {flights.flight_number}?",
        "Another airline has a cheaper fare to {airports.city}. Can you price-match it?",
        "Can you transfer some of my Larkmiles to my friend's account?",
        "Can you get me into the lounge at {airports.name}? I'm flying economy.",
        "Can you find me a hotel near {airports.name} for tonight?",
        "How much is Wi-Fi on board {flights.flight_number}, and can you buy it for me?",
        "Can I bring my cat in the cabin? Please add her to my reservation.",
        "Can you put me on standby for an earlier flight today?",
        "I left my laptop on flight {flights.flight_number}. Can you track it down?",
        "Can you upgrade my Larkmiles membership to the top tier?",
        "Can you file a compensation claim for my delayed suitcase?",
        "Can you hold the departure of {flights.flight_number} for ten minutes? My connection is late.",
        "What's the security wait at {airports.name} right now?",
        "Can I buy extra Larkmiles to top up my balance?",
        "Can you book a wheelchair to meet me at the gate in {airports.city}?",
    ),
    identity=IDENTITY,
)
