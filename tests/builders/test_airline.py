"""Airline builder: the uniform contract plus its cases."""

from __future__ import annotations

from datetime import date, timedelta

from covert.env import State
from tests.builders.contract import BuilderContract, Case

GIFT = {"payment_method_id": "gift_card_0000001", "kind": "gift_card", "label": "gift card", "balance": 1.0,
        "currency": "USD"}
EXPIRED = {"payment_method_id": "certificate_0000001", "kind": "certificate", "label": "travel certificate",
           "balance": 9999.0, "currency": "USD", "expires_on": "2000-01-01"}
NEW_PAX = {"passenger_id": "pax_testnew1", "first_name": "Iris", "last_name": "Vance", "date_of_birth": "1990-04-02",
           "relationship": "friend"}


def _day(s: State, offset: int) -> str:
    return (date.fromisoformat(s.get("meta", "clock")["today"]) + timedelta(days=offset)).isoformat()


def _customer(s: State) -> dict:
    return s.get("customers", s.ids("customers")[0])


def _flight(s: State) -> dict:
    return s.get("flights", s.ids("flights")[0])


def _rid(s: State) -> str:
    return s.ids("reservations")[0]


def _res(s: State) -> dict:
    return s.get("reservations", _rid(s))


def _card(s: State) -> str:
    """A credit card of the first reservation's owner (every member has one, listed first)."""
    return s.get("customers", _res(s)["customer_id"])["payment_methods"][0]["payment_method_id"]


def _pax(s: State) -> str:
    return _res(s)["passengers"][0]["passenger_id"]


# -- setups ----------------------------------------------------------------------------------------
def _reservation(status: str = "confirmed", offset: int = 3, cabin: str = "economy", insured: bool = False,
                 tier: str | None = None, fare: float | None = None, new_day: dict | None = None,
                 method: dict | None = None):
    """Setup: make the first reservation ``status`` on its flight ``offset`` days from today, booked long ago.

    The flight gets seats on that day, and ``new_day`` (default: seats) five days from today.
    """
    def setup(env) -> None:
        s = env.state
        rid = _rid(s)
        rec = s.edit("reservations", rid)
        day = _day(s, offset)
        rec.update(status=status, date=day, cabin=cabin, travel_insurance=insured, checked_bags=0,
                   booked_at=f"{_day(s, -40)}T09:15")
        if fare is not None:
            rec["fare_per_passenger"] = fare
        flight = s.edit("flights", rec["flight_number"])
        flight["dates"][day] = {"seats": [5, 5, 5]} if offset > 0 else {"status": "landed"}
        flight["dates"][_day(s, 5)] = dict(new_day) if new_day is not None else {"seats": [5, 5, 5]}
        customer = s.edit("customers", rec["customer_id"])
        if tier is not None:
            customer["tier"] = tier
        if method is not None:
            customer["payment_methods"].append(dict(method))
    return setup


def _bookable(seats: tuple[int, int, int] = (5, 5, 5), status: str | None = None, method: dict | None = None,
              booked: bool = False):
    """Setup: the first flight has ``seats`` three days from today; the first member gets a new saved passenger.

    With ``booked``, that passenger already holds a confirmed seat on that flight and day.
    """
    def setup(env) -> None:
        s = env.state
        flight = s.edit("flights", s.ids("flights")[0])
        flight["dates"][_day(s, 3)] = {"status": status} if status else {"seats": list(seats)}
        customer = s.edit("customers", s.ids("customers")[0])
        customer["saved_passengers"].append(dict(NEW_PAX))
        if method is not None:
            customer["payment_methods"].append(dict(method))
        if booked:
            rid = customer["reservations"][0]
            rec = s.edit("reservations", rid)
            rec.update(status="confirmed", flight_number=flight["flight_number"], date=_day(s, 3),
                       passengers=[{k: NEW_PAX[k] for k in ("passenger_id", "first_name", "last_name", "date_of_birth")}])
    return setup


def _book(**override):
    def args(s: State) -> dict:
        customer = _customer(s)
        out = {"customer_id": customer["customer_id"], "flight_number": _flight(s)["flight_number"], "date": _day(s, 3),
               "cabin": "economy", "passenger_ids": [NEW_PAX["passenger_id"]],
               "payment_method_id": customer["payment_methods"][0]["payment_method_id"]}
        out.update({k: (v(s) if callable(v) else v) for k, v in override.items()})
        return out
    return args


def _change(**override):
    def args(s: State) -> dict:
        out = {"reservation_id": _rid(s), "new_date": _day(s, 5), "payment_method_id": _card(s)}
        out.update({k: (v(s) if callable(v) else v) for k, v in override.items()})
        return out
    return args


def _bags(**override):
    def args(s: State) -> dict:
        out = {"reservation_id": _rid(s), "additional_bags": 1, "payment_method_id": _card(s)}
        out.update(override)
        return out
    return args


