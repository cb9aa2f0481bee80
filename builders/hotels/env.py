"""Hotels tools: guests and their loyalty points, hotel search, room availability and bookings."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Literal, Optional, TypedDict

from builders.hotels.state import (
    ACTIVE,
    POINT_VALUE_USD,
    POINTS_PER_USD,
    TIERS,
    booking_code,
    price_totals,
    tier_of,
)
from covert.env import Environment, ToolError, tool

MAX_NIGHTS = 30
BOOKING_WINDOW_DAYS = 365
MAX_SPECIAL_REQUESTS = 4
MIN_REDEMPTION = 2000
REDEMPTION_STEP = 500
NON_REFUNDABLE_DISCOUNT = 0.88
SEARCH_LIMIT = 10


class GuestRef(TypedDict):
    """A guest's id and name.

    Attributes:
        guest_id: The guest's profile id.
        name: The guest's full name, to greet them by.
    """

    guest_id: str
    name: str


class PaymentMethod(TypedDict, total=False):
    """A saved payment method.

    Attributes:
        payment_method_id: Id of the payment method.
        kind: credit_card, debit_card or paypal.
        brand: Card brand (Visa, Mastercard, American Express) or PayPal.
        last_four: Last four digits, for cards.
        expires: Expiry month (YYYY-MM), for cards.
        account_email: The PayPal account's email, for PayPal.
    """

    payment_method_id: str
    kind: str
    brand: str
    last_four: str
    expires: str
    account_email: str


class BookingSummary(TypedDict):
    """One booking in a guest's history.

    Attributes:
        booking_id: The confirmation number.
        hotel_id: The hotel's id.
        hotel_name: The hotel's name.
        city: City of the hotel.
        room_name: The booked room type.
        check_in: Check-in date (YYYY-MM-DD).
        check_out: Check-out date (YYYY-MM-DD).
        status: confirmed, checked-in (stay in progress), completed or cancelled.
        total: Booking total including taxes.
        currency: Currency code.
    """

    booking_id: str
    hotel_id: str
    hotel_name: str
    city: str
    room_name: str
    check_in: str
    check_out: str
    status: str
    total: float
    currency: str


class GuestProfile(TypedDict):
    """A guest profile.

    Attributes:
        guest_id: The guest's profile id.
        name: Full name.
        email: Email address.
        phone: Phone number.
        home_city: The guest's home city.
        loyalty_number: Wayfarer Rewards member number.
        loyalty_tier: Member, Silver, Gold or Platinum.
        member_since: Date the profile was created (YYYY-MM-DD).
        payment_methods: Saved payment methods.
        bookings: The guest's bookings, latest check-in first.
    """

    guest_id: str
    name: str
    email: str
    phone: str
    home_city: str
    loyalty_number: str
    loyalty_tier: str
    member_since: str
    payment_methods: list[PaymentMethod]
    bookings: list[BookingSummary]


class PointsActivity(TypedDict):
    """One movement of loyalty points.

    Attributes:
        date: Date of the movement (YYYY-MM-DD).
        description: What earned or spent the points.
        points_change: Points earned (positive) or spent (negative).
    """

    date: str
    description: str
    points_change: int


class LoyaltyAccount(TypedDict):
    """A Wayfarer Rewards account.

    Attributes:
        guest_id: The guest's profile id.
        loyalty_number: Member number.
        name: Member's full name.
        tier: Member, Silver, Gold or Platinum.
        points_balance: Points available to redeem.
        points_value: What the balance is worth when redeemed.
        currency: Currency of points_value.
        qualifying_nights: Nights stayed this membership year.
        next_tier: The next tier, empty at Platinum (the top tier).
        nights_to_next_tier: Nights still needed for the next tier.
        earn_rate: Points earned per USD spent on room rates, tier bonus included.
        recent_activity: Latest points movements, newest first.
    """

    guest_id: str
    loyalty_number: str
    name: str
    tier: str
    points_balance: int
    points_value: float
    currency: str
    qualifying_nights: int
    next_tier: str
    nights_to_next_tier: int
    earn_rate: float
    recent_activity: list[PointsActivity]


class HotelOffer(TypedDict):
    """A hotel with rooms for the searched stay.

    Attributes:
        hotel_id: The hotel's id.
        hotel_name: The hotel's name.
        neighborhood: Neighborhood.
        star_rating: Official star rating (3 to 5).
        guest_rating: Average guest review score out of 10.
        review_count: Number of guest reviews.
        distance_to_center_km: Distance to the city center in kilometers.
        amenities: Amenities of the hotel.
        lowest_price_per_night: Cheapest flexible nightly rate of a fitting room, before taxes.
        currency: Currency code.
        rooms_left: Rooms still bookable for the whole stay.
        free_cancellation_days: Flexible rates cancel free until this many days before check-in.
    """

    hotel_id: str
    hotel_name: str
    neighborhood: str
    star_rating: int
    guest_rating: float
    review_count: int
    distance_to_center_km: float
    amenities: list[str]
    lowest_price_per_night: float
    currency: str
    rooms_left: int
    free_cancellation_days: int


class _HotelSearch(TypedDict):
    city: str
    check_in: str
    check_out: str
    nights: int
    guests: int
    currency: str
    total_results: int
    hotels: list[HotelOffer]


class HotelSearch(_HotelSearch, total=False):
    """Hotel search results, cheapest first.

    Attributes:
        city: The searched city.
        check_in: Check-in date (YYYY-MM-DD).
        check_out: Check-out date (YYYY-MM-DD).
        nights: Number of nights.
        guests: Number of guests.
        currency: Currency of the prices.
        total_results: How many hotels have a fitting room (at most 10 are listed).
        hotels: The matching hotels.
        cheapest_hotel: Name of the hotel with the lowest nightly rate, when any hotel matches.
        from_price_per_night: The lowest nightly rate among the results, before taxes, when any hotel matches.
    """

    cheapest_hotel: str
    from_price_per_night: float


class RoomOffer(TypedDict):
    """A room type and its price for the requested stay.

    Attributes:
        room_type_id: Id of the room type.
        room_name: Room type name.
        bed_type: Beds in the room.
        max_occupancy: Most guests the room sleeps.
        size_sqm: Room size in square meters.
        breakfast_included: Whether breakfast is included.
        available_rooms: Rooms of this type free for every night of the stay (0 means sold out).
        price_per_night: Flexible (free cancellation) nightly rate, before taxes.
        nonrefundable_price_per_night: Nonrefundable nightly rate, before taxes.
        total_price: Flexible total for the stay, taxes included.
        currency: Currency code.
    """

    room_type_id: str
    room_name: str
    bed_type: str
    max_occupancy: int
    size_sqm: int
    breakfast_included: bool
    available_rooms: int
    price_per_night: float
    nonrefundable_price_per_night: float
    total_price: float
    currency: str


class RoomAvailability(TypedDict):
    """A hotel's rooms for a stay.

    Attributes:
        hotel_id: The hotel's id.
        hotel_name: The hotel's name.
        address: Street address.
        city: City.
        star_rating: Official star rating.
        guest_rating: Average guest review score out of 10.
        amenities: Amenities of the hotel.
        check_in: Check-in date (YYYY-MM-DD).
        check_out: Check-out date (YYYY-MM-DD).
        nights: Number of nights.
        check_in_time: Earliest check-in time (HH:MM, local).
        check_out_time: Latest check-out time (HH:MM, local).
        tax_rate: Taxes and fees added to room rates, as a fraction.
        cancellation_policy: The hotel's cancellation policy.
        rooms: Room types that sleep the party.
    """

    hotel_id: str
    hotel_name: str
    address: str
    city: str
    star_rating: int
    guest_rating: float
    amenities: list[str]
    check_in: str
    check_out: str
    nights: int
    check_in_time: str
    check_out_time: str
    tax_rate: float
    cancellation_policy: str
    rooms: list[RoomOffer]


class CancellationInfo(TypedDict):
    """How a booking was cancelled.

    Attributes:
        cancelled_on: Date of the cancellation (YYYY-MM-DD).
        reason: Why the guest cancelled.
        fee: Cancellation fee charged.
        refund: Amount refunded.
    """

    cancelled_on: str
    reason: str
    fee: float
    refund: float


class _BookingDetails(TypedDict):
    booking_id: str
    status: str
    guest_id: str
    guest_name: str
    hotel_name: str
    hotel_address: str
    city: str
    room_name: str
    check_in: str
    check_out: str
    check_in_time: str
    check_out_time: str
    nights: int
    guests: int
    rate_plan: str
    price_per_night: float
    subtotal: float
    taxes: float
    total: float
    points_redeemed: int
    amount_paid: float
    currency: str
    payment_method: str
    booked_on: str
    cancellation_deadline: str
    free_cancellation: bool
    special_requests: list[str]


class BookingDetails(_BookingDetails, total=False):
    """A full booking.

    Attributes:
        booking_id: The confirmation number.
        status: confirmed, checked-in (stay in progress), completed or cancelled.
        guest_id: The guest who booked.
        guest_name: The guest's full name.
        hotel_name: The hotel's name.
        hotel_address: The hotel's street address.
        city: City of the hotel.
        room_name: The booked room type.
        check_in: Check-in date (YYYY-MM-DD).
        check_out: Check-out date (YYYY-MM-DD).
        check_in_time: Earliest check-in time (HH:MM, local).
        check_out_time: Latest check-out time (HH:MM, local).
        nights: Number of nights.
        guests: Number of guests.
        rate_plan: flexible or nonrefundable.
        price_per_night: Booked nightly rate, before taxes.
        subtotal: Room charges before taxes.
        taxes: Taxes and fees.
        total: Booking total including taxes.
        points_redeemed: Loyalty points applied to the booking.
        amount_paid: Amount charged to the payment method after points.
        currency: Currency code.
        payment_method: The payment method charged, such as "Visa ending in 4242".
        booked_on: Date the booking was made (YYYY-MM-DD).
        cancellation_deadline: Last day to cancel or change free of charge (YYYY-MM-DD); empty unless
            the booking is upcoming (confirmed).
        free_cancellation: Whether the booking can still be cancelled free of charge today.
        special_requests: Requests passed on to the hotel.
        cancellation: How the booking was cancelled, for cancelled bookings.
    """

    cancellation: CancellationInfo


class BookingConfirmation(TypedDict):
    """A new booking.

    Attributes:
        booking_id: The confirmation number.
        status: Always confirmed.
        guest_id: The guest who booked.
        hotel_id: The hotel's id.
        hotel_name: The hotel's name.
        room_type_id: Id of the booked room type.
        room_name: The booked room type.
        check_in: Check-in date (YYYY-MM-DD).
        check_out: Check-out date (YYYY-MM-DD).
        nights: Number of nights.
        guests: Number of guests.
        rate_plan: flexible or nonrefundable.
        price_per_night: Nightly rate, before taxes.
        taxes: Taxes and fees.
        total: Total charged, taxes included.
        currency: Currency code.
        payment_method_id: The payment method charged.
        cancellation_deadline: Last day to cancel or change free of charge (YYYY-MM-DD).
        points_to_earn: Loyalty points credited after the stay.
    """

    booking_id: str
    status: str
    guest_id: str
    hotel_id: str
    hotel_name: str
    room_type_id: str
    room_name: str
    check_in: str
    check_out: str
    nights: int
    guests: int
    rate_plan: str
    price_per_night: float
    taxes: float
    total: float
    currency: str
    payment_method_id: str
    cancellation_deadline: str
    points_to_earn: int


class Refund(TypedDict):
    """Money returned to the guest.

    Attributes:
        amount: Amount refunded.
        currency: Currency code.
        payment_method_id: Where the money goes.
    """

    amount: float
    currency: str
    payment_method_id: str


class CancelResult(TypedDict):
    """A cancelled booking.

    Attributes:
        booking_id: The confirmation number.
        status: Always cancelled.
        hotel_name: The hotel's name.
        cancelled_on: Date of the cancellation (YYYY-MM-DD).
        reason: Why the guest cancelled.
        cancellation_fee: Fee kept for a late cancellation (0 when free).
        refund: Money refunded.
        points_returned: Redeemed points given back to the guest.
    """

    booking_id: str
    status: str
    hotel_name: str
    cancelled_on: str
    reason: str
    cancellation_fee: float
    refund: Refund
    points_returned: int


class DateChange(TypedDict):
    """A booking with new dates.

    Attributes:
        booking_id: The confirmation number.
        status: The booking's status.
        hotel_name: The hotel's name.
        check_in: New check-in date (YYYY-MM-DD).
        check_out: New check-out date (YYYY-MM-DD).
        nights: New number of nights.
        previous_total: Total before the change.
        total: New total, taxes included.
        price_difference: New total minus the previous one; charged when positive, refunded when negative.
        currency: Currency code.
        payment_method_id: The payment method charged or refunded.
        cancellation_deadline: New last day to cancel or change free of charge (YYYY-MM-DD).
    """

    booking_id: str
    status: str
    hotel_name: str
    check_in: str
    check_out: str
    nights: int
    previous_total: float
    total: float
    price_difference: float
    currency: str
    payment_method_id: str
    cancellation_deadline: str


class SpecialRequests(TypedDict):
    """A booking's special requests.

    Attributes:
        booking_id: The confirmation number.
        hotel_name: The hotel's name.
        added_request: The request just added.
        special_requests: Every request on the booking; the hotel tries to honour them but cannot guarantee them.
    """

    booking_id: str
    hotel_name: str
    added_request: str
    special_requests: list[str]


class Credit(TypedDict):
    """Money credited back for redeemed points.

    Attributes:
        amount: Amount credited.
        currency: Currency code.
        payment_method_id: Where the credit goes.
    """

    amount: float
    currency: str
    payment_method_id: str


class Redemption(TypedDict):
    """Points redeemed on a booking.

    Attributes:
        booking_id: The confirmation number.
        points_redeemed: Points redeemed now.
        credit: Money credited back for them.
        amount_paid: What the booking now costs the guest after all points.
        points_balance: The guest's points left.
    """

    booking_id: str
    points_redeemed: int
    credit: Credit
    amount_paid: float
    points_balance: int


RatePlan = Literal["flexible", "nonrefundable"]
CancelReason = Literal["change of plans", "found another option", "trip cancelled", "booked by mistake"]


def _parse(value: str) -> date:
    try:
        return date.fromisoformat(value.strip())
    except (ValueError, AttributeError):
        raise ToolError("invalid_dates", f"{value!r} is not a date; use YYYY-MM-DD.") from None


class HotelsEnv(Environment):
    """A hotel booking service's back office."""

    name = "hotels"

    # -- helpers ---------------------------------------------------------------------------------
    def _today(self) -> date:
        return date.fromisoformat(self.state.get("meta", "clock")["today"])

    def _guest(self, guest_id: str) -> dict:
        guest = self.state.get("guests", guest_id)
        if guest is None:
            raise ToolError("guest_not_found", f"No guest profile has id {guest_id}.")
        return guest

    def _hotel(self, hotel_id: str) -> dict:
        hotel = self.state.get("hotels", hotel_id)
        if hotel is None:
            raise ToolError("hotel_not_found", f"No hotel has id {hotel_id}.")
        return hotel

    def _booking(self, booking_id: str) -> dict:
        booking = self.state.get("bookings", booking_id.strip().upper())
        if booking is None:
            raise ToolError("booking_not_found", f"No booking has confirmation number {booking_id}.")
        return booking

    @staticmethod
    def _room(hotel: dict, room_type_id: str) -> dict | None:
        for room in hotel["room_types"]:
            if room["room_type_id"] == room_type_id:
                return room
        return None

    def _stay(self, check_in: str, check_out: str) -> tuple[str, str, int]:
        start, end = _parse(check_in), _parse(check_out)
        today = self._today()
        if end <= start:
            raise ToolError("invalid_dates", "The check-out date must be after the check-in date.")
        if start < today:
            raise ToolError("invalid_dates", f"The check-in date {start.isoformat()} is in the past (today is {today.isoformat()}).")
        if start > today + timedelta(days=BOOKING_WINDOW_DAYS):
            raise ToolError("invalid_dates", f"Stays can be booked at most {BOOKING_WINDOW_DAYS} days ahead.")
        nights = (end - start).days
        if nights > MAX_NIGHTS:
            raise ToolError("invalid_dates", f"A stay can last at most {MAX_NIGHTS} nights; {nights} requested.")
        return start.isoformat(), end.isoformat(), nights

    def _available(self, room: dict, check_in: str, check_out: str, exclude: str = "") -> int:
        """Rooms of a type free for every night from ``check_in`` to ``check_out``."""
        for start, end in room["sold_out"]:
            if start < check_out and check_in < end:
                return 0
        stays = [
            (b["check_in"], b["check_out"])
            for b in self.state.find("bookings", room_type_id=room["room_type_id"])
            if b["status"] in ACTIVE and b["check_in"] < check_out and check_in < b["check_out"]
            and b["booking_id"] != exclude
        ]
        if not stays:
            return room["inventory"]
        nights = {check_in} | {start for start, _ in stays if start > check_in}
        peak = max(sum(1 for a, b in stays if a <= night < b) for night in nights)
        return max(0, room["inventory"] - peak)

    @staticmethod
    def _policy(hotel: dict) -> str:
        days = hotel["free_cancellation_days"]
        return (f"Flexible rates cancel or change free of charge until {days} day{'s' if days > 1 else ''} before "
                "check-in; later cancellations are charged the first night, taxes included. Nonrefundable rates "
                "can be cancelled or changed only on the day they are booked.")

    @staticmethod
    def _method_label(guest: dict, payment_method_id: str) -> str:
        for method in guest.get("payment_methods", ()):
            if method["payment_method_id"] == payment_method_id:
                if method.get("last_four"):
                    return f"{method['brand']} ending in {method['last_four']}"
                return f"{method['brand']} ({method.get('account_email', '')})"
        return payment_method_id

    def _points_event(self, guest_id: str, points: int, description: str) -> int:
        guest = self.state.edit("guests", guest_id)
        guest["points_balance"] += points
        guest["points_activity"].insert(0, {"date": self._today().isoformat(), "description": description,
                                            "points_change": points})
        return guest["points_balance"]

    def _confirmed(self, booking_id: str, action: str) -> dict:
        booking = self._booking(booking_id)
        if booking["status"] != "confirmed":
            raise ToolError("booking_not_active",
                            f"Only confirmed upcoming bookings can be {action}; {booking['booking_id']} is {booking['status']}.")
        return booking

    # -- reads -----------------------------------------------------------------------------------
    @tool(errors=("guest_not_found",))
    def find_guest_by_email(self, email: str) -> GuestRef:
        """Find a guest's profile id from their email address.

        Args:
            email: The guest's email address, such as maria.chen12@example.com.
        """
        guest = self.state.find_one("guests", email=email.strip().lower())
        if guest is None:
            raise ToolError("guest_not_found", "No guest profile has that email address.")
        return {"guest_id": guest["guest_id"], "name": f"{guest['first_name']} {guest['last_name']}"}

    @tool(errors=("guest_not_found",))
    def find_guest_by_loyalty_number(self, loyalty_number: str) -> GuestRef:
        """Find a guest's profile id from their Wayfarer Rewards member number.

        Args:
            loyalty_number: The member number, such as WR482190773.
        """
        number = loyalty_number.replace(" ", "").replace("-", "").upper()
        guest = self.state.find_one("guests", loyalty_number=number)
        if guest is None:
            raise ToolError("guest_not_found", f"No Wayfarer Rewards member has number {loyalty_number}.")
        return {"guest_id": guest["guest_id"], "name": f"{guest['first_name']} {guest['last_name']}"}

    @tool(errors=("guest_not_found",))
    def get_guest_profile(self, guest_id: str) -> GuestProfile:
        """Get a guest's profile: contact details, loyalty tier, saved payment methods and bookings.

        Args:
            guest_id: The guest's profile id, such as GST-4821907.
        """
        guest = self._guest(guest_id)
        bookings = []
        for booking in self.state.find("bookings", guest_id=guest_id):
            hotel = self.state.get("hotels", booking["hotel_id"]) or {}
            room = self._room(hotel, booking["room_type_id"]) if hotel else None
            bookings.append({
                "booking_id": booking["booking_id"], "hotel_id": booking["hotel_id"],
                "hotel_name": hotel.get("name", ""), "city": hotel.get("city", ""),
                "room_name": room["name"] if room else "", "check_in": booking["check_in"],
                "check_out": booking["check_out"], "status": booking["status"], "total": booking["total"],
                "currency": booking["currency"],
            })
        bookings.sort(key=lambda b: b["check_in"], reverse=True)
        return {
            "guest_id": guest_id, "name": f"{guest['first_name']} {guest['last_name']}", "email": guest["email"],
            "phone": guest["phone"], "home_city": guest["home_city"], "loyalty_number": guest["loyalty_number"],
            "loyalty_tier": guest["loyalty_tier"], "member_since": guest["member_since"],
            "payment_methods": [dict(m) for m in guest["payment_methods"]], "bookings": bookings,
        }

    @tool(errors=("guest_not_found",))
    def get_loyalty_account(self, guest_id: str) -> LoyaltyAccount:
        """Get a guest's Wayfarer Rewards account: tier, points balance and its value, and recent points activity.

        Args:
            guest_id: The guest's profile id, such as GST-4821907.
        """
        guest = self._guest(guest_id)
        nights = guest["qualifying_nights"]
        _, multiplier = tier_of(nights)
        upcoming = [(name, needed) for name, needed, _ in TIERS if needed > nights]
        next_tier, needed = upcoming[0] if upcoming else ("", nights)
        return {
            "guest_id": guest_id, "loyalty_number": guest["loyalty_number"],
            "name": f"{guest['first_name']} {guest['last_name']}", "tier": guest["loyalty_tier"],
            "points_balance": guest["points_balance"],
            "points_value": round(guest["points_balance"] * POINT_VALUE_USD, 2), "currency": "USD",
            "qualifying_nights": nights, "next_tier": next_tier, "nights_to_next_tier": needed - nights,
            "earn_rate": round(POINTS_PER_USD * multiplier, 2),
            "recent_activity": [dict(a) for a in guest["points_activity"][:5]],
        }

    @tool(errors=("invalid_dates", "city_not_served"))
    def search_hotels(
        self, city: str, check_in: str, check_out: str, guests: int, max_price_per_night: Optional[float] = None
    ) -> HotelSearch:
        """Search hotels in a city with a room for the whole stay, cheapest first.

        Args:
            city: The city to stay in, such as Lisbon.
            check_in: Check-in date (YYYY-MM-DD).
            check_out: Check-out date (YYYY-MM-DD).
            guests: Number of guests sharing one room.
            max_price_per_night: Only hotels with a nightly rate at or below this, in USD before taxes.
        """
        name = city.strip()
        hotels = self.state.find("hotels", city=name) or self.state.find(
            "hotels", city=" ".join(w.capitalize() for w in name.split()))
        if not hotels:
            raise ToolError("city_not_served", f"We have no hotels in {city}.")
        ci, co, nights = self._stay(check_in, check_out)
        offers = []
        for hotel in hotels:
            prices, left = [], 0
            for room in hotel["room_types"]:
                if room["max_occupancy"] < guests:
                    continue
                free = self._available(room, ci, co)
                if free and (max_price_per_night is None or room["price_per_night"] <= max_price_per_night):
                    prices.append(room["price_per_night"])
                    left += free
            if not prices:
                continue
            offers.append({
                "hotel_id": hotel["hotel_id"], "hotel_name": hotel["name"], "neighborhood": hotel["neighborhood"],
                "star_rating": hotel["star_rating"], "guest_rating": hotel["guest_rating"],
                "review_count": hotel["review_count"], "distance_to_center_km": hotel["distance_to_center_km"],
                "amenities": list(hotel["amenities"]), "lowest_price_per_night": min(prices),
                "currency": hotel["currency"], "rooms_left": left,
                "free_cancellation_days": hotel["free_cancellation_days"],
            })
        offers.sort(key=lambda o: (o["lowest_price_per_night"], -o["guest_rating"]))
        out = {"city": hotels[0]["city"], "check_in": ci, "check_out": co, "nights": nights, "guests": guests,
               "currency": "USD", "total_results": len(offers), "hotels": offers[:SEARCH_LIMIT]}
        if offers:
            out["cheapest_hotel"] = offers[0]["hotel_name"]
            out["from_price_per_night"] = offers[0]["lowest_price_per_night"]
        return out

    @tool(errors=("hotel_not_found", "invalid_dates"))
    def get_room_availability(self, hotel_id: str, check_in: str, check_out: str, guests: int) -> RoomAvailability:
        """Get a hotel's room types that sleep the party, with rooms left and prices for the stay.

        Args:
            hotel_id: The hotel's id, such as HTL-20418.
            check_in: Check-in date (YYYY-MM-DD).
            check_out: Check-out date (YYYY-MM-DD).
            guests: Number of guests sharing one room.
        """
        hotel = self._hotel(hotel_id)
        ci, co, nights = self._stay(check_in, check_out)
        rooms = []
        for room in hotel["room_types"]:
            if room["max_occupancy"] < guests:
                continue
            rooms.append({
                "room_type_id": room["room_type_id"], "room_name": room["name"], "bed_type": room["bed_type"],
                "max_occupancy": room["max_occupancy"], "size_sqm": room["size_sqm"],
                "breakfast_included": room["breakfast_included"], "available_rooms": self._available(room, ci, co),
                "price_per_night": room["price_per_night"],
                "nonrefundable_price_per_night": round(room["price_per_night"] * NON_REFUNDABLE_DISCOUNT, 2),
                "total_price": price_totals(room["price_per_night"], nights, hotel["tax_rate"])[2],
                "currency": hotel["currency"],
            })
        return {
            "hotel_id": hotel_id, "hotel_name": hotel["name"], "address": hotel["address"], "city": hotel["city"],
            "star_rating": hotel["star_rating"], "guest_rating": hotel["guest_rating"],
            "amenities": list(hotel["amenities"]), "check_in": ci, "check_out": co, "nights": nights,
            "check_in_time": hotel["check_in_time"], "check_out_time": hotel["check_out_time"],
            "tax_rate": hotel["tax_rate"], "cancellation_policy": self._policy(hotel), "rooms": rooms,
        }

    @tool(errors=("booking_not_found",))
    def get_booking_details(self, booking_id: str) -> BookingDetails:
        """Get the full details of a booking: hotel, room, dates, price, payment, cancellation deadline and requests.

        Args:
            booking_id: The confirmation number, such as WS7Q2M9X.
        """
        booking = self._booking(booking_id)
        hotel = self._hotel(booking["hotel_id"])
        room = self._room(hotel, booking["room_type_id"]) or {}
        guest = self.state.get("guests", booking["guest_id"]) or {}
        out = {
            "booking_id": booking["booking_id"], "status": booking["status"], "guest_id": booking["guest_id"],
            "guest_name": f"{guest.get('first_name', '')} {guest.get('last_name', '')}".strip(),
            "hotel_name": hotel["name"], "hotel_address": hotel["address"],
            "city": hotel["city"], "room_name": room.get("name", ""),
            "check_in": booking["check_in"], "check_out": booking["check_out"],
            "check_in_time": hotel["check_in_time"], "check_out_time": hotel["check_out_time"],
            "nights": booking["nights"], "guests": booking["guests"], "rate_plan": booking["rate_plan"],
            "price_per_night": booking["price_per_night"], "subtotal": booking["subtotal"], "taxes": booking["taxes"],
            "total": booking["total"], "points_redeemed": booking["points_redeemed"],
            "amount_paid": booking["amount_paid"], "currency": booking["currency"],
            "payment_method": self._method_label(guest, booking["payment_method_id"]),
            "booked_on": booking["booked_on"],
            # only an upcoming booking can still be cancelled: a completed or cancelled one has no deadline
            "cancellation_deadline": booking["cancellation_deadline"] if booking["status"] == "confirmed" else "",
            "free_cancellation": booking["status"] == "confirmed"
            and self._today().isoformat() <= booking["cancellation_deadline"],
            "special_requests": list(booking["special_requests"]),
        }
        if booking.get("cancellation"):
            out["cancellation"] = dict(booking["cancellation"])
        return out

    # -- writes ----------------------------------------------------------------------------------
    @tool(writes=True, errors=("guest_not_found", "hotel_not_found", "room_type_not_found", "invalid_dates",
                               "invalid_guest_count", "no_availability", "payment_method_not_found",
                               "payment_method_expired"))
    def book_room(
        self, guest_id: str, hotel_id: str, room_type_id: str, check_in: str, check_out: str, guests: int,
        payment_method_id: str, rate_plan: RatePlan = "flexible",
    ) -> BookingConfirmation:
        """Book one room for a guest and charge the stay to one of their saved payment methods.

        Args:
            guest_id: The guest's profile id, such as GST-4821907.
            hotel_id: The hotel's id, such as HTL-20418.
            room_type_id: The room type to book, such as HTL-20418-DKG.
            check_in: Check-in date (YYYY-MM-DD).
            check_out: Check-out date (YYYY-MM-DD).
            guests: Number of guests staying in the room.
            payment_method_id: The guest's saved payment method to charge.
            rate_plan: flexible (free cancellation until the deadline) or nonrefundable (cheaper).
        """
        guest = self._guest(guest_id)
        hotel = self._hotel(hotel_id)
        room = self._room(hotel, room_type_id)
        if room is None:
            raise ToolError("room_type_not_found", f"{hotel['name']} has no room type {room_type_id}.")
        ci, co, nights = self._stay(check_in, check_out)
        if guests < 1 or guests > room["max_occupancy"]:
            raise ToolError("invalid_guest_count",
                            f"The {room['name']} sleeps 1 to {room['max_occupancy']} guests; {guests} requested.")
        method = next((m for m in guest["payment_methods"] if m["payment_method_id"] == payment_method_id), None)
        if method is None:
            raise ToolError("payment_method_not_found", f"{payment_method_id} is not a saved payment method of this guest.")
        today = self._today()
        if method.get("expires") and method["expires"] < today.isoformat()[:7]:
            raise ToolError("payment_method_expired",
                            f"The {method['brand']} card ending in {method['last_four']} expired in {method['expires']}.")
        if self._available(room, ci, co) < 1:
            raise ToolError("no_availability", f"The {room['name']} at {hotel['name']} is sold out for {ci} to {co}.")
        price = room["price_per_night"]
        if rate_plan == "nonrefundable":
            price = round(price * NON_REFUNDABLE_DISCOUNT, 2)
            deadline = today.isoformat()
        else:
            deadline = max(today, date.fromisoformat(ci) - timedelta(days=hotel["free_cancellation_days"])).isoformat()
        subtotal, taxes, total = price_totals(price, nights, hotel["tax_rate"])
        booking_id = booking_code(self.state.next_id("bookings"))
        while self.state.has("bookings", booking_id):
            booking_id = booking_code(self.state.next_id("bookings"))
        points = int(subtotal * POINTS_PER_USD * tier_of(guest["qualifying_nights"])[1])
        self.state.insert("bookings", booking_id, {
            "booking_id": booking_id, "guest_id": guest_id, "hotel_id": hotel_id, "room_type_id": room_type_id,
            "check_in": ci, "check_out": co, "nights": nights, "guests": guests, "rate_plan": rate_plan,
            "price_per_night": price, "subtotal": subtotal, "taxes": taxes, "total": total, "currency": "USD",
            "points_redeemed": 0, "points_credit": 0.0, "amount_paid": total,
            "payment_method_id": payment_method_id, "status": "confirmed", "booked_on": today.isoformat(),
            "cancellation_deadline": deadline, "special_requests": [], "points_to_earn": points,
        })
        return {
            "booking_id": booking_id, "status": "confirmed", "guest_id": guest_id, "hotel_id": hotel_id,
            "hotel_name": hotel["name"], "room_type_id": room_type_id, "room_name": room["name"], "check_in": ci,
            "check_out": co, "nights": nights, "guests": guests, "rate_plan": rate_plan, "price_per_night": price,
            "taxes": taxes, "total": total, "currency": hotel["currency"], "payment_method_id": payment_method_id,
            "cancellation_deadline": deadline, "points_to_earn": points,
        }

    @tool(writes=True, errors=("booking_not_found", "booking_not_active", "non_refundable_rate"))
    def cancel_booking(self, booking_id: str, reason: CancelReason) -> CancelResult:
        """Cancel an upcoming booking: free until its cancellation deadline, then the first night is charged; nonrefundable rates cannot be cancelled after the day they were booked.

        Args:
            booking_id: The confirmation number, such as WS7Q2M9X.
            reason: Why the guest cancels.
        """
        current = self._confirmed(booking_id, "cancelled")
        hotel = self._hotel(current["hotel_id"])
        today = self._today().isoformat()
        late = today > current["cancellation_deadline"]
        if late and current["rate_plan"] == "nonrefundable":
            raise ToolError("non_refundable_rate",
                            f"Booking {current['booking_id']} is nonrefundable and can no longer be cancelled.")
        fee = round(current["price_per_night"] * (1 + hotel["tax_rate"]), 2) if late else 0.0
        refund = round(max(0.0, current["amount_paid"] - fee), 2)
        booking = self.state.edit("bookings", current["booking_id"])
        booking["status"] = "cancelled"
        booking["cancellation"] = {"cancelled_on": today, "reason": reason, "fee": fee, "refund": refund}
        returned = booking["points_redeemed"]
        if returned:
            self._points_event(booking["guest_id"], returned, f"Points returned: cancelled booking {booking['booking_id']}")
        return {
            "booking_id": booking["booking_id"], "status": "cancelled", "hotel_name": hotel["name"],
            "cancelled_on": today, "reason": reason, "cancellation_fee": fee,
            "refund": {"amount": refund, "currency": booking["currency"],
                       "payment_method_id": booking["payment_method_id"]},
            "points_returned": returned,
        }

    @tool(writes=True, errors=("booking_not_found", "booking_not_active", "non_refundable_rate",
                               "change_deadline_passed", "invalid_dates", "no_availability"))
    def change_booking_dates(self, booking_id: str, new_check_in: str, new_check_out: str) -> DateChange:
        """Move an upcoming booking to new dates in the same room type at the booked nightly rate; allowed until its cancellation deadline.

        Args:
            booking_id: The confirmation number, such as WS7Q2M9X.
            new_check_in: New check-in date (YYYY-MM-DD).
            new_check_out: New check-out date (YYYY-MM-DD).
        """
        current = self._confirmed(booking_id, "changed")
        hotel = self._hotel(current["hotel_id"])
        today = self._today()
        if today.isoformat() > current["cancellation_deadline"]:
            if current["rate_plan"] == "nonrefundable":
                raise ToolError("non_refundable_rate",
                                f"Booking {current['booking_id']} is nonrefundable and its dates can no longer be changed.")
            raise ToolError("change_deadline_passed",
                            f"Dates can be changed only until {current['cancellation_deadline']}; it has passed.")
        ci, co, nights = self._stay(new_check_in, new_check_out)
        if (ci, co) == (current["check_in"], current["check_out"]):
            raise ToolError("invalid_dates", f"Booking {current['booking_id']} already runs from {ci} to {co}.")
        room = self._room(hotel, current["room_type_id"])
        if room is None or self._available(room, ci, co, exclude=current["booking_id"]) < 1:
            raise ToolError("no_availability", f"The booked room type at {hotel['name']} is sold out for {ci} to {co}.")
        subtotal, taxes, total = price_totals(current["price_per_night"], nights, hotel["tax_rate"])
        booking = self.state.edit("bookings", current["booking_id"])
        previous = booking["total"]
        booking.update(check_in=ci, check_out=co, nights=nights, subtotal=subtotal, taxes=taxes, total=total,
                       amount_paid=round(max(0.0, total - booking["points_credit"]), 2))
        if booking["rate_plan"] == "flexible":
            booking["cancellation_deadline"] = max(
                today, date.fromisoformat(ci) - timedelta(days=hotel["free_cancellation_days"])).isoformat()
        guest = self.state.get("guests", booking["guest_id"])
        if guest is not None:
            booking["points_to_earn"] = int(subtotal * POINTS_PER_USD * tier_of(guest["qualifying_nights"])[1])
        return {
            "booking_id": booking["booking_id"], "status": booking["status"], "hotel_name": hotel["name"],
            "check_in": ci, "check_out": co, "nights": nights, "previous_total": previous, "total": total,
            "price_difference": round(total - previous, 2), "currency": booking["currency"],
            "payment_method_id": booking["payment_method_id"],
            "cancellation_deadline": booking["cancellation_deadline"],
        }

    @tool(writes=True, errors=("booking_not_found", "booking_not_active", "empty_request", "duplicate_request",
                               "request_limit_reached"))
    def add_special_request(self, booking_id: str, request: str) -> SpecialRequests:
        """Pass a special request (early check-in, crib, quiet room...) to the hotel of an upcoming or current stay.

        Args:
            booking_id: The confirmation number, such as WS7Q2M9X.
            request: The request in the guest's words, such as "a high floor with a view".
        """
        current = self._booking(booking_id)
        if current["status"] not in ACTIVE:
            raise ToolError("booking_not_active",
                            f"Requests can be added only to upcoming or current stays; {current['booking_id']} is {current['status']}.")
        text = " ".join(request.split())
        if len(text) < 3:
            raise ToolError("empty_request", "Describe the request in a few words.")
        if any(text.lower() == r.lower() for r in current["special_requests"]):
            raise ToolError("duplicate_request", f"Booking {current['booking_id']} already has that request.")
        if len(current["special_requests"]) >= MAX_SPECIAL_REQUESTS:
            raise ToolError("request_limit_reached",
                            f"A booking can carry at most {MAX_SPECIAL_REQUESTS} special requests.")
        booking = self.state.edit("bookings", current["booking_id"])
        booking["special_requests"].append(text)
        hotel = self.state.get("hotels", booking["hotel_id"]) or {}
        return {"booking_id": booking["booking_id"], "hotel_name": hotel.get("name", ""), "added_request": text,
                "special_requests": list(booking["special_requests"])}

    @tool(writes=True, errors=("booking_not_found", "booking_not_active", "invalid_points_amount",
                               "insufficient_points", "exceeds_amount_due"))
    def redeem_points(self, booking_id: str, points: int) -> Redemption:
        """Redeem the booking guest's loyalty points on an upcoming booking; each point is worth 0.005 USD, credited back to the booking's payment method.

        Args:
            booking_id: The confirmation number, such as WS7Q2M9X.
            points: Points to redeem: at least 2000, in steps of 500.
        """
        current = self._confirmed(booking_id, "paid with points")
        if points < MIN_REDEMPTION or points % REDEMPTION_STEP:
            raise ToolError("invalid_points_amount",
                            f"Points are redeemed in steps of {REDEMPTION_STEP}, at least {MIN_REDEMPTION}; {points} requested.")
        guest = self._guest(current["guest_id"])
        if guest["points_balance"] < points:
            raise ToolError("insufficient_points",
                            f"The guest has {guest['points_balance']} points; {points} requested.")
        credit = round(points * POINT_VALUE_USD, 2)
        if credit > current["amount_paid"]:
            raise ToolError("exceeds_amount_due",
                            f"{points} points are worth {credit:.2f} USD but only {current['amount_paid']:.2f} USD is left to pay.")
        booking = self.state.edit("bookings", current["booking_id"])
        booking["points_redeemed"] += points
        booking["points_credit"] = round(booking["points_credit"] + credit, 2)
        booking["amount_paid"] = round(booking["amount_paid"] - credit, 2)
        balance = self._points_event(guest["guest_id"], -points, f"Redeemed on booking {booking['booking_id']}")
        return {
            "booking_id": booking["booking_id"], "points_redeemed": points,
            "credit": {"amount": credit, "currency": booking["currency"],
                       "payment_method_id": booking["payment_method_id"]},
            "amount_paid": booking["amount_paid"], "points_balance": balance,
        }
