"""Hotels builder: the uniform contract plus its cases."""

from __future__ import annotations

from datetime import date, timedelta

from covert.env import State
from tests.builders.contract import BuilderContract, Case


def _day(s: State, offset: int) -> str:
    return (date.fromisoformat(s.get("meta", "clock")["today"]) + timedelta(days=offset)).isoformat()


def _guest(s: State) -> dict:
    return s.get("guests", s.ids("guests")[0])


def _valid_method(s: State) -> str:
    month = _day(s, 0)[:7]
    for method in _guest(s)["payment_methods"]:
        if method.get("expires", "9999-12") >= month:
            return method["payment_method_id"]
    raise AssertionError("first guest has no valid payment method")


def _hotel(s: State) -> dict:
    return s.get("hotels", s.ids("hotels")[0])


def _first(s: State) -> str:
    return s.ids("bookings")[0]


def _booking(s: State) -> dict:
    return s.get("bookings", _first(s))


def _stay(s: State, start: int = 100, nights: int = 3) -> dict:
    return {"check_in": _day(s, start), "check_out": _day(s, start + nights)}


def _force(status: str = "confirmed", rate_plan: str = "flexible", late: bool = False, **extra):
    """Setup: make the first booking an upcoming (or late, or other-status) stay so every seed has one."""
    def setup(env) -> None:
        s = env.state
        booking = s.edit("bookings", _first(s))
        start = 1 if late else 20
        booking.update(status=status, rate_plan=rate_plan, check_in=_day(s, start), check_out=_day(s, start + 3),
                       nights=3, booked_on=_day(s, -30),
                       cancellation_deadline=_day(s, -2) if late else _day(s, 15), **extra)
        booking.pop("cancellation", None)
    return setup


def _with(setup, then):
    def both(env) -> None:
        setup(env)
        then(env)
    return both


def _points(balance: int):
    def setup(env) -> None:
        env.state.edit("guests", _booking(env.state)["guest_id"])["points_balance"] = balance
    return setup


def _sell_out(start: int, end: int, room_of_booking: bool = False):
    def setup(env) -> None:
        s = env.state
        if room_of_booking:
            hotel_id, room_id = _booking(s)["hotel_id"], _booking(s)["room_type_id"]
        else:
            hotel_id = s.ids("hotels")[0]
            room_id = s.get("hotels", hotel_id)["room_types"][0]["room_type_id"]
        hotel = s.edit("hotels", hotel_id)
        for room in hotel["room_types"]:
            if room["room_type_id"] == room_id:
                room["sold_out"] = [[_day(s, start), _day(s, end)]]
    return setup


def _expire_first_method(env) -> None:
    guest = env.state.edit("guests", env.state.ids("guests")[0])
    guest["payment_methods"][0] = {"payment_method_id": "card_1111111", "kind": "credit_card", "brand": "Visa",
                                   "last_four": "4242", "expires": "2020-01"}


def _book(s: State, **override) -> dict:
    hotel = _hotel(s)
    args = {"guest_id": s.ids("guests")[0], "hotel_id": hotel["hotel_id"],
            "room_type_id": hotel["room_types"][0]["room_type_id"], **_stay(s), "guests": 1,
            "payment_method_id": _valid_method(s)}
    return {**args, **override}


def _change(s: State, start: int = 100, nights: int = 2) -> dict:
    return {"booking_id": _first(s), "new_check_in": _day(s, start), "new_check_out": _day(s, start + nights)}


MISSING = {"booking_id": "WS000000"}


