"""Airline tools: Larkmiles members, the flight schedule, reservations, bags and passenger details."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import Literal, TypedDict

from builders.airline.state import (
    BAG_FEE,
    CABINS,
    CURRENCY,
    FREE_BAGS,
    INSURANCE_PER_PASSENGER,
    MAX_BAGS_PER_PASSENGER,
    fare,
    fare_factor,
    locator,
)
from covert.env import Environment, ToolError, tool

Cabin = Literal["basic_economy", "economy", "business"]
CancelReason = Literal["change of plans", "flight cancelled by airline", "medical emergency", "other"]
_BALANCE_KINDS = ("gift_card", "certificate")
_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ -'.")


class CustomerMatch(TypedDict):
    """The member a lookup found.

    Attributes:
        customer_id: Internal id of the member's profile.
        name: The member's full name.
        tier: Larkmiles tier: regular, silver or gold.
    """

    customer_id: str
    name: str
    tier: str


class PaymentMethod(TypedDict, total=False):
    """A payment method saved on a profile.

    Attributes:
        payment_method_id: Id of the payment method.
        kind: credit_card, gift_card or certificate (a travel certificate).
        label: How the method reads to the member, such as "Visa ending in 4417".
        brand: Card brand, for credit cards.
        last_four: Last four card digits, for credit cards.
        balance: Remaining balance, for gift cards and travel certificates.
        currency: Currency of the balance.
        expires_on: Expiry date of a travel certificate (YYYY-MM-DD).
    """

    payment_method_id: str
    kind: str
    label: str
    brand: str
    last_four: str
    balance: float
    currency: str
    expires_on: str


class SavedPassenger(TypedDict):
    """A traveller saved on a profile for quick booking.

    Attributes:
        passenger_id: Id of the saved passenger.
        name: Full name as on the travel document.
        first_name: First name.
        last_name: Last name.
        date_of_birth: Date of birth (YYYY-MM-DD).
        relationship: Relationship to the member (self, spouse, child, parent, friend, ...).
    """

    passenger_id: str
    name: str
    first_name: str
    last_name: str
    date_of_birth: str
    relationship: str


class ReservationSummary(TypedDict):
    """One reservation in a member's history.

    Attributes:
        reservation_id: Six-character confirmation code.
        flight_number: The booked flight.
        origin: Departure airport code.
        destination: Arrival airport code.
        destination_city: City of the arrival airport.
        date: Travel date (YYYY-MM-DD).
        cabin: basic_economy, economy or business.
        status: confirmed, cancelled or flown.
        total_paid: Amount paid so far.
        currency: Currency code.
    """

    reservation_id: str
    flight_number: str
    origin: str
    destination: str
    destination_city: str
    date: str
    cabin: str
    status: str
    total_paid: float
    currency: str


class CustomerDetails(TypedDict):
    """A Larkmiles member profile.

    Attributes:
        customer_id: Internal id of the profile.
        name: Full name.
        email: Email address.
        phone: Phone number.
        date_of_birth: Date of birth (YYYY-MM-DD).
        membership_number: Larkmiles membership number.
        tier: regular, silver or gold.
        miles_balance: Miles available to redeem.
        member_since: Date the member joined (YYYY-MM-DD).
        payment_methods: Saved payment methods.
        saved_passengers: Travellers saved on the profile, the member first.
        reservations: The member's reservations, latest travel date first.
    """

    customer_id: str
    name: str
    email: str
    phone: str
    date_of_birth: str
    membership_number: str
    tier: str
    miles_balance: int
    member_since: str
    payment_methods: list[PaymentMethod]
    saved_passengers: list[SavedPassenger]
    reservations: list[ReservationSummary]


class FlightOption(TypedDict):
    """A flight on the searched date.

    Attributes:
        flight_number: The flight number, such as SK1402.
        origin: Departure airport code.
        destination: Arrival airport code.
        date: Departure date (YYYY-MM-DD).
        departure_time: Local departure time (HH:MM).
        arrival_time: Local arrival time (HH:MM).
        arrival_date: Local arrival date (YYYY-MM-DD).
        duration_minutes: Scheduled flight time in minutes.
        aircraft: Aircraft type.
        status: scheduled, delayed, departed, landed or cancelled.
        cabin: The cabin the price is for.
        price: Fare of one seat in that cabin.
        currency: Currency code.
        seats_available: Seats left in that cabin.
    """

    flight_number: str
    origin: str
    destination: str
    date: str
    departure_time: str
    arrival_time: str
    arrival_date: str
    duration_minutes: int
    aircraft: str
    status: str
    cabin: str
    price: float
    currency: str
    seats_available: int


class FlightSearch(TypedDict):
    """Direct flights between two airports on one date.

    Attributes:
        origin: Departure airport code.
        origin_city: Departure city.
        destination: Arrival airport code.
        destination_city: Arrival city.
        date: The searched date (YYYY-MM-DD).
        cabin: The cabin prices are quoted for.
        flights: The flights, earliest departure first.
    """

    origin: str
    origin_city: str
    destination: str
    destination_city: str
    date: str
    cabin: str
    flights: list[FlightOption]


class FlightStatus(TypedDict):
    """Operational status of one flight on one date.

    Attributes:
        flight_number: The flight number.
        date: Departure date (YYYY-MM-DD).
        origin: Departure airport code.
        destination: Arrival airport code.
        status: scheduled, delayed, departed, landed or cancelled.
        scheduled_departure: Scheduled local departure (YYYY-MM-DDTHH:MM).
        estimated_departure: Expected local departure, including delays; empty if cancelled.
        scheduled_arrival: Scheduled local arrival (YYYY-MM-DDTHH:MM).
        estimated_arrival: Expected local arrival, including delays; empty if cancelled.
        delay_minutes: Current delay in minutes.
        terminal: Departure terminal.
        gate: Departure gate.
        aircraft: Aircraft type.
    """

    flight_number: str
    date: str
    origin: str
    destination: str
    status: str
    scheduled_departure: str
    estimated_departure: str
    scheduled_arrival: str
    estimated_arrival: str
    delay_minutes: int
    terminal: str
    gate: str
    aircraft: str


class Passenger(TypedDict):
    """A passenger on a reservation.

    Attributes:
        passenger_id: Id of the passenger.
        first_name: First name as on the ticket.
        last_name: Last name as on the ticket.
        date_of_birth: Date of birth (YYYY-MM-DD).
    """

    passenger_id: str
    first_name: str
    last_name: str
    date_of_birth: str


class Payment(TypedDict):
    """A payment recorded on a reservation (negative for refunds).

    Attributes:
        payment_method_id: The payment method used.
        method_label: How the method reads to the member, such as "Visa ending in 4417".
        amount: Amount charged.
    """

    payment_method_id: str
    method_label: str
    amount: float


class ReservationDetails(TypedDict):
    """A full reservation.

    Attributes:
        reservation_id: Six-character confirmation code.
        customer_id: The member who owns the reservation.
        status: confirmed, cancelled or flown.
        flight_number: The booked flight.
        origin: Departure airport code.
        destination: Arrival airport code.
        date: Travel date (YYYY-MM-DD).
        departure_time: Local departure time (HH:MM).
        arrival_time: Local arrival time (HH:MM).
        cabin: basic_economy, economy or business.
        flight_status: Current status of the flight on that date.
        passengers: The passengers.
        fare_per_passenger: Fare paid per passenger.
        travel_insurance: Whether travel insurance was bought.
        checked_bags: Checked bags on the reservation.
        free_bag_allowance: Checked bags included for free, all passengers together.
        payments: Payments made, in order.
        total_paid: Net amount paid.
        currency: Currency code.
        booked_at: When the reservation was made (YYYY-MM-DDTHH:MM).
    """

    reservation_id: str
    customer_id: str
    status: str
    flight_number: str
    origin: str
    destination: str
    date: str
    departure_time: str
    arrival_time: str
    cabin: str
    flight_status: str
    passengers: list[Passenger]
    fare_per_passenger: float
    travel_insurance: bool
    checked_bags: int
    free_bag_allowance: int
    payments: list[Payment]
    total_paid: float
    currency: str
    booked_at: str


class Charge(TypedDict):
    """Money moved to or from one payment method.

    Attributes:
        payment_method_id: The payment method.
        method_label: How the method reads to the member.
        amount: Amount moved (zero or more).
        currency: Currency code.
    """

    payment_method_id: str
    method_label: str
    amount: float
    currency: str


class BookingResult(TypedDict):
    """A new reservation.

    Attributes:
        reservation_id: Six-character confirmation code.
        status: Always confirmed.
        customer_id: The member who booked.
        flight_number: The booked flight.
        date: Travel date (YYYY-MM-DD).
        origin: Departure airport code.
        destination: Arrival airport code.
        departure_time: Local departure time (HH:MM).
        cabin: The booked cabin.
        passengers: The passengers.
        fare_per_passenger: Fare per passenger.
        travel_insurance: Whether travel insurance was added.
        free_bag_allowance: Checked bags included for free, all passengers together.
        charge: What was charged, fares plus insurance.
    """

    reservation_id: str
    status: str
    customer_id: str
    flight_number: str
    date: str
    origin: str
    destination: str
    departure_time: str
    cabin: str
    passengers: list[Passenger]
    fare_per_passenger: float
    travel_insurance: bool
    free_bag_allowance: int
    charge: Charge


class CancelResult(TypedDict):
    """A cancelled reservation.

    Attributes:
        reservation_id: The confirmation code.
        status: Always cancelled.
        reason: The cancellation reason.
        refunds: Refunds, one per original payment method.
        refund_total: Total refunded.
        currency: Currency code.
    """

    reservation_id: str
    status: str
    reason: str
    refunds: list[Charge]
    refund_total: float
    currency: str


class ChangeResult(TypedDict):
    """A reservation moved to another date.

    Attributes:
        reservation_id: The confirmation code.
        flight_number: The flight, unchanged.
        previous_date: The old travel date (YYYY-MM-DD).
        date: The new travel date (YYYY-MM-DD).
        departure_time: Local departure time (HH:MM).
        cabin: The cabin, unchanged.
        fare_per_passenger: The new fare per passenger.
        fare_difference: New fares minus old fares, all passengers; negative means money back.
        payment_direction: charged (also for no difference) or refunded.
        payment: The amount charged or refunded and the method used.
    """

    reservation_id: str
    flight_number: str
    previous_date: str
    date: str
    departure_time: str
    cabin: str
    fare_per_passenger: float
    fare_difference: float
    payment_direction: str
    payment: Charge


class BagResult(TypedDict):
    """Checked bags added to a reservation.

    Attributes:
        reservation_id: The confirmation code.
        bags_added: Bags added now.
        checked_bags: Checked bags on the reservation now.
        free_bag_allowance: Checked bags included for free, all passengers together.
        chargeable_bags: Bags of this request that were charged.
        fee: The bag fee charged.
    """

    reservation_id: str
    bags_added: int
    checked_bags: int
    free_bag_allowance: int
    chargeable_bags: int
    fee: Charge


class PassengerUpdate(TypedDict):
    """A corrected passenger on a reservation.

    Attributes:
        reservation_id: The confirmation code.
        passenger_id: The corrected passenger.
        previous_name: The name on the ticket before the correction.
        first_name: First name now on the ticket.
        last_name: Last name now on the ticket.
        date_of_birth: Date of birth now on the ticket (YYYY-MM-DD).
    """

    reservation_id: str
    passenger_id: str
    previous_name: str
    first_name: str
    last_name: str
    date_of_birth: str


class AirlineEnv(Environment):
    """Skylark Airways' reservation system."""

    name = "airline"

    # -- helpers ---------------------------------------------------------------------------------
    def _clock(self) -> dict:
        return self.state.get("meta", "clock")

    def _customer(self, customer_id: str) -> dict:
        customer = self.state.get("customers", customer_id.strip())
        if customer is None:
            raise ToolError("customer_not_found", f"No member profile has id {customer_id}.")
        return customer

    def _reservation(self, reservation_id: str) -> dict:
        reservation = self.state.get("reservations", reservation_id.strip().upper().lstrip("#"))
        if reservation is None:
            raise ToolError("reservation_not_found", f"No reservation has confirmation code {reservation_id}.")
        return reservation

    def _flight(self, flight_number: str) -> dict:
        flight = self.state.get("flights", flight_number.strip().upper().replace(" ", ""))
        if flight is None:
            raise ToolError("flight_not_found", f"Skylark Airways has no flight {flight_number}.")
        return flight

    def _airport(self, text: str) -> dict:
        airport = self.state.get("airports", text.strip().upper())
        if airport is None:
            airport = self.state.find_one("airports", city=text.strip().title())
        if airport is None:
            raise ToolError("airport_not_found", f"Skylark Airways does not serve an airport called {text}.")
        return airport

    def _check_date(self, value: str) -> str:
        value = value.strip()
        try:
            ok = len(value) == 10 and date.fromisoformat(value).isoformat() == value
        except ValueError:
            ok = False
        if not ok:
            raise ToolError("invalid_date", f"{value!r} is not a date in the form YYYY-MM-DD.")
        return value

    def _day(self, flight: dict, day: str) -> dict:
        day = self._check_date(day)
        entry = flight["dates"].get(day)
        if entry is None:
            clock = self._clock()
            raise ToolError("date_out_of_range", f"The published schedule runs from {clock['schedule_start']} "
                                                 f"to {clock['schedule_end']}; {day} is outside it.")
        return entry

    def _departed(self, day: str, entry: dict) -> bool:
        return day < self._clock()["today"] or entry.get("status") in ("departed", "landed")

    def _bookable(self, flight: dict, day: str, entry: dict) -> None:
        status = entry.get("status", "scheduled")
        if status == "cancelled" or self._departed(day, entry):
            state = "was cancelled" if status == "cancelled" else "has already departed"
            raise ToolError("flight_not_bookable", f"Flight {flight['flight_number']} on {day} {state}.")

    def _seats_left(self, entry: dict, cabin: str) -> int:
        return entry.get("seats", (0, 0, 0))[CABINS.index(cabin)]

    def _method(self, customer: dict, payment_method_id: str) -> dict:
        for method in customer["payment_methods"]:
            if method["payment_method_id"] == payment_method_id.strip():
                return method
        raise ToolError("payment_method_not_found",
                        f"{payment_method_id} is not a payment method on this member's profile.")

    def _check_payment(self, customer: dict, payment_method_id: str, amount: float) -> dict:
        """The method, after checking it can take ``amount`` (a charge if positive, a refund if negative)."""
        method = self._method(customer, payment_method_id)
        if amount and method.get("expires_on") and method["expires_on"] < self._clock()["today"]:
            raise ToolError("payment_method_expired", f"The {method['label']} expired on {method['expires_on']}.")
        if amount > 0 and method["kind"] in _BALANCE_KINDS and method["balance"] < amount:
            raise ToolError("insufficient_balance", f"The {method['label']} has {method['balance']:.2f} {CURRENCY} "
                                                    f"left, less than the {amount:.2f} {CURRENCY} needed.")
        return method

    def _move_money(self, customer_id: str, moves: list[tuple[str, float]]) -> None:
        """Charge (positive) or refund (negative) balance-based methods; cards need no state change."""
        customer = self.state.get("customers", customer_id)
        if not any(m["kind"] in _BALANCE_KINDS for m in customer["payment_methods"]):
            return
        record = self.state.edit("customers", customer_id)
        for payment_method_id, amount in moves:
            for method in record["payment_methods"]:
                if method["payment_method_id"] == payment_method_id and method["kind"] in _BALANCE_KINDS:
                    method["balance"] = round(method["balance"] - amount, 2)

    def _charge(self, method: dict, amount: float) -> dict:
        return {"payment_method_id": method["payment_method_id"], "method_label": method["label"],
                "amount": round(abs(amount), 2), "currency": CURRENCY}

    def _allowance(self, customer_id: str, cabin: str, passengers: int) -> int:
        customer = self.state.get("customers", customer_id)
        tier = customer["tier"] if customer is not None else "regular"
        return FREE_BAGS[tier][cabin] * passengers

    def _open_reservation(self, reservation_id: str) -> tuple[dict, dict, dict]:
        """A confirmed reservation whose flight has not left, with its flight and flight date."""
        reservation = self._reservation(reservation_id)
        if reservation["status"] == "cancelled":
            raise ToolError("reservation_already_cancelled",
                            f"Reservation {reservation['reservation_id']} is already cancelled.")
        flight = self.state.get("flights", reservation["flight_number"])
        entry = flight["dates"].get(reservation["date"], {})
        if self._departed(reservation["date"], entry):
            raise ToolError("flight_already_departed", f"Flight {flight['flight_number']} of reservation "
                                                       f"{reservation['reservation_id']} already departed on {reservation['date']}.")
        return reservation, flight, entry

    def _status(self, reservation: dict) -> str:
        if reservation["status"] != "confirmed":
            return reservation["status"]
        flight = self.state.get("flights", reservation["flight_number"])
        entry = flight["dates"].get(reservation["date"], {})
        return "flown" if self._departed(reservation["date"], entry) else "confirmed"

    # -- reads -----------------------------------------------------------------------------------
    @tool(errors=("customer_not_found",))
    def find_customer_by_email(self, email: str) -> CustomerMatch:
        """Find a Larkmiles member's profile from their email address.

        Args:
            email: The member's email address, such as maria.chen12@example.com.
        """
        customer = self.state.find_one("customers", email=email.strip().lower())
        if customer is None:
            raise ToolError("customer_not_found", "No member profile has that email address.")
        return {"customer_id": customer["customer_id"], "name": f"{customer['first_name']} {customer['last_name']}",
                "tier": customer["tier"]}

    @tool(errors=("customer_not_found",))
    def find_customer_by_membership(self, membership_number: str) -> CustomerMatch:
        """Find a Larkmiles member's profile from their membership number.

        Args:
            membership_number: The Larkmiles membership number, such as LM48291730.
        """
        number = membership_number.strip().upper().replace(" ", "").replace("-", "")
        customer = self.state.find_one("customers", membership_number=number)
        if customer is None:
            raise ToolError("customer_not_found", f"No member has membership number {membership_number}.")
        return {"customer_id": customer["customer_id"], "name": f"{customer['first_name']} {customer['last_name']}",
                "tier": customer["tier"]}

    @tool(errors=("customer_not_found",))
    def get_customer_details(self, customer_id: str) -> CustomerDetails:
        """Get a member's profile: tier, miles, saved payment methods, saved passengers and reservations.

        Args:
            customer_id: Internal id of the member's profile, such as cu_7kq2m9x4ab.
        """
        customer = self._customer(customer_id)
        reservations = []
        for reservation_id in customer["reservations"]:
            reservation = self.state.get("reservations", reservation_id)
            if reservation is None:
                continue
            flight = self.state.get("flights", reservation["flight_number"])
            city = self.state.get("airports", flight["destination"])
            reservations.append({
                "reservation_id": reservation_id, "flight_number": flight["flight_number"],
                "origin": flight["origin"], "destination": flight["destination"],
                "destination_city": city["city"] if city else flight["destination"], "date": reservation["date"],
                "cabin": reservation["cabin"], "status": self._status(reservation),
                "total_paid": reservation["total_paid"], "currency": reservation["currency"],
            })
        reservations.sort(key=lambda r: r["date"], reverse=True)
        return {
            "customer_id": customer["customer_id"], "name": f"{customer['first_name']} {customer['last_name']}",
            "email": customer["email"], "phone": customer["phone"], "date_of_birth": customer["date_of_birth"],
            "membership_number": customer["membership_number"], "tier": customer["tier"],
            "miles_balance": customer["miles_balance"], "member_since": customer["member_since"],
            "payment_methods": [dict(m) for m in customer["payment_methods"]],
            "saved_passengers": [{**p, "name": f"{p['first_name']} {p['last_name']}"}
                                 for p in customer["saved_passengers"]],
            "reservations": reservations,
        }

    @tool(errors=("airport_not_found", "invalid_date", "date_out_of_range"))
    def search_flights(self, origin: str, destination: str, date: str, cabin: Cabin = "economy") -> FlightSearch:
        """Search direct flights between two airports on a date, with the fare and seats left in one cabin.

        Args:
            origin: Departure airport code (such as JFK) or city.
            destination: Arrival airport code (such as SFO) or city.
            date: Departure date, YYYY-MM-DD.
            cabin: The cabin to quote fares and seats for.
        """
        src, dst = self._airport(origin), self._airport(destination)
        day = self._check_date(date)
        clock = self._clock()
        if not clock["schedule_start"] <= day <= clock["schedule_end"]:
            raise ToolError("date_out_of_range", f"The published schedule runs from {clock['schedule_start']} "
                                                 f"to {clock['schedule_end']}; {day} is outside it.")
        factor = fare_factor(day, clock["today"])
        next_day = (_parse_day(day) + timedelta(days=1)).isoformat()
        seat_index = CABINS.index(cabin)
        flights = []
        for flight in self.state.find("flights", route=f"{src['code']}-{dst['code']}"):
            entry = flight["dates"][day]
            flights.append({
                "flight_number": flight["flight_number"], "origin": flight["origin"],
                "destination": flight["destination"], "date": day, "departure_time": flight["departure_time"],
                "arrival_time": flight["arrival_time"],
                "arrival_date": next_day if flight["arrival_day_offset"] else day,
                "duration_minutes": flight["duration_minutes"], "aircraft": flight["aircraft"],
                "status": entry.get("status", "scheduled"), "cabin": cabin,
                "price": round(flight["base_fares"][cabin] * factor, 2), "currency": CURRENCY,
                "seats_available": entry["seats"][seat_index] if "seats" in entry else 0,
            })
        flights.sort(key=lambda f: f["departure_time"])
        return {"origin": src["code"], "origin_city": src["city"], "destination": dst["code"],
                "destination_city": dst["city"], "date": day, "cabin": cabin, "flights": flights}

    @tool(errors=("flight_not_found", "invalid_date", "date_out_of_range"))
    def get_flight_status(self, flight_number: str, date: str) -> FlightStatus:
        """Get the status of a flight on a date: delays, cancellation, times, terminal and gate.

        Args:
            flight_number: The flight number, such as SK1402.
            date: Departure date, YYYY-MM-DD.
        """
        flight = self._flight(flight_number)
        entry = self._day(flight, date)
        day = date.strip()
        status = entry.get("status", "scheduled")
        delay = entry.get("delay_minutes", 0)
        arrival_day = (_parse_day(day) + timedelta(days=1)).isoformat() if flight["arrival_day_offset"] else day
        departure = f"{day}T{flight['departure_time']}"
        arrival = f"{arrival_day}T{flight['arrival_time']}"
        cancelled = status == "cancelled"
        return {
            "flight_number": flight["flight_number"], "date": day, "origin": flight["origin"],
            "destination": flight["destination"], "status": status,
            "scheduled_departure": departure,
            "estimated_departure": "" if cancelled else _later(departure, delay),
            "scheduled_arrival": arrival,
            "estimated_arrival": "" if cancelled else _later(arrival, delay),
            "delay_minutes": delay, "terminal": flight["terminal"], "gate": flight["gate"],
            "aircraft": flight["aircraft"],
        }

    @tool(errors=("reservation_not_found",))
    def get_reservation_details(self, reservation_id: str) -> ReservationDetails:
        """Get a reservation: flight, date, cabin, passengers, bags, insurance, payments and status.

        Args:
            reservation_id: The six-character confirmation code, such as Q7XK2M.
        """
        reservation = self._reservation(reservation_id)
        flight = self.state.get("flights", reservation["flight_number"])
        entry = flight["dates"].get(reservation["date"], {})
        customer = self.state.get("customers", reservation["customer_id"])
        labels = {m["payment_method_id"]: m["label"] for m in customer["payment_methods"]} if customer else {}
        return {
            "reservation_id": reservation["reservation_id"], "customer_id": reservation["customer_id"],
            "status": self._status(reservation), "flight_number": flight["flight_number"],
            "origin": flight["origin"], "destination": flight["destination"], "date": reservation["date"],
            "departure_time": flight["departure_time"], "arrival_time": flight["arrival_time"],
            "cabin": reservation["cabin"], "flight_status": entry.get("status", "scheduled"),
            "passengers": [dict(p) for p in reservation["passengers"]],
            "fare_per_passenger": reservation["fare_per_passenger"],
            "travel_insurance": reservation["travel_insurance"], "checked_bags": reservation["checked_bags"],
            "free_bag_allowance": self._allowance(reservation["customer_id"], reservation["cabin"],
                                                  len(reservation["passengers"])),
            "payments": [{"payment_method_id": p["payment_method_id"],
                          "method_label": labels.get(p["payment_method_id"], p["payment_method_id"]),
                          "amount": p["amount"]} for p in reservation["payments"]],
            "total_paid": reservation["total_paid"],
            "currency": reservation["currency"], "booked_at": reservation["booked_at"],
        }

    # -- writes ----------------------------------------------------------------------------------
    @tool(writes=True, errors=("customer_not_found", "flight_not_found", "invalid_date", "date_out_of_range",
                               "flight_not_bookable", "no_passengers", "passenger_not_found",
                               "passenger_already_booked", "not_enough_seats", "payment_method_not_found",
                               "payment_method_expired", "insufficient_balance"))
    def book_reservation(
        self,
        customer_id: str,
        flight_number: str,
        date: str,
        cabin: Cabin,
        passenger_ids: list[str],
        payment_method_id: str,
        travel_insurance: bool = False,
    ) -> BookingResult:
        """Book seats on a flight for passengers saved on a member's profile and charge one payment method.

        Gift cards and travel certificates must hold the full amount (fares plus 30 USD insurance per
        passenger if chosen); certificates must not be expired.

        Args:
            customer_id: Internal id of the member's profile, such as cu_7kq2m9x4ab.
            flight_number: The flight number, such as SK1402.
            date: Departure date, YYYY-MM-DD.
            cabin: The cabin to book.
            passenger_ids: Ids of the member's saved passengers who travel, such as pax_3kf8q2mz.
            payment_method_id: The member's payment method to charge, such as credit_card_4417203.
            travel_insurance: Whether to add travel insurance.
        """
        customer = self._customer(customer_id)
        flight = self._flight(flight_number)
        day = date.strip()
        entry = self._day(flight, day)
        self._bookable(flight, day, entry)
        wanted = list(dict.fromkeys(p.strip() for p in passenger_ids))
        if not wanted:
            raise ToolError("no_passengers", "Name at least one passenger to book.")
        saved = {p["passenger_id"]: p for p in customer["saved_passengers"]}
        missing = [p for p in wanted if p not in saved]
        if missing:
            raise ToolError("passenger_not_found", f"{missing[0]} is not a saved passenger of this member.")
        for reservation_id in customer["reservations"]:
            other = self.state.get("reservations", reservation_id)
            if (other is not None and other["status"] == "confirmed" and other["date"] == day
                    and other["flight_number"] == flight["flight_number"]):
                booked = {p["passenger_id"] for p in other["passengers"]} & set(wanted)
                if booked:
                    who = saved[sorted(booked)[0]]
                    raise ToolError("passenger_already_booked",
                                    f"{who['first_name']} {who['last_name']} is already booked on "
                                    f"{flight['flight_number']} on {day} (reservation {reservation_id}).")
        left = self._seats_left(entry, cabin)
        if left < len(wanted):
            raise ToolError("not_enough_seats", f"Only {left} {cabin} seat(s) left on {flight['flight_number']} on {day}.")
        per_seat = fare(flight["base_fares"], cabin, day, self._clock()["today"])
        total = round(len(wanted) * (per_seat + (INSURANCE_PER_PASSENGER if travel_insurance else 0.0)), 2)
        method = self._check_payment(customer, payment_method_id, total)

        reservation_id = locator(self.state.next_id("reservations"))
        while self.state.has("reservations", reservation_id):
            reservation_id = locator(self.state.next_id("reservations"))
        clock = self._clock()
        passengers = [{k: saved[p][k] for k in ("passenger_id", "first_name", "last_name", "date_of_birth")}
                      for p in wanted]
        self.state.insert("reservations", reservation_id, {
            "reservation_id": reservation_id, "customer_id": customer["customer_id"],
            "flight_number": flight["flight_number"], "date": day, "cabin": cabin, "status": "confirmed",
            "passengers": passengers, "fare_per_passenger": per_seat, "travel_insurance": travel_insurance,
            "checked_bags": 0, "payments": [{"payment_method_id": method["payment_method_id"], "amount": total}],
            "total_paid": total, "currency": CURRENCY, "booked_at": f"{clock['today']}T{clock['time']}",
        })
        record = self.state.edit("flights", flight["flight_number"])
        record["dates"][day]["seats"][CABINS.index(cabin)] -= len(wanted)
        self._move_money(customer["customer_id"], [(method["payment_method_id"], total)])
        self.state.edit("customers", customer["customer_id"])["reservations"].append(reservation_id)
        return {
            "reservation_id": reservation_id, "status": "confirmed", "customer_id": customer["customer_id"],
            "flight_number": flight["flight_number"], "date": day, "origin": flight["origin"],
            "destination": flight["destination"], "departure_time": flight["departure_time"], "cabin": cabin,
            "passengers": [dict(p) for p in passengers], "fare_per_passenger": per_seat,
            "travel_insurance": travel_insurance,
            "free_bag_allowance": self._allowance(customer["customer_id"], cabin, len(wanted)),
            "charge": self._charge(method, total),
        }

    @tool(writes=True, errors=("reservation_not_found", "reservation_already_cancelled", "flight_already_departed",
                               "cancellation_not_allowed"))
    def cancel_reservation(self, reservation_id: str, reason: CancelReason) -> CancelResult:
        """Cancel a reservation before departure and refund every payment to its original method.

        Allowed only if it was booked within the last 24 hours, the airline cancelled the flight, the cabin
        is business, or travel insurance was bought.

        Args:
            reservation_id: The six-character confirmation code, such as Q7XK2M.
            reason: Why the member cancels.
        """
        reservation, flight, entry = self._open_reservation(reservation_id)
        clock = self._clock()
        day_ago = (datetime.fromisoformat(f"{clock['today']}T{clock['time']}") - timedelta(hours=24)).isoformat(
            timespec="minutes")
        allowed = (reservation["booked_at"] >= day_ago or entry.get("status") == "cancelled"
                   or reservation["cabin"] == "business" or reservation["travel_insurance"])
        if not allowed:
            raise ToolError("cancellation_not_allowed",
                            f"Reservation {reservation['reservation_id']} was booked more than 24 hours ago in "
                            f"{reservation['cabin']} without travel insurance, and its flight operates; "
                            f"it cannot be cancelled for a refund.")
        customer = self.state.get("customers", reservation["customer_id"])
        net: dict[str, float] = {}
        for payment in reservation["payments"]:
            net[payment["payment_method_id"]] = net.get(payment["payment_method_id"], 0.0) + payment["amount"]
        labels = {m["payment_method_id"]: m for m in customer["payment_methods"]} if customer else {}
        refunds = []
        for payment_method_id, amount in net.items():
            if amount <= 0:
                continue
            method = labels.get(payment_method_id, {"payment_method_id": payment_method_id, "label": payment_method_id})
            refunds.append(self._charge(method, amount))
        if customer is not None:
            self._move_money(customer["customer_id"], [(r["payment_method_id"], -r["amount"]) for r in refunds])
        record = self.state.edit("reservations", reservation["reservation_id"])
        record["status"] = "cancelled"
        record["cancel_reason"] = reason
        if entry.get("status", "scheduled") != "cancelled":
            seats = self.state.edit("flights", flight["flight_number"])["dates"][reservation["date"]]
            if "seats" in seats:
                seats["seats"][CABINS.index(reservation["cabin"])] += len(reservation["passengers"])
        total = round(sum(r["amount"] for r in refunds), 2)
        return {"reservation_id": reservation["reservation_id"], "status": "cancelled", "reason": reason,
                "refunds": refunds, "refund_total": total, "currency": CURRENCY}

    @tool(writes=True, errors=("reservation_not_found", "reservation_already_cancelled", "flight_already_departed",
                               "basic_economy_not_changeable", "invalid_date", "date_out_of_range", "same_date",
                               "flight_not_bookable", "not_enough_seats", "payment_method_not_found",
                               "payment_method_expired", "insufficient_balance"))
    def change_flight_date(self, reservation_id: str, new_date: str, payment_method_id: str) -> ChangeResult:
        """Move a reservation to the same flight on another date, settling the fare difference.

        A higher fare is charged to the payment method; a lower one is refunded to it. Basic economy
        reservations cannot be changed.

        Args:
            reservation_id: The six-character confirmation code, such as Q7XK2M.
            new_date: The new departure date, YYYY-MM-DD.
            payment_method_id: The member's payment method that pays or receives the fare difference, such as
                credit_card_4417203.
        """
        reservation, flight, _ = self._open_reservation(reservation_id)
        if reservation["cabin"] == "basic_economy":
            raise ToolError("basic_economy_not_changeable", "Basic economy reservations cannot change flights.")
        day = new_date.strip()
        entry = self._day(flight, day)
        if day == reservation["date"]:
            raise ToolError("same_date", f"Reservation {reservation['reservation_id']} is already on {day}.")
        self._bookable(flight, day, entry)
        count = len(reservation["passengers"])
        left = self._seats_left(entry, reservation["cabin"])
        if left < count:
            raise ToolError("not_enough_seats", f"Only {left} {reservation['cabin']} seat(s) left on "
                                                f"{flight['flight_number']} on {day}.")
        per_seat = fare(flight["base_fares"], reservation["cabin"], day, self._clock()["today"])
        difference = round((per_seat - reservation["fare_per_passenger"]) * count, 2)
        customer = self._customer(reservation["customer_id"])
        method = self._check_payment(customer, payment_method_id, difference)

        cabin = CABINS.index(reservation["cabin"])
        record = self.state.edit("flights", flight["flight_number"])
        old = record["dates"][reservation["date"]]
        if "seats" in old:
            old["seats"][cabin] += count
        record["dates"][day]["seats"][cabin] -= count
        if difference:
            self._move_money(customer["customer_id"], [(method["payment_method_id"], difference)])
        booking = self.state.edit("reservations", reservation["reservation_id"])
        booking["date"] = day
        booking["fare_per_passenger"] = per_seat
        if difference:
            booking["payments"].append({"payment_method_id": method["payment_method_id"], "amount": difference})
            booking["total_paid"] = round(booking["total_paid"] + difference, 2)
        return {
            "reservation_id": booking["reservation_id"], "flight_number": flight["flight_number"],
            "previous_date": reservation["date"], "date": day, "departure_time": flight["departure_time"],
            "cabin": booking["cabin"], "fare_per_passenger": per_seat, "fare_difference": difference,
            "payment_direction": "refunded" if difference < 0 else "charged",
            "payment": self._charge(method, difference),
        }

    @tool(writes=True, errors=("reservation_not_found", "reservation_already_cancelled", "flight_already_departed",
                               "invalid_bag_count", "bag_limit_exceeded", "payment_method_not_found",
                               "payment_method_expired", "insufficient_balance"))
    def add_checked_bags(self, reservation_id: str, additional_bags: int, payment_method_id: str) -> BagResult:
        """Add checked bags to a reservation; bags beyond the free allowance cost 50 USD each.

        The free allowance per passenger depends on the member's tier and the cabin; at most 4 checked bags
        per passenger.

        Args:
            reservation_id: The six-character confirmation code, such as Q7XK2M.
            additional_bags: How many checked bags to add.
            payment_method_id: The member's payment method that pays any bag fee, such as gift_card_5120334.
        """
        reservation, _, _ = self._open_reservation(reservation_id)
        if additional_bags < 1:
            raise ToolError("invalid_bag_count", "Add at least one bag.")
        count = len(reservation["passengers"])
        current = reservation["checked_bags"]
        if current + additional_bags > MAX_BAGS_PER_PASSENGER * count:
            raise ToolError("bag_limit_exceeded", f"At most {MAX_BAGS_PER_PASSENGER * count} checked bags fit this "
                                                  f"reservation; it already has {current}.")
        free = self._allowance(reservation["customer_id"], reservation["cabin"], count)
        chargeable = max(0, current + additional_bags - free) - max(0, current - free)
        fee = round(chargeable * BAG_FEE, 2)
        customer = self._customer(reservation["customer_id"])
        method = self._check_payment(customer, payment_method_id, fee)

        booking = self.state.edit("reservations", reservation["reservation_id"])
        booking["checked_bags"] = current + additional_bags
        if fee:
            self._move_money(customer["customer_id"], [(method["payment_method_id"], fee)])
            booking["payments"].append({"payment_method_id": method["payment_method_id"], "amount": fee})
            booking["total_paid"] = round(booking["total_paid"] + fee, 2)
        return {"reservation_id": booking["reservation_id"], "bags_added": additional_bags,
                "checked_bags": booking["checked_bags"], "free_bag_allowance": free,
                "chargeable_bags": chargeable, "fee": self._charge(method, fee)}

    @tool(writes=True, errors=("reservation_not_found", "reservation_already_cancelled", "flight_already_departed",
                               "passenger_not_on_reservation", "invalid_name", "invalid_date"))
    def update_passenger_details(
        self, reservation_id: str, passenger_id: str, new_first_name: str, new_last_name: str, new_date_of_birth: str
    ) -> PassengerUpdate:
        """Correct a passenger's name and date of birth on a reservation so they match the travel document.

        Args:
            reservation_id: The six-character confirmation code, such as Q7XK2M.
            passenger_id: Id of the passenger on the reservation to correct, such as pax_3kf8q2mz.
            new_first_name: First name exactly as on the travel document.
            new_last_name: Last name exactly as on the travel document.
            new_date_of_birth: Date of birth, YYYY-MM-DD.
        """
        reservation, _, _ = self._open_reservation(reservation_id)
        index = next((i for i, p in enumerate(reservation["passengers"]) if p["passenger_id"] == passenger_id.strip()),
                     None)
        if index is None:
            raise ToolError("passenger_not_on_reservation",
                            f"{passenger_id} is not a passenger on reservation {reservation['reservation_id']}.")
        first, last = new_first_name.strip(), new_last_name.strip()
        for name in (first, last):
            if not name or not set(name) <= _NAME_CHARS or not any(c.isalpha() for c in name):
                raise ToolError("invalid_name", f"{name!r} is not a valid name; use letters as on the travel document.")
        born = self._check_date(new_date_of_birth)
        if born >= self._clock()["today"]:
            raise ToolError("invalid_date", f"A date of birth must be in the past, not {born}.")
        booking = self.state.edit("reservations", reservation["reservation_id"])
        passenger = booking["passengers"][index]
        previous = f"{passenger['first_name']} {passenger['last_name']}"
        passenger.update(first_name=first, last_name=last, date_of_birth=born)
        return {"reservation_id": booking["reservation_id"], "passenger_id": passenger["passenger_id"],
                "previous_name": previous, "first_name": first, "last_name": last, "date_of_birth": born}


def _parse_day(value: str) -> date:
    return date.fromisoformat(value)


def _later(moment: str, minutes: int) -> str:
    """``moment`` (YYYY-MM-DDTHH:MM) plus ``minutes``."""
    if not minutes:
        return moment
    return (datetime.fromisoformat(moment) + timedelta(minutes=minutes)).isoformat(timespec="minutes")
