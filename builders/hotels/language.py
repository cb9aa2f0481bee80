"""How guests of the booking service talk: intents per tool, references to entities, value samplers."""

from __future__ import annotations

import random
from datetime import date, timedelta
from typing import Any

from builders.hotels.env import MAX_SPECIAL_REQUESTS, MIN_REDEMPTION
from builders.hotels.state import ACTIVE, POINT_VALUE_USD, REQUEST_IDEAS
from covert.env import Intent, Language, Reference, State
from covert.env.policy import Identity


def _today(state: State) -> date:
    return date.fromisoformat(state.get("meta", "clock")["today"])


def _guest(rng: random.Random, state: State) -> dict[str, Any]:
    return state.get("guests", rng.choice(state.ids("guests")))


def _trip(state: State) -> tuple[date, int, int]:
    """The stay this state's user has in mind: ``(check-in, nights, party size)``.

    Derived from the state alone, so a search, an availability check and a booking in one task all use
    the same dates and party.
    """
    text = state.get("meta", "clock")["today"] + "".join(state.ids("guests")[:2])
    key = sum((i + 1) * ord(c) for i, c in enumerate(text))
    start = _today(state) + timedelta(days=5 + key % 75)
    return start, 1 + (key // 75) % 5, (1, 2, 2, 2, 2, 3)[(key // 7) % 6]


def _stay(rng: random.Random, state: State, first: str = "check_in", last: str = "check_out") -> dict[str, str]:
    start = _today(state) + timedelta(days=rng.randrange(5, 120))
    return {first: start.isoformat(), last: (start + timedelta(days=rng.randint(1, 5))).isoformat()}


def _planned(state: State) -> dict[str, Any]:
    start, nights, party = _trip(state)
    return {"check_in": start.isoformat(), "check_out": (start + timedelta(days=nights)).isoformat(), "guests": party}


def _city(rng: random.Random, state: State) -> str:
    return rng.choice(sorted({h["city"] for _, h in state.records("hotels")}))


def _search(rng: random.Random, state: State) -> dict[str, Any]:
    city = _city(rng, state)
    prices = sorted(r["price_per_night"] for h in state.find("hotels", city=city) for r in h["room_types"])
    cap = float(50 * (int(prices[rng.randrange(len(prices))]) // 50 + 1))
    return {"city": city, **_planned(state), "max_price_per_night": cap}


def _max_price(rng: random.Random, state: State) -> float:
    prices = sorted(r["price_per_night"] for _, h in state.records("hotels") for r in h["room_types"])
    return float(50 * (int(prices[rng.randrange(len(prices))]) // 50 + 1))


def _booking_where(test):
    """A booking ``test(state, booking)`` accepts (any booking when none does)."""
    def sample(rng: random.Random, state: State) -> str:
        return rng.choice([k for k, b in state.records("bookings") if test(state, b)] or state.ids("bookings"))
    return sample


def _cancellable(state: State, booking: dict[str, Any]) -> bool:
    """Confirmed, and flexible or still inside its free-cancellation window."""
    return booking["status"] == "confirmed" and (booking["rate_plan"] == "flexible"
                                                 or state.get("meta", "clock")["today"] <= booking["cancellation_deadline"])


def _changeable(state: State, booking: dict[str, Any]) -> bool:
    """Confirmed, and its cancellation deadline (until which dates can move) not passed."""
    return booking["status"] == "confirmed" and state.get("meta", "clock")["today"] <= booking["cancellation_deadline"]


def _redeemable(state: State, booking: dict[str, Any]) -> bool:
    """Confirmed, with enough left to pay and a guest with points to redeem on it."""
    guest = state.get("guests", booking["guest_id"]) or {}
    return booking["status"] == "confirmed" and guest.get("points_balance", 0) >= 5000 and booking["amount_paid"] >= 25


def _requestable(state: State, booking: dict[str, Any]) -> bool:
    """An upcoming or current stay with room for another special request."""
    return booking["status"] in ACTIVE and len(booking["special_requests"]) < MAX_SPECIAL_REQUESTS


# what a call needs of its booking (the tool fails on any other), for Language.eligible
def _can_cancel(state: State, booking: dict[str, Any]) -> bool:
    return booking["status"] == "confirmed" and (booking["rate_plan"] != "nonrefundable"
                                                 or state.get("meta", "clock")["today"] <= booking["cancellation_deadline"])


def _can_redeem(state: State, booking: dict[str, Any]) -> bool:
    guest = state.get("guests", booking["guest_id"]) or {}
    return (booking["status"] == "confirmed" and guest.get("points_balance", 0) >= MIN_REDEMPTION
            and booking["amount_paid"] >= MIN_REDEMPTION * POINT_VALUE_USD)


IDENTITY = Identity(
    table="guests", tools=("find_guest_by_email", "find_guest_by_loyalty_number"), output_field="guest_id",
    owners={"bookings": "guest_id"}, self_params=("email", "loyalty_number"),
    requirement="Identify the guest by email or Wayfarer Rewards number before acting on their profile or bookings.",
    signed_in="The guest is signed in to the Wayfarer app as {first_name} {last_name} ({email}), so they are already "
              "identified; act only on their own profile and bookings.",
)


LANGUAGE = Language(
    scope="hotel searches, room bookings, changes and cancellations, and Wayfarer Rewards points",
    intents={
        "find_guest_by_email": (
            Intent(ask=("can you find my guest profile? I'm {email}",
                        "I'd like to check my account with you, the email on it is {email}", "I'm {email} — what do you have on my profile?", "look up the guest profile for {email}"),
                   answer=("Thanks, {name}, I found your profile.",
                           "I have your profile up, {name}.",
                           "Your profile is under {name}."),
                   context=("I booked under {email}", "the email on my account is {email}", "I'm {email}", "look me up as {email}", "my reservations are under {email}", "I stay with you under {email}", "{email} is the address I book with", "you'll have me as {email}", "my Wayfarer account uses {email}", "I signed up as {email}", "I'm in your system as {email}", "my stays are booked under {email}", "my Wayfarer profile is {email}", "I usually book with {email}", "account email: {email}")),
        ),
        "find_guest_by_loyalty_number": (
            Intent(ask=("can you find my account? My Wayfarer Rewards number is {loyalty_number}", "find me by rewards number {loyalty_number}",
                        "I'm a rewards member, number {loyalty_number}; can you look me up?", "look up rewards member {loyalty_number}"),
                   answer=("Thanks, {name}, I found your profile.",
                           "I have your profile up, {name}.",
                           "Your profile is under {name}."),
                   context=("my rewards number is {loyalty_number}", "my member number is {loyalty_number}",
                            "I'm Wayfarer Rewards member {loyalty_number}", "{loyalty_number} is my rewards number", "my Wayfarer number is {loyalty_number}", "I'm in your rewards program as {loyalty_number}", "my loyalty card says {loyalty_number}", "rewards number: {loyalty_number}")),
        ),
        "get_guest_profile": (
            Intent(ask=("which contact details do you have on file for me?", "which email and phone number do you have for me?", "what phone number do you have for me?", "what email and phone are on my profile?"),
                   answer=("Your profile is under {name}, with {email} and {phone} on file.",
                           "We have {email} and {phone} for you.",
                           "The contact details on file are {phone} and {email}.")),
            Intent(ask=("what's my membership tier?", "what tier am I on?", "which rewards level am I at?", "what status do I have with you?"),
                   answer=("You're a {loyalty_tier} member, number {loyalty_number}.",
                           "Your Wayfarer Rewards tier is {loyalty_tier}.",
                           "{name}, you're at {loyalty_tier} tier (member {loyalty_number}).")),
        ),
        "get_loyalty_account": (
            Intent(ask=("how many points do I have?", "how many Wayfarer points are in my account?", "what's my rewards balance and what is it worth?",
                        "could you check my points balance?", "points balance?", "I'm thinking of a free night; how many points have I got?"),
                   answer=("You have {points_balance} points, worth {points_value:money}.",
                           "Your balance is {points_balance} points, about {points_value:money} toward a stay.",
                           "{points_balance} points are on your account ({points_value:money} in value).")),
            Intent(ask=("how close am I to the next tier?", "how many nights until I get the next tier?", "how many more nights until I move up a tier?", "what do I need for the next status level?"),
                   answer=("You're {tier} with {qualifying_nights:n:qualifying night} this year; {nights_to_next_tier:n:more night} reach {next_tier}.",
                           "{nights_to_next_tier:n:more night} and you reach {next_tier}.",
                           "With {qualifying_nights:n:qualifying night} you're {tier}; {next_tier} is {nights_to_next_tier:n:night} away.")),
        ),
        "search_hotels": (
            Intent(ask=("I need a hotel in {city} from {check_in} to {check_out} for {guests}",
                        "what hotels do you have in {city}? Checking in {check_in}, out {check_out}, party of {guests}",
                        "can you find me somewhere to stay in {city}, {check_in} to {check_out}, for {guests}?", "we're visiting {city}; which hotels have a room {check_in} to {check_out} for {guests}?", "what hotels are there in {city}, {check_in} to {check_out}, for {guests}?",
                        "anything in {city} under {max_price_per_night} dollars a night? {check_in} to {check_out}, "
                        "party of {guests}",
                        "I'm on a budget: {city}, {check_in} to {check_out}, party of {guests}, at most "
                        "{max_price_per_night} a night"),
                   answer=("In {city} from {check_in:date} to {check_out:date} I found {hotels:list:hotel_name|lowest_price_per_night@money#from}.",
                           "In {city}, {total_results:n:hotel} can take you: {hotels:list:hotel_name|guest_rating#rated}; the cheapest is {cheapest_hotel} from {from_price_per_night:money} a night.",
                           "Options in {city}: {hotels:list:hotel_name|star_rating#~star|lowest_price_per_night@money#from}.",
                           "{?hotels=}I found {total_results:n:hotel} in {city} with a room for those dates."),
                   context=("I'm going to {city} from {check_in} to {check_out}, party of {guests}",
                            "I'm going to {city}", "we'll be in {city}", "it's for a trip to {city}",
                            "I'm looking in {city}, at most {max_price_per_night} a night",
                            "it's for {city}, and I don't want to pay more than {max_price_per_night} a night",
                            "we'll be in {city} {check_in} to {check_out}, party of {guests}", "{guests} of us are travelling to {city}, {check_in} to {check_out}", "the stay is in {city}, {check_in} to {check_out}, {guests} guests",
                            "I want a room for {guests} in {city} from {check_in} to {check_out}, under "
                            "{max_price_per_night} a night",
                            "the trip is {city}, {check_in} to {check_out}, a room for {guests}, and I'd rather not "
                            "pay more than {max_price_per_night} a night")),
            Intent(ask=("how many hotels in {city} still have a room for {guests} from {check_in} to {check_out}?",
                        "is there anything left in {city} for {guests}, {check_in} to {check_out}?", "I left it late; how many hotels in {city} still have rooms for {guests} from {check_in} to {check_out}?",
                        "how many places in {city} have a room for {guests} under {max_price_per_night} a night, "
                        "{check_in} to {check_out}?"),
                   answer=("{total_results:n:hotel} in {city} still have rooms for those {nights:n:night}, the cheapest being {cheapest_hotel} at {from_price_per_night:money} a night.",
                           "I count {total_results:n:hotel} with space in {city}.",
                           "There are {total_results:n:hotel} available in {city} from {check_in:date} to {check_out:date}.")),
        ),
        "get_room_availability": (
            Intent(ask=("what rooms does {hotel_id} have from {check_in} to {check_out} for {guests}?", "show me the rooms at {hotel_id} for {guests}, {check_in} to {check_out}",
                        "is there still a room at {hotel_id} for {guests}, {check_in} to {check_out}?",
                        "how much would {hotel_id} cost for {guests} from {check_in} to {check_out}?", "I'm comparing prices; what rooms and rates does {hotel_id} have for {guests}, {check_in} to {check_out}?"),
                   answer=("{hotel_name} has these rooms from {check_in:date} to {check_out:date}: {rooms:list:room_name|price_per_night@money}.",
                           "Available at {hotel_name}: {rooms:list:room_name|bed_type|total_price@money}.",
                           "For your dates {hotel_name} offers {rooms:list:room_name|price_per_night@money}; check-in is from {check_in_time:time}."),
                   context=("I'm looking at {hotel_id} for {check_in} to {check_out}, party of {guests}",
                            "I'd want a room for {guests} at {hotel_id} from {check_in} to {check_out}")),
            Intent(ask=("what are the check-in and check-out times at {hotel_id}? We'd stay {check_in} to "
                        "{check_out}, party of {guests}",
                        "I'm thinking of {hotel_id} for {guests} from {check_in} to {check_out}; when can we "
                        "check in and when do we have to leave?"),
                   answer=("Check-in at {hotel_name} is from {check_in_time:time} and check-out is by {check_out_time:time}.",
                           "At {hotel_name} you can check in from {check_in_time:time}; please check out by {check_out_time:time}.",
                           "{hotel_name}: check-in {check_in_time:time}, check-out {check_out_time:time}.")),
        ),
        "get_booking_details": (
            Intent(ask=("can you give me the details of {booking_id}?", "bring up {booking_id}", "what hotel is {booking_id} at, and for which dates?", "what's the status of {booking_id}?",
                        "what did I book under {booking_id}?", "remind me what {booking_id} is for", "I lost the confirmation for {booking_id}; what are the details?"),
                   answer=("Booking {booking_id} at {hotel_name} is {status:status}: {check_in:date} to {check_out:date}, {total:money} in total.",
                           "Your stay at {hotel_name} ({booking_id}) runs {check_in:date} to {check_out:date} in the {room_name}, for {total:money}.",
                           "{booking_id}: {hotel_name}, {nights:n:night} from {check_in:date}, {status:status}, {amount_paid:money} paid."),
                   context=("it's about {booking_id}", "I have {booking_id} with you",
                            "I'm calling about {booking_id}")),
            Intent(ask=("until when can I cancel {booking_id} for free?", "can I still cancel {booking_id} for free, and until when?", "what's the last day to cancel {booking_id} without paying?", "what's the cancellation deadline on "
                        "{booking_id}?"),
                   answer=("{?free_cancellation=yes}You can cancel booking {booking_id} free of charge until {cancellation_deadline:date}.",
                           "{?free_cancellation=yes}Free cancellation on {booking_id} runs until {cancellation_deadline:date}.",
                           "{?status=confirmed}{?free_cancellation=no}The free-cancellation window for {booking_id} closed on {cancellation_deadline:date}, so cancelling now would cost a fee.",
                           "{?status~confirmed}Booking {booking_id} is already {status:status}, so there's nothing left to cancel.")),
        ),
        "book_room": (
            Intent(ask=("please book {room_type_id} at {hotel_id} from {check_in} to {check_out} for {guests}, "
                        "charged to {payment_method_id}",
                        "I'd like to reserve {room_type_id} at {hotel_id}, {check_in} to {check_out}, party of {guests}; "
                        "put it on {payment_method_id}",
                        "book {room_type_id} at {hotel_id} for {guests}, {check_in} to {check_out}, on the "
                        "{rate_plan} rate, paid with {payment_method_id}",
                        "let's go with {room_type_id} at {hotel_id}: {check_in} to {check_out}, for {guests}, "
                        "{rate_plan} rate, on {payment_method_id}"),
                   answer=("You're booked: confirmation {booking_id}, the {room_name} at {hotel_name} from {check_in:date} to {check_out:date}, {total:money} in total.",
                           "Your stay at {hotel_name} is confirmed under {booking_id} ({check_in:date} to {check_out:date}, {total:money}).",
                           "All set: {booking_id}, {room_name}, {nights:n:night} at {hotel_name}; you'll earn {points_to_earn} points.")),
            Intent(ask=("reserve {room_type_id} at {hotel_id} for {guests} from {check_in} to {check_out} on "
                        "{payment_method_id}, and tell me until when I can cancel for free",
                        "please book {room_type_id} at {hotel_id}, {check_in} to {check_out}, for {guests}, "
                        "{rate_plan} rate, charged to {payment_method_id}; what's the cancellation deadline?"),
                   answer=("{?rate_plan=flexible}Booking {booking_id} is confirmed for {total:money}; you can cancel free of charge until {cancellation_deadline:date}.",
                           "{?rate_plan=flexible}You're booked at {hotel_name} ({booking_id}, {total:money}); free cancellation runs until {cancellation_deadline:date}.",
                           "{?rate_plan~flexible}Booking {booking_id} is confirmed for {total:money} at the {rate_plan} rate, which can only be cancelled until {cancellation_deadline:date}.")),
        ),
        "cancel_booking": (
            Intent(ask=("please cancel {booking_id}, {reason}", "I won't make it, cancel {booking_id}: {reason}", "I need to cancel {booking_id} — {reason}",
                        "can you call off {booking_id}? Reason: {reason}", "cancel {booking_id}: {reason}"),
                   answer=("Booking {booking_id} is cancelled; the fee is {cancellation_fee:money:refund.currency} and {refund.amount:money} goes back to your card or account on file.",
                           "I cancelled your stay at {hotel_name} ({booking_id}); you'll get {refund.amount:money} back.",
                           "{booking_id} is cancelled as of {cancelled_on:date}, with a refund of {refund.amount:money}.")),
        ),
        "change_booking_dates": (
            Intent(ask=("can I move {booking_id} to {new_check_in} through {new_check_out}?", "change {booking_id} to check in {new_check_in} and out {new_check_out}",
                        "please change the dates of {booking_id}: check in {new_check_in}, check out {new_check_out}",
                        "my plans shifted, I'd like {booking_id} to run {new_check_in} to {new_check_out} instead", "shift {booking_id} to {new_check_in} through {new_check_out}", "we're arriving later; change {booking_id} to {new_check_in} through {new_check_out}"),
                   answer=("{?price_difference~0}Booking {booking_id} now runs {check_in:date} to {check_out:date}; the new total is {total:money} (it was {previous_total:money}).",
                           "Your stay at {hotel_name} is moved to {check_in:date} through {check_out:date} ({total:money} now).",
                           "{?price_difference~0}I changed {booking_id} to {check_in:date} to {check_out:date}; the total went from {previous_total:money} to {total:money}.",
                           "{?price_difference=0}I changed {booking_id} to {check_in:date} to {check_out:date}, at the same price of {total:money}.")),
        ),
        "add_special_request": (
            Intent(ask=("for {booking_id}, could you ask the hotel for {request}?", "one thing for {booking_id}: we'd like {request}", "tell the hotel for {booking_id} we need {request}",
                        "please add a request to {booking_id}: {request}",
                        "can you note on {booking_id} that we'd like {request}?", "ask the hotel for {request} on {booking_id}"),
                   answer=("I've passed your request for {added_request} to {hotel_name} for booking {booking_id}.",
                           "{hotel_name} has your request: {added_request}.",
                           "Added to {booking_id}: {added_request}.")),
        ),
        "redeem_points": (
            Intent(ask=("I'd like to use {points} of my points on {booking_id}", "redeem {points} points on {booking_id}", "take {points} points off the bill for {booking_id}",
                        "can you apply {points} rewards points to {booking_id}?",
                        "please knock {points} points off {booking_id}", "use {points} points toward {booking_id}", "I've got points to burn; put {points} of them on {booking_id}"),
                   answer=("I redeemed {points_redeemed} points on booking {booking_id}: {credit.amount:money} comes off, and you have {points_balance} points left.",
                           "Your {points_redeemed} points took {credit.amount:money} off {booking_id}; you now pay {amount_paid:money}.",
                           "Done: {credit.amount:money} credit on {booking_id}, {points_balance} points remaining.")),
        ),
    },
    references={
        "guest_id": Reference(noun="guest profile", plural="guest profiles", by_id=("profile {value}",),
                              user_knows_id=False),
        "hotel_id": Reference(
            noun="hotel", plural="hotels", by_id=("hotel {value}",), user_knows_id=False,
            by_field={"hotel_name": ("{value}",),
                      "neighborhood": ("the hotel in {value}", "the place in {value}")},
            superlative={"guest_rating": ("the best-rated hotel", "the lowest-rated hotel"),
                         "lowest_price_per_night": ("the priciest hotel", "the cheapest hotel"),
                         "distance_to_center_km": ("the hotel farthest from the center",
                                                   "the hotel closest to the center")},
        ),
        "room_type_id": Reference(
            noun="room", plural="rooms", by_id=("room type {value}",), user_knows_id=False,
            by_field={"room_name": ("the {value}", "a {value}"), "bed_type": ("the room with {value}",)},
            superlative={"price_per_night": ("the most expensive room", "the cheapest room"),
                         "size_sqm": ("the biggest room", "the smallest room")},
        ),
        "booking_id": Reference(
            noun="booking", plural="bookings",
            by_id=("booking {value}", "confirmation number {value}", "my reservation {value}", "my booking {value}", "{value}"),
            by_field={"hotel_name": ("my booking at {value}", "my stay at {value}"),
                      "city": ("my {value} booking", "my stay in {value}"),
                      "check_in": ("my booking checking in on {value}", "the stay starting {value}")},
            superlative={"total": ("my most expensive booking", "my cheapest booking")},
        ),
        "payment_method_id": Reference(
            noun="payment method", plural="payment methods", user_knows_id=False,
            by_field={"brand": ("my {value}", "the {value} on file"), "last_four": ("the card ending in {value}",)},
        ),
    },
    entity_tables={"booking_id": "bookings", "guest_id": "guests", "hotel_id": "hotels"},
    values={
        "email": lambda rng, state: _guest(rng, state)["email"],
        "loyalty_number": lambda rng, state: _guest(rng, state)["loyalty_number"],
        "city": _city,
        "guests": lambda rng, state: _planned(state)["guests"],
        "max_price_per_night": _max_price,
        "request": lambda rng, state: rng.choice(REQUEST_IDEAS),
        "points": lambda rng, state: rng.choice((2000, 2500, 3000, 4000, 5000)),
        "search_hotels": _search,
        "get_room_availability": lambda rng, state: _planned(state),
        "book_room": lambda rng, state: _planned(state),
        "change_booking_dates": lambda rng, state: _stay(rng, state, "new_check_in", "new_check_out"),
        "cancel_booking.booking_id": _booking_where(_cancellable),
        "change_booking_dates.booking_id": _booking_where(_changeable),
        "redeem_points.booking_id": _booking_where(_redeemable),
        "add_special_request.booking_id": _booking_where(_requestable),
        "get_booking_details.booking_id": _booking_where(lambda state, b: True),
    },
    eligible={
        "cancel_booking.booking_id": _can_cancel,
        "change_booking_dates.booking_id": _changeable,
        "redeem_points.booking_id": _can_redeem,
        "add_special_request.booking_id": _requestable,
    },
    field_nouns={"request": "special request", "recent_activity": "points transactions", "points": "points change",
        "total": "booking total", "price_per_night": "nightly rate", "lowest_price_per_night": "lowest nightly rate",
        "nonrefundable_price_per_night": "nonrefundable nightly rate", "total_price": "total price",
        "guest_rating": "guest rating", "star_rating": "star rating", "points_balance": "points balance",
        "points_value": "points value", "cancellation_fee": "cancellation fee", "amount_paid": "amount paid",
        "price_difference": "price difference", "check_in": "check-in date", "check_out": "check-out date",
        "cancellation_deadline": "free-cancellation deadline", "taxes": "taxes and fees",
        "distance_to_center_km": "distance to the center", "size_sqm": "room size", "nights": "number of nights",
        "qualifying_nights": "qualifying nights", "points_to_earn": "points to earn", "points_change": "points",
        "from_price_per_night": "starting nightly rate", "available_rooms": "rooms left", "rooms_left": "rooms left",
    },
    out_of_scope=(
        "Can you book me a flight from Boston to Lisbon next month?",
        "I need a rental car at the Rome airport, can you arrange one?",
        "Do I need a visa to visit Japan on a US passport?",
        "What's the weather going to be like in Barcelona this weekend?",
        "Which restaurants near the Louvre would you recommend for dinner?",
        "What's today's exchange rate between euros and dollars?",
        "Can you buy me tickets for the Sagrada Familia?",
        "Help me write a complaint letter to my airline about lost luggage.",
        "How do I say 'where is the train station' in Italian?",
        "Can you recommend travel insurance for a two-week trip?",
        # near the domain: requests the tools look like they could serve, but do not
        "Can you match the price I found for {hotels.name} on another booking site?",
        "Could you lower the nightly rate at {hotels.name}? A competitor's app has it cheaper.",
        "Can you transfer my Wayfarer points to my airline miles account?",
        "Can you book me a table at the restaurant in {hotels.name} for tonight?",
        "Can you leave a five-star review of {hotels.name} for me?",
        "Can you merge my two Wayfarer accounts into one?",
        "Can you sell me 3,000 extra Wayfarer points? I'm just short of a free night.",
        "Could you bump me up to the next Wayfarer tier now? I'm only a few nights away.",
        "Can you split the bill for my stay across two credit cards?",
        "What's the Wi-Fi password at {hotels.name}?",
        "I think I left my sunglasses at {hotels.name} last week. Can you check lost and found?",
        "Can you book the spa at {hotels.name} for Saturday afternoon?",
        "Can you stop my Wayfarer points from expiring at the end of the year?",
        "Could you sign me up for the Wayfarer credit card?",
        "Can you email my stay invoice straight to my company's finance team?",
        "Can you change the name on my Wayfarer profile to my married name?",
    ),
    identity=IDENTITY,
)