class TestHotels(BuilderContract):
    builder_name = "hotels"
    fingerprint = "1.10.0:c93571375f90f689"
    cases = [
        Case("find_guest_by_email", lambda s: {"email": _guest(s)["email"].upper()}),
        Case("find_guest_by_email", lambda s: {"email": "nobody@example.com"}, "guest_not_found"),
        Case("find_guest_by_loyalty_number", lambda s: {"loyalty_number": _guest(s)["loyalty_number"]}),
        Case("find_guest_by_loyalty_number", lambda s: {"loyalty_number": "WR000000000"}, "guest_not_found"),
        Case("get_guest_profile", lambda s: {"guest_id": s.ids("guests")[0]}),
        Case("get_guest_profile", lambda s: {"guest_id": "GST-0000000"}, "guest_not_found"),
        Case("get_loyalty_account", lambda s: {"guest_id": s.ids("guests")[-1]}),
        Case("get_loyalty_account", lambda s: {"guest_id": "GST-0000000"}, "guest_not_found"),
        Case("search_hotels", lambda s: {"city": _hotel(s)["city"], **_stay(s), "guests": 2}),
        Case("search_hotels", lambda s: {"city": _hotel(s)["city"].lower(), **_stay(s, 10), "guests": 1,
                                         "max_price_per_night": 400.0}),
        Case("search_hotels", lambda s: {"city": _hotel(s)["city"], "check_in": _day(s, 5), "check_out": _day(s, 3),
                                         "guests": 2}, "invalid_dates"),
        Case("search_hotels", lambda s: {"city": "Atlantis", **_stay(s), "guests": 2}, "city_not_served"),
        Case("get_room_availability", lambda s: {"hotel_id": s.ids("hotels")[0], **_stay(s), "guests": 2}),
        Case("get_room_availability", lambda s: {"hotel_id": "HTL-00000", **_stay(s), "guests": 2}, "hotel_not_found"),
        Case("get_room_availability", lambda s: {"hotel_id": s.ids("hotels")[0], "check_in": _day(s, -3),
                                                 "check_out": _day(s, 1), "guests": 2}, "invalid_dates"),
        Case("get_booking_details", lambda s: {"booking_id": _first(s)}),
        Case("get_booking_details", lambda s: {"booking_id": _first(s).lower()}),
        Case("get_booking_details", lambda s: MISSING, "booking_not_found"),
        # book_room
        Case("book_room", lambda s: _book(s)),
        Case("book_room", lambda s: _book(s, rate_plan="nonrefundable", guests=2)),
        Case("book_room", lambda s: _book(s, guest_id="GST-0000000"), "guest_not_found"),
        Case("book_room", lambda s: _book(s, hotel_id="HTL-00000"), "hotel_not_found"),
        Case("book_room", lambda s: _book(s, room_type_id="HTL-00000-STQ"), "room_type_not_found"),
        Case("book_room", lambda s: _book(s, check_out=_day(s, 90)), "invalid_dates"),
        Case("book_room", lambda s: _book(s, guests=9), "invalid_guest_count"),
        Case("book_room", lambda s: _book(s), "no_availability", setup=_sell_out(99, 104)),
        Case("book_room", lambda s: _book(s, payment_method_id="card_0000000"), "payment_method_not_found"),
        Case("book_room", lambda s: _book(s, payment_method_id="card_1111111"), "payment_method_expired",
             setup=_expire_first_method),
        # cancel_booking
        Case("cancel_booking", lambda s: {"booking_id": _first(s), "reason": "change of plans"}, setup=_force()),
        Case("cancel_booking", lambda s: {"booking_id": _first(s), "reason": "trip cancelled"},
             setup=_force(late=True, points_redeemed=2000, points_credit=10.0)),
        Case("cancel_booking", lambda s: {**MISSING, "reason": "change of plans"}, "booking_not_found"),
        Case("cancel_booking", lambda s: {"booking_id": _first(s), "reason": "booked by mistake"}, "booking_not_active",
             setup=_force(status="completed")),
        Case("cancel_booking", lambda s: {"booking_id": _first(s), "reason": "found another option"},
             "non_refundable_rate", setup=_force(rate_plan="nonrefundable", late=True)),
        # change_booking_dates
        Case("change_booking_dates", lambda s: _change(s), setup=_force()),
        Case("change_booking_dates", lambda s: {**_change(s), **MISSING}, "booking_not_found"),
        Case("change_booking_dates", lambda s: _change(s), "booking_not_active", setup=_force(status="cancelled")),
        Case("change_booking_dates", lambda s: _change(s), "non_refundable_rate",
             setup=_force(rate_plan="nonrefundable", late=True)),
        Case("change_booking_dates", lambda s: _change(s), "change_deadline_passed", setup=_force(late=True)),
        Case("change_booking_dates", lambda s: _change(s, 100, 0), "invalid_dates", setup=_force()),
        Case("change_booking_dates", lambda s: _change(s), "no_availability",
             setup=_with(_force(), _sell_out(99, 104, room_of_booking=True))),
        # add_special_request
        Case("add_special_request", lambda s: {"booking_id": _first(s), "request": "a quiet room, away from the lift"},
             setup=_force(special_requests=[])),
        Case("add_special_request", lambda s: {**MISSING, "request": "a crib"}, "booking_not_found"),
        Case("add_special_request", lambda s: {"booking_id": _first(s), "request": "a crib"}, "booking_not_active",
             setup=_force(status="completed")),
        Case("add_special_request", lambda s: {"booking_id": _first(s), "request": "  "}, "empty_request",
             setup=_force()),
        Case("add_special_request", lambda s: {"booking_id": _first(s), "request": "Late  check-out"},
             "duplicate_request", setup=_force(special_requests=["late check-out"])),
        Case("add_special_request", lambda s: {"booking_id": _first(s), "request": "a crib"}, "request_limit_reached",
             setup=_force(special_requests=["high floor", "extra pillows", "late check-out", "bathtub"])),
        # redeem_points
        Case("redeem_points", lambda s: {"booking_id": _first(s), "points": 2500},
             setup=_with(_force(amount_paid=400.0), _points(50000))),
        Case("redeem_points", lambda s: {**MISSING, "points": 2000}, "booking_not_found"),
        Case("redeem_points", lambda s: {"booking_id": _first(s), "points": 2000}, "booking_not_active",
             setup=_with(_force(status="checked-in"), _points(50000))),
        Case("redeem_points", lambda s: {"booking_id": _first(s), "points": 2100}, "invalid_points_amount",
             setup=_with(_force(), _points(50000))),
        Case("redeem_points", lambda s: {"booking_id": _first(s), "points": 5000}, "insufficient_points",
             setup=_with(_force(), _points(1200))),
        Case("redeem_points", lambda s: {"booking_id": _first(s), "points": 40000}, "exceeds_amount_due",
             setup=_with(_force(amount_paid=150.0), _points(50000))),
    ]
