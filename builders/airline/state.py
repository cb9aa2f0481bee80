"""Seeded state factory for the airline domain: airports, a daily flight schedule, Larkmiles members and
their reservations.

Every flight operates daily over a short published window around "today" (yesterday to nine days ahead),
so any flight number can be asked about on any date of the window. Fares are not stored per date: they
are a flight's base fare times a demand factor of the date (see :func:`fare`), so tools and the seed agree.
"""

from __future__ import annotations

import math
import random
from datetime import date, datetime, timedelta
from typing import Any

from covert.env.people import personal_email

AIRLINE = "Skylark Airways"
CURRENCY = "USD"
CABINS = ("basic_economy", "economy", "business")
TIERS = ("regular", "silver", "gold")
SCHEDULE_BEFORE = 1  # days of the window before today
SCHEDULE_AFTER = 9  # days of the window after today
INSURANCE_PER_PASSENGER = 30.0
BAG_FEE = 50.0
MAX_BAGS_PER_PASSENGER = 4
# free checked bags per passenger, by membership tier and cabin
FREE_BAGS = {
    "regular": {"basic_economy": 0, "economy": 1, "business": 2},
    "silver": {"basic_economy": 1, "economy": 2, "business": 3},
    "gold": {"basic_economy": 2, "economy": 3, "business": 3},
}

# code, city, airport name, latitude, longitude, UTC offset (standard time)
AIRPORTS = (
    ("ATL", "Atlanta", "Hartsfield-Jackson Atlanta International", 33.64, -84.43, -5),
    ("BOS", "Boston", "Boston Logan International", 42.36, -71.01, -5),
    ("ORD", "Chicago", "Chicago O'Hare International", 41.97, -87.91, -6),
    ("DFW", "Dallas", "Dallas/Fort Worth International", 32.90, -97.04, -6),
    ("DEN", "Denver", "Denver International", 39.86, -104.67, -7),
    ("LAX", "Los Angeles", "Los Angeles International", 33.94, -118.41, -8),
    ("MIA", "Miami", "Miami International", 25.80, -80.29, -5),
    ("MSP", "Minneapolis", "Minneapolis-Saint Paul International", 44.88, -93.22, -6),
    ("JFK", "New York", "John F. Kennedy International", 40.64, -73.78, -5),
    ("PHL", "Philadelphia", "Philadelphia International", 39.87, -75.24, -5),
    ("PHX", "Phoenix", "Phoenix Sky Harbor International", 33.43, -112.01, -7),
    ("SEA", "Seattle", "Seattle-Tacoma International", 47.45, -122.31, -8),
    ("SFO", "San Francisco", "San Francisco International", 37.62, -122.38, -8),
    ("IAH", "Houston", "George Bush Intercontinental", 29.99, -95.34, -6),
    ("LAS", "Las Vegas", "Harry Reid International", 36.08, -115.15, -8),
    ("DTW", "Detroit", "Detroit Metropolitan Wayne County", 42.21, -83.35, -5),
    ("CLT", "Charlotte", "Charlotte Douglas International", 35.21, -80.94, -5),
    ("MCO", "Orlando", "Orlando International", 28.43, -81.31, -5),
    ("SLC", "Salt Lake City", "Salt Lake City International", 40.79, -111.98, -7),
    ("PDX", "Portland", "Portland International", 45.59, -122.60, -8),
)
AIRCRAFT = ("Airbus A220-300", "Airbus A320neo", "Airbus A321neo", "Boeing 737-800", "Boeing 737 MAX 8",
            "Boeing 757-200", "Embraer E175")
FIRST_NAMES = (
    "Maria", "James", "Aisha", "Chen", "Lucas", "Sofia", "Omar", "Yuki", "Elena", "Mateo", "Priya", "Noah",
    "Fatima", "Liam", "Hana", "Diego", "Amara", "Jonas", "Ingrid", "Ravi", "Chloe", "Kwame", "Mei", "Tomas",
    "Grace", "Ethan", "Leila", "Samuel", "Nadia", "Oscar", "Zara", "Henry",
)
LAST_NAMES = (
    "Chen", "Garcia", "Okafor", "Muller", "Rossi", "Nguyen", "Silva", "Kowalski", "Haddad", "Tanaka", "Smith",
    "Johansson", "Patel", "Dubois", "Kim", "Novak", "Mensah", "Lopez", "Schmidt", "Ivanova", "Park", "Costa",
    "Brennan", "Alvarez", "Fischer", "Yilmaz", "Osei", "Lindqvist",
)
COMPANIONS = ("spouse", "child", "parent", "friend", "colleague", "partner", "sibling")
CARD_BRANDS = (("visa", "Visa"), ("mastercard", "Mastercard"), ("amex", "American Express"))
AREA_CODES = ("212", "312", "415", "617", "303", "206", "305", "512", "404", "702", "801", "503")
LOCATOR_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
ID_ALPHABET = "abcdefghijkmnpqrstuvwxyz23456789"


