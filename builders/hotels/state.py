"""Seeded state factory for the hotels domain: hotels with room types, guests, their bookings and points."""

from __future__ import annotations

import random
from datetime import date, timedelta
from typing import Any

from covert.env.people import personal_email

# city, country, nightly base rate in USD, taxes and fees rate, neighborhoods, streets
CITIES = (
    ("Lisbon", "Portugal", 150, 0.06, ("Alfama", "Chiado", "Baixa", "Principe Real"),
     ("Rua Augusta", "Rua da Prata", "Avenida da Liberdade")),
    ("Barcelona", "Spain", 175, 0.10, ("Gothic Quarter", "Eixample", "Gracia", "Barceloneta"),
     ("Carrer de Balmes", "Passeig de Gracia", "Carrer de Mallorca")),
    ("London", "United Kingdom", 240, 0.20, ("Soho", "Shoreditch", "South Bank", "Kensington"),
     ("Great Portland Street", "Old Street", "Cromwell Road")),
    ("Paris", "France", 230, 0.10, ("Le Marais", "Saint-Germain", "Montmartre", "Opera"),
     ("Rue de Rivoli", "Boulevard Haussmann", "Rue Lepic")),
    ("Amsterdam", "Netherlands", 210, 0.125, ("Jordaan", "De Pijp", "Centrum", "Oud-West"),
     ("Prinsengracht", "Ferdinand Bolstraat", "Damrak")),
    ("Rome", "Italy", 180, 0.10, ("Trastevere", "Monti", "Prati", "Centro Storico"),
     ("Via del Corso", "Via Cavour", "Via Cola di Rienzo")),
    ("Berlin", "Germany", 140, 0.075, ("Mitte", "Kreuzberg", "Prenzlauer Berg", "Charlottenburg"),
     ("Friedrichstrasse", "Oranienstrasse", "Kurfuerstendamm")),
    ("New York", "United States", 290, 0.148, ("Midtown", "SoHo", "Chelsea", "Upper West Side"),
     ("West 44th Street", "Broome Street", "Amsterdam Avenue")),
    ("Chicago", "United States", 190, 0.174, ("The Loop", "River North", "Wicker Park", "Lincoln Park"),
     ("North Michigan Avenue", "West Kinzie Street", "North Clark Street")),
    ("San Francisco", "United States", 250, 0.14, ("Union Square", "Fisherman's Wharf", "SoMa", "Nob Hill"),
     ("Powell Street", "Jefferson Street", "Howard Street")),
    ("Seattle", "United States", 200, 0.157, ("Downtown", "Capitol Hill", "Belltown", "Pioneer Square"),
     ("Pike Street", "2nd Avenue", "Occidental Avenue")),
    ("Miami", "United States", 220, 0.13, ("South Beach", "Brickell", "Wynwood", "Coconut Grove"),
     ("Collins Avenue", "Brickell Avenue", "Grand Avenue")),
    ("Toronto", "Canada", 180, 0.17, ("Yorkville", "Distillery District", "Queen West", "Harbourfront"),
     ("Bloor Street West", "Queen Street West", "Front Street")),
    ("Mexico City", "Mexico", 120, 0.19, ("Roma Norte", "Condesa", "Polanco", "Centro Historico"),
     ("Avenida Alvaro Obregon", "Calle Amsterdam", "Avenida Presidente Masaryk")),
    ("Tokyo", "Japan", 200, 0.10, ("Shinjuku", "Shibuya", "Ginza", "Asakusa"),
     ("Meiji-dori", "Chuo-dori", "Kaminarimon-dori")),
    ("Singapore", "Singapore", 230, 0.19, ("Marina Bay", "Chinatown", "Orchard", "Kampong Glam"),
     ("Orchard Road", "South Bridge Road", "Arab Street")),
    ("Sydney", "Australia", 210, 0.10, ("Circular Quay", "Darling Harbour", "Surry Hills", "Bondi"),
     ("George Street", "Crown Street", "Campbell Parade")),
    ("Dubai", "United Arab Emirates", 230, 0.16, ("Downtown", "Dubai Marina", "Jumeirah", "Deira"),
     ("Sheikh Mohammed bin Rashid Boulevard", "Al Marsa Street", "Jumeirah Beach Road")),
)
BRANDS = ("Meridian", "Atlas", "Lumen", "Northwind", "Solace", "Cobalt", "Parkline", "Harbor & Vine",
          "Ivy Court", "Saltwater", "Old Mill", "Wayfarer Select")