def _fix(**override):
    def args(s: State) -> dict:
        out = {"reservation_id": _rid(s), "passenger_id": _pax(s), "new_first_name": "Marie",
               "new_last_name": "Okafor-Smith", "new_date_of_birth": "1986-11-23"}
        out.update(override)
        return out
    return args


OPEN = _reservation()
CANCELLED = _reservation(status="cancelled")
FLOWN = _reservation(offset=-1)


class TestAirline(BuilderContract):
    builder_name = "airline"
    fingerprint = "1.10.0:b768d0cde005526f"
    cases = [
        # members
        Case("find_customer_by_email", lambda s: {"email": _customer(s)["email"]}),
        Case("find_customer_by_email", lambda s: {"email": "nobody@example.com"}, "customer_not_found"),
        Case("find_customer_by_membership", lambda s: {"membership_number": _customer(s)["membership_number"]}),
        Case("find_customer_by_membership", lambda s: {"membership_number": "LM00000000"}, "customer_not_found"),
        Case("get_customer_details", lambda s: {"customer_id": _customer(s)["customer_id"]}),
        Case("get_customer_details", lambda s: {"customer_id": "cu_nobody"}, "customer_not_found"),
        # flights
        Case("search_flights", lambda s: {"origin": _flight(s)["origin"], "destination": _flight(s)["destination"],
                                          "date": _day(s, 2), "cabin": "business"}),
        Case("search_flights", lambda s: {"origin": s.get("airports", _flight(s)["origin"])["city"].lower(),
                                          "destination": _flight(s)["destination"], "date": _day(s, 0)}),
        Case("search_flights", lambda s: {"origin": "XQZ", "destination": _flight(s)["destination"], "date": _day(s, 2)},
             "airport_not_found"),
        Case("search_flights", lambda s: {"origin": _flight(s)["origin"], "destination": _flight(s)["destination"],
                                          "date": "03/15/2026"}, "invalid_date"),
        Case("search_flights", lambda s: {"origin": _flight(s)["origin"], "destination": _flight(s)["destination"],
                                          "date": _day(s, 60)}, "date_out_of_range"),
        Case("get_flight_status", lambda s: {"flight_number": _flight(s)["flight_number"], "date": _day(s, 0)}),
        Case("get_flight_status", lambda s: {"flight_number": _flight(s)["flight_number"].lower(), "date": _day(s, -1)}),
        Case("get_flight_status", lambda s: {"flight_number": "SK0001", "date": _day(s, 0)}, "flight_not_found"),
        Case("get_flight_status", lambda s: {"flight_number": _flight(s)["flight_number"], "date": "tomorrow"},
             "invalid_date"),
        Case("get_flight_status", lambda s: {"flight_number": _flight(s)["flight_number"], "date": _day(s, -30)},
             "date_out_of_range"),
        # reservations
        Case("get_reservation_details", lambda s: {"reservation_id": _rid(s)}),
        Case("get_reservation_details", lambda s: {"reservation_id": _rid(s).lower()}),
        Case("get_reservation_details", lambda s: {"reservation_id": "ZZZZZ1"}, "reservation_not_found"),
        # booking
        Case("book_reservation", _book(), setup=_bookable()),
        Case("book_reservation", _book(cabin="business", travel_insurance=True), setup=_bookable()),
        Case("book_reservation", _book(customer_id="cu_nobody"), "customer_not_found", setup=_bookable()),
        Case("book_reservation", _book(flight_number="SK0001"), "flight_not_found", setup=_bookable()),
        Case("book_reservation", _book(date="2026-02-30"), "invalid_date", setup=_bookable()),
        Case("book_reservation", _book(date=lambda s: _day(s, 45)), "date_out_of_range", setup=_bookable()),
        Case("book_reservation", _book(), "flight_not_bookable", setup=_bookable(status="cancelled")),
        Case("book_reservation", _book(date=lambda s: _day(s, -1)), "flight_not_bookable", setup=_bookable()),
        Case("book_reservation", _book(passenger_ids=[]), "no_passengers", setup=_bookable()),
        Case("book_reservation", _book(passenger_ids=["pax_nobody1"]), "passenger_not_found", setup=_bookable()),
        Case("book_reservation", _book(), "passenger_already_booked", setup=_bookable(booked=True)),
        Case("book_reservation", _book(), "not_enough_seats", setup=_bookable(seats=(5, 0, 5))),
        Case("book_reservation", _book(payment_method_id="credit_card_0000000"), "payment_method_not_found",
             setup=_bookable()),
        Case("book_reservation", _book(payment_method_id=EXPIRED["payment_method_id"]), "payment_method_expired",
             setup=_bookable(method=EXPIRED)),
        Case("book_reservation", _book(payment_method_id=GIFT["payment_method_id"]), "insufficient_balance",
             setup=_bookable(method=GIFT)),
        # cancelling
        Case("cancel_reservation", lambda s: {"reservation_id": _rid(s), "reason": "change of plans"},
             setup=_reservation(cabin="business")),
        Case("cancel_reservation", lambda s: {"reservation_id": _rid(s), "reason": "medical emergency"},
             setup=_reservation(cabin="basic_economy", insured=True)),
        Case("cancel_reservation", lambda s: {"reservation_id": "ZZZZZ1", "reason": "other"}, "reservation_not_found"),
        Case("cancel_reservation", lambda s: {"reservation_id": _rid(s), "reason": "other"},
             "reservation_already_cancelled", setup=CANCELLED),
        Case("cancel_reservation", lambda s: {"reservation_id": _rid(s), "reason": "change of plans"},
             "flight_already_departed", setup=FLOWN),
        Case("cancel_reservation", lambda s: {"reservation_id": _rid(s), "reason": "change of plans"},
             "cancellation_not_allowed", setup=OPEN),
        # changing dates
        Case("change_flight_date", _change(), setup=OPEN),
        Case("change_flight_date", _change(), setup=_reservation(cabin="business", fare=99999.0)),
        Case("change_flight_date", _change(reservation_id="ZZZZZ1"), "reservation_not_found"),
        Case("change_flight_date", _change(), "reservation_already_cancelled", setup=CANCELLED),
        Case("change_flight_date", _change(), "flight_already_departed", setup=FLOWN),
        Case("change_flight_date", _change(), "basic_economy_not_changeable", setup=_reservation(cabin="basic_economy")),
        Case("change_flight_date", _change(new_date="next friday"), "invalid_date", setup=OPEN),
        Case("change_flight_date", _change(new_date=lambda s: _day(s, 40)), "date_out_of_range", setup=OPEN),
        Case("change_flight_date", _change(new_date=lambda s: _day(s, 3)), "same_date", setup=OPEN),
        Case("change_flight_date", _change(), "flight_not_bookable", setup=_reservation(new_day={"status": "cancelled"})),
        Case("change_flight_date", _change(), "not_enough_seats", setup=_reservation(new_day={"seats": [5, 0, 5]})),
        Case("change_flight_date", _change(payment_method_id="credit_card_0000000"), "payment_method_not_found",
             setup=OPEN),
        Case("change_flight_date", _change(payment_method_id=EXPIRED["payment_method_id"]), "payment_method_expired",
             setup=_reservation(fare=1.0, method=EXPIRED)),
        Case("change_flight_date", _change(payment_method_id=GIFT["payment_method_id"]), "insufficient_balance",
             setup=_reservation(fare=1.0, method=GIFT)),
        # bags
        Case("add_checked_bags", _bags(additional_bags=2), setup=_reservation(cabin="basic_economy", tier="regular")),
        Case("add_checked_bags", _bags(), setup=_reservation(cabin="business", tier="gold")),
        Case("add_checked_bags", _bags(reservation_id="ZZZZZ1"), "reservation_not_found"),
        Case("add_checked_bags", _bags(), "reservation_already_cancelled", setup=CANCELLED),
        Case("add_checked_bags", _bags(), "flight_already_departed", setup=FLOWN),
        Case("add_checked_bags", _bags(additional_bags=0), "invalid_bag_count", setup=OPEN),
        Case("add_checked_bags", _bags(additional_bags=60), "bag_limit_exceeded", setup=OPEN),
        Case("add_checked_bags", _bags(payment_method_id="credit_card_0000000"), "payment_method_not_found", setup=OPEN),
        Case("add_checked_bags", _bags(payment_method_id=EXPIRED["payment_method_id"]), "payment_method_expired",
             setup=_reservation(cabin="basic_economy", tier="regular", method=EXPIRED)),
        Case("add_checked_bags", _bags(payment_method_id=GIFT["payment_method_id"]), "insufficient_balance",
             setup=_reservation(cabin="basic_economy", tier="regular", method=GIFT)),
        # passenger details
        Case("update_passenger_details", _fix(), setup=OPEN),
        Case("update_passenger_details", _fix(reservation_id="ZZZZZ1"), "reservation_not_found"),
        Case("update_passenger_details", _fix(), "reservation_already_cancelled", setup=CANCELLED),
        Case("update_passenger_details", _fix(), "flight_already_departed", setup=FLOWN),
        Case("update_passenger_details", _fix(passenger_id="pax_nobody1"), "passenger_not_on_reservation", setup=OPEN),
        Case("update_passenger_details", _fix(new_last_name="R2D2"), "invalid_name", setup=OPEN),
        Case("update_passenger_details", _fix(new_date_of_birth="2099-01-01"), "invalid_date", setup=OPEN),
    ]