def fare_factor(day: str, today: str) -> float:
    """Demand factor of a travel date: dearer close to departure and on Fridays and Sundays."""
    travel = date.fromisoformat(day)
    ahead = (travel - date.fromisoformat(today)).days
    return 1.0 + 0.04 * max(0, 10 - ahead) + (0.08 if travel.weekday() in (4, 6) else 0.0)


def fare(base: dict[str, float], cabin: str, day: str, today: str) -> float:
    """The fare of one seat in ``cabin`` on ``day`` as sold ``today``."""
    return round(base[cabin] * fare_factor(day, today), 2)


def locator(number: int) -> str:
    """A six-character record locator for the ``number``-th reservation made through the tools."""
    value = (number * 0x2F1B3A5 + 0x1D2C3B4) % (1 << 30)
    chars = []
    for _ in range(6):
        value, digit = divmod(value, 32)
        chars.append(LOCATOR_ALPHABET[digit])
    return "".join(chars)


def _distance_km(a: tuple, b: tuple) -> float:
    lat1, lon1, lat2, lon2 = map(math.radians, (a[3], a[4], b[3], b[4]))
    h = math.sin((lat2 - lat1) / 2) ** 2 + math.cos(lat1) * math.cos(lat2) * math.sin((lon2 - lon1) / 2) ** 2
    return 2 * 6371 * math.asin(math.sqrt(h))


def _code(rng: random.Random, alphabet: str, length: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(length))


def _flights(rng: random.Random, scale: int, today: date, now: str) -> tuple[dict[str, Any], set[str]]:
    pairs = [(a, b) for i, a in enumerate(AIRPORTS) for b in AIRPORTS[i + 1:]]
    count = 4 * scale
    numbers = rng.sample(range(100, 100 + max(9900, 4 * count)), 2 * count)
    flights: dict[str, Any] = {}
    used: set[str] = set()
    start = today - timedelta(days=SCHEDULE_BEFORE)
    days = [(start + timedelta(days=k)).isoformat() for k in range(SCHEDULE_BEFORE + SCHEDULE_AFTER + 1)]
    today_iso = today.isoformat()
    now_minutes = int(now[:2]) * 60 + int(now[3:])
    if scale == 1:
        # a compact network: a hub with three spokes, the busiest route flown twice a day each way
        hub, *spokes = rng.sample(AIRPORTS, 4)
        chosen = [(hub, spokes[0]), (hub, spokes[0]), (hub, spokes[1]), (hub, spokes[2])]
    else:
        chosen = [rng.choice(pairs) for _ in range(count)]
    for k, (a, b) in enumerate(chosen):
        km = _distance_km(a, b)
        minutes = int(round((km / 780 * 60 + 35) / 5) * 5)
        economy = round(79 + 0.105 * km + rng.uniform(-15, 25), 0)
        base = {"basic_economy": round(economy * 0.74, 0), "economy": economy,
                "business": round(economy * rng.uniform(2.8, 3.6), 0)}
        aircraft = rng.choice(AIRCRAFT)
        for leg, (src, dst) in enumerate(((a, b), (b, a))):
            number = f"SK{numbers[2 * k + leg]}"
            dep = rng.randrange(5 * 12 + 6, 22 * 12) * 5  # minutes after midnight, 05:30-21:55
            arr = dep + minutes + (dst[5] - src[5]) * 60
            dates: dict[str, Any] = {}
            for day in days:
                entry: dict[str, Any] = {}  # no status: scheduled
                roll = rng.random()
                if day < today_iso:
                    entry["status"] = "cancelled" if roll < 0.05 else "landed"
                elif day == today_iso and dep <= now_minutes:
                    entry["status"] = "landed" if dep + minutes <= now_minutes else "departed"
                elif roll < 0.05:
                    entry["status"] = "cancelled"
                elif day == today_iso and roll < 0.3:
                    entry["status"] = "delayed"
                    entry["delay_minutes"] = rng.randrange(3, 25) * 5
                if entry.get("status", "scheduled") in ("scheduled", "delayed"):
                    # seats left per cabin, in CABINS order (basic economy, economy, business)
                    entry["seats"] = [rng.choice((0, 1, 2, 4, 6, 9)), rng.choice((0, 2, 5, 8, 12, 17, 24)),
                                      rng.choice((0, 1, 2, 3, 4, 6))]
                dates[day] = entry
            flights[number] = {
                "flight_number": number, "origin": src[0], "destination": dst[0], "route": f"{src[0]}-{dst[0]}",
                "departure_time": f"{dep // 60:02d}:{dep % 60:02d}",
                "arrival_time": f"{arr // 60 % 24:02d}:{arr % 60:02d}", "arrival_day_offset": arr // 1440,
                "duration_minutes": minutes, "aircraft": aircraft,
                "terminal": rng.choice(("1", "2", "3", "A", "B", "C")), "gate": f"{rng.choice('ABCDE')}{rng.randrange(1, 40)}",
                "base_fares": base, "dates": dates,
            }
            used.update((src[0], dst[0]))
    return flights, used