HOUSE_NOUNS = ("Linden", "Copper Lantern", "Juniper", "Ashgrove", "Marigold", "Foundry", "Cartographer",
               "Larkspur", "Driftwood", "Bellhop", "Wren", "Silver Birch")
HOUSE_KINDS = ("Hotel", "House", "Inn", "Suites")
HOTEL_NAMES = ("Aurelia", "Montclair", "Solana", "Vireo", "Castellan", "Orsay", "Belmonte", "Alder")
AMENITIES = ("free wifi", "fitness center", "pool", "spa", "restaurant", "bar", "parking", "airport shuttle",
             "pet friendly", "rooftop terrace", "24-hour front desk", "breakfast buffet", "business center",
             "EV charging", "laundry service", "kids club")
# code, name, bed type, max occupancy, size in square meters, price multiplier
ROOM_TYPES = (
    ("STQ", "Standard Queen Room", "1 queen bed", 2, 20, 1.0),
    ("STT", "Standard Twin Room", "2 twin beds", 2, 22, 1.0),
    ("DKG", "Deluxe King Room", "1 king bed", 2, 28, 1.3),
    ("DQQ", "Deluxe Double Queen Room", "2 queen beds", 4, 32, 1.45),
    ("FAM", "Family Room", "1 king bed and a sofa bed", 4, 38, 1.6),
    ("JRS", "Junior Suite", "1 king bed", 3, 45, 2.0),
    ("EXS", "Executive Suite", "1 king bed and a separate living room", 3, 60, 2.8),
)
STAR_FACTOR = {3: 0.75, 4: 1.0, 5: 1.6}

FIRST_NAMES = (
    "Maria", "James", "Aisha", "Chen", "Lucas", "Sofia", "Omar", "Yuki", "Elena", "Mateo", "Priya", "Noah",
    "Fatima", "Liam", "Hana", "Diego", "Amara", "Jonas", "Ingrid", "Ravi", "Chloe", "Kwame", "Mei", "Tomas",
    "Grace", "Henrik", "Leila", "Pablo", "Nadia", "Oliver",
)
LAST_NAMES = (
    "Chen", "Garcia", "Okafor", "Muller", "Rossi", "Nguyen", "Silva", "Kowalski", "Haddad", "Tanaka", "Smith",
    "Johansson", "Patel", "Dubois", "Kim", "Novak", "Mensah", "Lopez", "Schmidt", "Ivanova", "Park", "Costa",
    "Bergstrom", "O'Neill", "Fischer", "Moreau",
)
HOME_CITIES = (("Boston", "+1"), ("Toronto", "+1"), ("Denver", "+1"), ("Manchester", "+44"), ("Lyon", "+33"),
               ("Munich", "+49"), ("Melbourne", "+61"), ("Osaka", "+81"), ("Madrid", "+34"), ("Dublin", "+353"))
CARD_BRANDS = ("Visa", "Mastercard", "American Express")
# requests already on seeded bookings
SPECIAL_REQUESTS = (
    "late check-out around 1 pm", "early check-in around 11 am", "a quiet room away from the elevator",
    "a high floor with a view", "extra pillows and a blanket", "twin beds pushed together",
)
# requests users ask to add (distinct from the seeded ones, so adding one rarely duplicates)
REQUEST_IDEAS = (
    "a crib for our baby", "airport pickup on arrival", "a room with a bathtub",
    "a bottle of sparkling wine for our anniversary", "a ground-floor room", "hypoallergenic bedding",
    "a late check-out at noon", "an extra towel set", "a room close to the lift", "a vegan breakfast option",
)
CANCEL_REASONS = ("change of plans", "found another option", "trip cancelled", "booked by mistake")

# loyalty tiers: (name, qualifying nights needed, points multiplier)
TIERS = (("Member", 0, 1.0), ("Silver", 10, 1.1), ("Gold", 25, 1.25), ("Platinum", 50, 1.5))
POINTS_PER_USD = 10
POINT_VALUE_USD = 0.005
ACTIVE = ("confirmed", "checked-in")
_CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"


def tier_of(nights: int) -> tuple[str, float]:
    """The loyalty tier and points multiplier earned by ``nights`` qualifying nights."""
    name, multiplier = TIERS[0][0], TIERS[0][2]
    for tier, needed, mult in TIERS:
        if nights >= needed:
            name, multiplier = tier, mult
    return name, multiplier