def make_state(rng: random.Random, scale: int = 1) -> dict[str, Any]:
    """A small airline: four round-trip routes (eight flights) and 3-4 members per unit of scale, each with 1-3
    reservations."""
    today = date(2026, 1, 5) + timedelta(days=rng.randrange(0, 300))
    today_iso = today.isoformat()
    now = f"{rng.randrange(8, 19):02d}:{rng.randrange(0, 12) * 5:02d}"
    flights, used = _flights(rng, scale, today, now)
    airports = {
        code: {"code": code, "city": city, "name": name, "utc_offset": offset}
        for code, city, name, _lat, _lon, offset in AIRPORTS if code in used
    }
    numbers = list(flights)
    customers: dict[str, Any] = {}
    reservations: dict[str, Any] = {}
    used_names: set[tuple[str, str]] = set()
    used_locators: set[str] = set()
    for _ in range(rng.randint(3, 4) * scale):
        first, last = rng.choice(FIRST_NAMES), rng.choice(LAST_NAMES)
        while (first, last) in used_names and len(used_names) < len(FIRST_NAMES) * len(LAST_NAMES):
            first, last = rng.choice(FIRST_NAMES), rng.choice(LAST_NAMES)
        used_names.add((first, last))
        customer_id = f"cu_{_code(rng, ID_ALPHABET, 10)}"
        tier = rng.choices(TIERS, (5, 3, 2))[0]
        born = date(1950, 1, 1) + timedelta(days=rng.randrange(0, 365 * 50))
        methods: list[dict[str, Any]] = []
        for brand, brand_name in rng.sample(CARD_BRANDS, rng.randint(1, 2)):
            last_four = f"{rng.randrange(0, 10000):04d}"
            methods.append({"payment_method_id": f"credit_card_{rng.randrange(1000000, 9999999)}", "kind": "credit_card",
                            "label": f"{brand_name} ending in {last_four}", "brand": brand, "last_four": last_four})
        if rng.random() < 0.5:
            methods.append({"payment_method_id": f"gift_card_{rng.randrange(1000000, 9999999)}", "kind": "gift_card",
                            "label": "gift card", "balance": float(rng.randrange(4, 60) * 10), "currency": CURRENCY})
        if rng.random() < 0.45:
            expires = today + timedelta(days=rng.choice((-20, 45, 120, 200, 330)))
            methods.append({"payment_method_id": f"certificate_{rng.randrange(1000000, 9999999)}", "kind": "certificate",
                            "label": "travel certificate", "balance": float(rng.choice((100, 150, 200, 250, 300, 500))),
                            "currency": CURRENCY, "expires_on": expires.isoformat()})
        passengers = [{"passenger_id": f"pax_{_code(rng, ID_ALPHABET, 8)}", "first_name": first, "last_name": last,
                       "date_of_birth": born.isoformat(), "relationship": "self"}]
        for relation in rng.sample(COMPANIONS, rng.choice((0, 1, 1, 2, 2, 3))):
            other_last = last if relation in ("spouse", "child", "parent", "sibling") and rng.random() < 0.8 else rng.choice(LAST_NAMES)
            other_first = rng.choice([n for n in FIRST_NAMES if n != first])
            years = {"child": rng.randrange(4, 17), "parent": 60 + rng.randrange(0, 25)}.get(relation, rng.randrange(22, 70))
            dob = today - timedelta(days=365 * years + rng.randrange(0, 365))
            passengers.append({"passenger_id": f"pax_{_code(rng, ID_ALPHABET, 8)}", "first_name": other_first,
                               "last_name": other_last, "date_of_birth": dob.isoformat(), "relationship": relation})
        own: list[str] = []
        for _ in range(rng.choice((1, 1, 2, 2, 3))):
            reservation_id = _code(rng, LOCATOR_ALPHABET, 6)
            while reservation_id in used_locators:
                reservation_id = _code(rng, LOCATOR_ALPHABET, 6)
            used_locators.add(reservation_id)
            flight = flights[rng.choice(numbers)]
            day = (today + timedelta(days=rng.randrange(-SCHEDULE_BEFORE, SCHEDULE_AFTER + 1))).isoformat()
            if day > today_iso and rng.random() < 0.1:
                entry = flight["dates"][day]
                entry["status"] = "cancelled"
                entry.pop("seats", None)
                entry.pop("delay_minutes", None)
            cabin = rng.choices(CABINS, (3, 5, 2))[0]
            travellers = [passengers[0], *rng.sample(passengers[1:], rng.randint(0, len(passengers) - 1))]
            per_seat = round(fare(flight["base_fares"], cabin, day, today_iso) * rng.uniform(0.82, 1.0), 2)
            insured = rng.random() < 0.3
            total = round(per_seat * len(travellers) + (INSURANCE_PER_PASSENGER * len(travellers) if insured else 0), 2)
            payer = rng.choice(methods)
            current = datetime.fromisoformat(f"{today_iso}T{now}")
            if day > today_iso and rng.random() < 0.3:
                booked = current - timedelta(minutes=rng.randrange(20, 1200))  # within the last 24 hours
            else:
                booked = min(current, datetime.fromisoformat(f"{day}T05:00")) - timedelta(
                    days=rng.randrange(2, 60), minutes=rng.randrange(0, 600))
            allowance = FREE_BAGS[tier][cabin] * len(travellers)
            reservations[reservation_id] = {
                "reservation_id": reservation_id, "customer_id": customer_id, "flight_number": flight["flight_number"],
                "date": day, "cabin": cabin, "status": "cancelled" if rng.random() < 0.12 else "confirmed",
                "passengers": [{k: p[k] for k in ("passenger_id", "first_name", "last_name", "date_of_birth")}
                               for p in travellers],
                "fare_per_passenger": per_seat, "travel_insurance": insured,
                "checked_bags": rng.randint(0, min(allowance, len(travellers)) + 1),
                "payments": [{"payment_method_id": payer["payment_method_id"], "amount": total}],
                "total_paid": total, "currency": CURRENCY, "booked_at": booked.isoformat(timespec="minutes"),
            }
            own.append(reservation_id)
        customers[customer_id] = {
            "customer_id": customer_id, "first_name": first, "last_name": last,
            "email": personal_email(rng, first, last, rng.randrange(1, 99)),
            "phone": f"+1-{rng.choice(AREA_CODES)}-555-{rng.randrange(100, 10000):04d}",
            "date_of_birth": born.isoformat(), "membership_number": f"LM{rng.randrange(10**7, 10**8)}",
            "tier": tier, "miles_balance": rng.randrange(0, 180) * 500 + rng.randrange(0, 500),
            "member_since": (today - timedelta(days=rng.randrange(90, 4000))).isoformat(),
            "payment_methods": methods, "saved_passengers": passengers, "reservations": own,
        }
    start = today - timedelta(days=SCHEDULE_BEFORE)
    end = today + timedelta(days=SCHEDULE_AFTER)
    return {
        "tables": {
            "airports": airports, "flights": flights, "customers": customers, "reservations": reservations,
            "meta": {"clock": {"today": today_iso, "time": now, "schedule_start": start.isoformat(),
                               "schedule_end": end.isoformat()}},
        },
        # record locators of new bookings derive from this counter; a seeded start keeps them distinct
        "counters": {"reservations": rng.randrange(1000, 1000000)},
    }