def booking_code(number: int) -> str:
    """A confirmation number such as WS7Q2M9X derived from a counter (for bookings made by tools)."""
    value = (number * 0x9E3779B1 + 0x5BD1E995) % (32 ** 6)
    chars = []
    for _ in range(6):
        value, digit = divmod(value, 32)
        chars.append(_CODE_ALPHABET[digit])
    return "WS" + "".join(chars)


def price_totals(price_per_night: float, nights: int, tax_rate: float) -> tuple[float, float, float]:
    """``(subtotal, taxes, total)`` of a stay."""
    subtotal = round(price_per_night * nights, 2)
    taxes = round(subtotal * tax_rate, 2)
    return subtotal, taxes, round(subtotal + taxes, 2)


def _hotel_name(rng: random.Random, city: str, neighborhood: str, street: str, taken: set[str]) -> str:
    for _ in range(30):
        style = rng.random()
        if style < 0.4:
            name = f"{rng.choice(BRANDS)} {city} {neighborhood}"
        elif style < 0.8:
            name = f"The {rng.choice(HOUSE_NOUNS)} {rng.choice(HOUSE_KINDS)}"
        else:
            name = f"Hotel {rng.choice(HOTEL_NAMES)} {neighborhood}"
        if (city, name) not in taken:
            break
    else:
        name = f"{rng.choice(BRANDS)} {street}"
        number = 2
        while (city, name) in taken:
            name = f"{rng.choice(BRANDS)} {street} {number}"
            number += 1
    taken.add((city, name))
    return name


def _hotels(rng: random.Random, scale: int, today: date) -> dict[str, Any]:
    cities = rng.sample(CITIES, 3 if scale == 1 else min(len(CITIES), 3 + scale))
    count = rng.randint(5, 6) * scale
    hotels: dict[str, Any] = {}
    taken: set[Any] = set()
    for index in range(count):
        city, country, base, tax, neighborhoods, streets = cities[index % len(cities)]
        hotel_id = f"HTL-{rng.randrange(10000, 99999)}"
        while hotel_id in hotels:
            hotel_id = f"HTL-{rng.randrange(10000, 99999)}"
        neighborhood, street = rng.choice(neighborhoods), rng.choice(streets)
        stars = rng.choice((3, 3, 4, 4, 4, 5))
        room_types = []
        for code, name, bed, occupancy, size, multiplier in sorted(
            rng.sample(ROOM_TYPES, rng.randint(2, 3) if scale == 1 else rng.randint(2, 4)),
            key=lambda r: r[5],
        ):
            sold_out = []
            if rng.random() < 0.25:
                start = today + timedelta(days=rng.randrange(2, 45))
                sold_out.append([start.isoformat(), (start + timedelta(days=rng.randint(2, 5))).isoformat()])
            room_types.append({
                "room_type_id": f"{hotel_id}-{code}", "name": name, "bed_type": bed, "max_occupancy": occupancy,
                "size_sqm": size + rng.randrange(0, 6),
                "price_per_night": float(round(base * STAR_FACTOR[stars] * multiplier * rng.uniform(0.88, 1.12))),
                "breakfast_included": rng.random() < 0.35, "inventory": rng.randint(2, 8), "sold_out": sold_out,
            })
        hotels[hotel_id] = {
            "hotel_id": hotel_id,
            "name": _hotel_name(rng, city, neighborhood, street, taken),
            "city": city, "country": country, "neighborhood": neighborhood,
            "address": f"{rng.randrange(1, 240)} {street}, {neighborhood}, {city}",
            "star_rating": stars,
            "guest_rating": round(min(9.8, rng.uniform(6.8, 8.6) + 0.3 * (stars - 3)), 1),
            "review_count": rng.randrange(60, 4200),
            "distance_to_center_km": round(rng.uniform(0.2, 6.5), 1),
            "amenities": sorted(rng.sample(AMENITIES, rng.randint(4, 6) if stars < 5 else rng.randint(6, 8))),
            "check_in_time": rng.choice(("14:00", "15:00", "16:00")),
            "check_out_time": rng.choice(("10:00", "11:00", "12:00")),
            "free_cancellation_days": rng.choice((1, 2, 3, 7)),
            "tax_rate": tax, "currency": "USD", "room_types": room_types,
        }
    return hotels


def _payment_methods(rng: random.Random, first: str, last: str, today: date) -> list[dict[str, Any]]:
    methods: list[dict[str, Any]] = []
    count = rng.randint(1, 3)
    expired_index = rng.randrange(count) if count > 1 and rng.random() < 0.4 else -1
    for index in range(count):
        if index > 0 and rng.random() < 0.3 and not any(m["kind"] == "paypal" for m in methods):
            methods.append({"payment_method_id": f"paypal_{rng.randrange(1000000, 9999999)}", "kind": "paypal",
                            "brand": "PayPal",
                            "account_email": f"{first.lower()}.{last.lower().replace(chr(39), '')}@example.com"})
            continue
        if index == expired_index:
            month = today.year * 12 + today.month - 1 - rng.randint(1, 14)
        else:
            month = today.year * 12 + today.month - 1 + rng.randint(3, 48)
        methods.append({
            "payment_method_id": f"card_{rng.randrange(1000000, 9999999)}",
            "kind": rng.choice(("credit_card", "credit_card", "debit_card")),
            "brand": rng.choice(CARD_BRANDS), "last_four": f"{rng.randrange(0, 10000):04d}",
            "expires": f"{month // 12:04d}-{month % 12 + 1:02d}",
        })
    return methods


def _free_room(load: dict[str, list[tuple[str, str]]], room: dict[str, Any], check_in: str, check_out: str) -> bool:
    taken = load.setdefault(room["room_type_id"], [])
    overlapping = sum(1 for a, b in taken if a < check_out and check_in < b)
    return overlapping < room["inventory"] - 1


def make_state(rng: random.Random, scale: int = 1) -> dict[str, Any]:
    """A small booking service: 5-6 hotels in 3 cities and 3-5 guests with 1-3 bookings each, per unit of scale."""
    today = date(2026, 1, 5) + timedelta(days=rng.randrange(0, 300))
    hotels = _hotels(rng, scale, today)
    hotel_ids = list(hotels)
    guests: dict[str, Any] = {}
    bookings: dict[str, Any] = {}
    load: dict[str, list[tuple[str, str]]] = {}
    used_names: set[tuple[str, str]] = set()
    used_loyalty: set[str] = set()
    for _ in range(rng.randint(3, 5) * scale):
        first, last = rng.choice(FIRST_NAMES), rng.choice(LAST_NAMES)
        while (first, last) in used_names and len(used_names) < len(FIRST_NAMES) * len(LAST_NAMES):
            first, last = rng.choice(FIRST_NAMES), rng.choice(LAST_NAMES)
        used_names.add((first, last))
        guest_id = f"GST-{rng.randrange(1000000, 9999999)}"
        while guest_id in guests:
            guest_id = f"GST-{rng.randrange(1000000, 9999999)}"
        loyalty = f"WR{rng.randrange(10**8, 10**9)}"
        while loyalty in used_loyalty:
            loyalty = f"WR{rng.randrange(10**8, 10**9)}"
        used_loyalty.add(loyalty)
        nights = rng.choice((rng.randrange(0, 10), rng.randrange(10, 25), rng.randrange(25, 50), rng.randrange(50, 90)))
        tier, multiplier = tier_of(nights)
        home, phone_code = rng.choice(HOME_CITIES)
        methods = _payment_methods(rng, first, last, today)
        valid = [m for m in methods if m.get("expires", "9999-12") >= today.isoformat()[:7]]
        base_points = rng.choice((rng.randrange(0, 1500), rng.randrange(4000, 30000), rng.randrange(30000, 150000)))
        member_since = today - timedelta(days=rng.randrange(120, 3000))
        activity = [{"date": member_since.isoformat(), "description": "Welcome bonus", "points_change": 2000}]
        for _ in range(rng.randint(0, 2)):
            activity.append({
                "date": (today - timedelta(days=rng.randrange(20, 110))).isoformat(),
                "description": rng.choice(("Partner bonus: car rental", "Double points promotion",
                                           "Survey completion bonus", "Partner bonus: airline miles transfer")),
                "points_change": rng.choice((250, 500, 1000, 1500)),
            })
        for _ in range(rng.randint(1, 3)):
            hotel = hotels[rng.choice(hotel_ids)]
            room = rng.choice(hotel["room_types"])
            status = rng.choices(("confirmed", "checked-in", "completed", "cancelled"), (7, 1, 2, 1))[0]
            stay = rng.randint(1, 6)
            if status == "confirmed":
                check_in = today + timedelta(days=rng.choice((1, 2, 3, rng.randrange(4, 20), rng.randrange(20, 80))))
                booked_on = max(today - timedelta(days=rng.randrange(0, 60)), check_in - timedelta(days=200))
            elif status == "checked-in":
                check_in = today - timedelta(days=rng.randrange(0, 3))
                stay = max(stay, (today - check_in).days + 1)
                booked_on = check_in - timedelta(days=rng.randrange(3, 60))
            elif status == "completed":
                check_in = today - timedelta(days=rng.randrange(stay + 1, 240))
                booked_on = check_in - timedelta(days=rng.randrange(3, 60))
            else:
                check_in = today + timedelta(days=rng.randrange(-60, 60))
                booked_on = min(check_in, today) - timedelta(days=rng.randrange(5, 60))
            check_out = check_in + timedelta(days=stay)
            ci, co = check_in.isoformat(), check_out.isoformat()
            if status in ACTIVE:
                if not _free_room(load, room, ci, co):
                    status = "cancelled"
                else:
                    load[room["room_type_id"]].append((ci, co))
            rate_plan = "nonrefundable" if rng.random() < 0.2 else "flexible"
            price = room["price_per_night"] if rate_plan == "flexible" else round(room["price_per_night"] * 0.88, 2)
            subtotal, taxes, total = price_totals(price, stay, hotel["tax_rate"])
            if rate_plan == "flexible":
                deadline = check_in - timedelta(days=hotel["free_cancellation_days"])
            else:
                deadline = booked_on
            method = rng.choice(valid or methods) if status in ACTIVE else rng.choice(methods)
            redeemed = rng.choice((2000, 3000, 5000)) if status == "confirmed" and rng.random() < 0.15 else 0
            credit = round(min(redeemed * POINT_VALUE_USD, total), 2)
            booking_id = "WS" + "".join(rng.choice(_CODE_ALPHABET) for _ in range(6))
            while booking_id in bookings:
                booking_id = "WS" + "".join(rng.choice(_CODE_ALPHABET) for _ in range(6))
            booking: dict[str, Any] = {
                "booking_id": booking_id, "guest_id": guest_id, "hotel_id": hotel["hotel_id"],
                "room_type_id": room["room_type_id"], "check_in": ci, "check_out": co, "nights": stay,
                "guests": rng.randint(1, room["max_occupancy"]), "rate_plan": rate_plan, "price_per_night": price,
                "subtotal": subtotal, "taxes": taxes, "total": total, "currency": "USD",
                "points_redeemed": redeemed, "points_credit": credit, "amount_paid": round(total - credit, 2),
                "payment_method_id": method["payment_method_id"], "status": status,
                "booked_on": booked_on.isoformat(), "cancellation_deadline": deadline.isoformat(),
                "special_requests": rng.sample(SPECIAL_REQUESTS, rng.choice((0, 0, 1, 2))),
                "points_to_earn": int(subtotal * POINTS_PER_USD * multiplier),
            }
            if status == "cancelled":
                cancelled_on = min(booked_on + timedelta(days=rng.randrange(1, 20)), today, check_in)
                booking["cancellation"] = {"cancelled_on": cancelled_on.isoformat(), "fee": 0.0,
                                           "refund": booking["amount_paid"], "reason": rng.choice(CANCEL_REASONS)}
            if status == "completed":
                activity.append({"date": co, "description": f"Stay at {hotel['name']}",
                                 "points_change": booking["points_to_earn"]})
            if redeemed:
                activity.append({"date": booked_on.isoformat(), "description": f"Redeemed on booking {booking_id}",
                                 "points_change": -redeemed})
            bookings[booking_id] = booking
        activity.sort(key=lambda a: a["date"], reverse=True)
        points = max(0, base_points + sum(a["points_change"] for a in activity))
        guests[guest_id] = {
            "guest_id": guest_id, "first_name": first, "last_name": last,
            "email": personal_email(rng, first, last, rng.randrange(1, 99)),
            "phone": f"{phone_code} {rng.randrange(200, 999)} {rng.randrange(100, 999)} {rng.randrange(1000, 9999)}",
            "home_city": home, "loyalty_number": loyalty, "loyalty_tier": tier, "qualifying_nights": nights,
            "points_balance": points, "points_activity": activity[:3], "payment_methods": methods,
            "member_since": member_since.isoformat(),
        }
    return {
        "tables": {"hotels": hotels, "guests": guests, "bookings": bookings,
                   "meta": {"clock": {"today": today.isoformat()}}},
        "counters": {"bookings": 0},
    }
