"""Seeded state factory for the retail domain: customers, their orders and a product catalogue."""

from __future__ import annotations

import random
from datetime import date, timedelta
from typing import Any

from covert.env.people import personal_email

FIRST_NAMES = (
    "Maria", "James", "Aisha", "Chen", "Lucas", "Sofia", "Omar", "Yuki", "Elena", "Mateo", "Priya", "Noah",
    "Fatima", "Liam", "Hana", "Diego", "Amara", "Jonas", "Ingrid", "Ravi", "Chloe", "Kwame", "Mei", "Tomas",
)
LAST_NAMES = (
    "Chen", "Garcia", "Okafor", "Muller", "Rossi", "Nguyen", "Silva", "Kowalski", "Haddad", "Tanaka", "Smith",
    "Johansson", "Patel", "Dubois", "Kim", "Novak", "Mensah", "Lopez", "Schmidt", "Ivanova", "Park", "Costa",
)
STREETS = ("Maple Avenue", "Oak Street", "Harbor Road", "Elm Court", "Sunset Boulevard", "Mill Lane", "Cedar Drive",
           "Lakeview Terrace", "Station Road", "Birch Way", "Hillcrest Avenue", "Riverside Drive")
CITIES = (("Portland", "OR", "972"), ("Austin", "TX", "787"), ("Denver", "CO", "802"), ("Madison", "WI", "537"),
          ("Raleigh", "NC", "276"), ("Tucson", "AZ", "857"), ("Boise", "ID", "837"), ("Columbus", "OH", "432"),
          ("Richmond", "VA", "232"), ("Omaha", "NE", "681"))

# product name, category, option axes, base price
CATALOGUE = (
    ("Blender", "kitchen", {"color": ("black", "white", "red"), "capacity": ("1L", "1.5L")}, 89.99),
    ("Coffee Maker", "kitchen", {"color": ("black", "silver"), "type": ("drip", "espresso")}, 129.0),
    ("Air Fryer", "kitchen", {"capacity": ("3L", "5L"), "color": ("black", "white")}, 99.5),
    ("Desk Lamp", "home", {"color": ("white", "black", "brass"), "bulb": ("LED", "halogen")}, 34.99),
    ("Office Chair", "home", {"material": ("mesh", "leather"), "color": ("black", "grey")}, 249.0),
    ("Throw Blanket", "home", {"material": ("wool", "cotton"), "color": ("beige", "navy", "green")}, 45.0),
    ("Running Shoes", "sports", {"size": ("8", "9", "10", "11"), "color": ("blue", "black")}, 119.99),
    ("Yoga Mat", "sports", {"thickness": ("4mm", "6mm"), "color": ("purple", "teal")}, 29.95),
    ("Water Bottle", "sports", {"capacity": ("500ml", "1L"), "color": ("steel", "green")}, 24.0),
    ("Wireless Headphones", "electronics", {"color": ("black", "white"), "type": ("over-ear", "in-ear")}, 179.0),
    ("Smart Watch", "electronics", {"size": ("40mm", "44mm"), "strap": ("silicone", "leather")}, 299.0),
    ("Bluetooth Speaker", "electronics", {"color": ("red", "black", "blue"), "size": ("mini", "standard")}, 59.99),
    ("Backpack", "travel", {"capacity": ("20L", "30L"), "color": ("black", "olive")}, 79.0),
    ("Suitcase", "travel", {"size": ("carry-on", "checked"), "color": ("silver", "navy")}, 159.0),
    ("Notebook Set", "office", {"ruling": ("lined", "dotted"), "size": ("A5", "A4")}, 18.5),
    ("Fountain Pen", "office", {"nib": ("fine", "medium"), "color": ("black", "burgundy")}, 42.0),
)
PAYMENT_KINDS = ("credit_card", "gift_card", "paypal")
CARD_BRANDS = ("visa", "mastercard", "amex")


def _catalogue(rng: random.Random, scale: int) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    products: dict[str, Any] = {}
    variants: list[dict[str, Any]] = []
    count = min(len(CATALOGUE), 4 + 2 * scale)
    for name, category, axes, base in rng.sample(CATALOGUE, count):
        product_id = f"{rng.randrange(10**9, 10**10)}"
        entries: dict[str, Any] = {}
        combos = [{}]
        for axis, values in axes.items():
            combos = [{**c, axis: v} for c in combos for v in values]
        if scale == 1:
            combos = rng.sample(combos, min(len(combos), 3))
        for options in combos:
            item_id = f"{rng.randrange(10**9, 10**10)}"
            price = round(base * rng.uniform(0.9, 1.15), 2)
            entry = {
                "item_id": item_id,
                "options": ", ".join(f"{k} {v}" for k, v in options.items()),
                "price": price,
                "available": rng.random() > 0.2,
            }
            entries[item_id] = entry
            variants.append({**entry, "product_id": product_id, "name": name})
        products[product_id] = {"product_id": product_id, "name": name, "category": category, "variants": entries}
    return products, variants


def make_state(rng: random.Random, scale: int = 1) -> dict[str, Any]:
    """A small store: 3-5 customers per unit of scale, each with 1-4 orders."""
    today = date(2026, 1, 5) + timedelta(days=rng.randrange(0, 300))
    products, variants = _catalogue(rng, scale)
    users: dict[str, Any] = {}
    orders: dict[str, Any] = {}
    used_names: set[tuple[str, str]] = set()
    for _ in range(rng.randint(3, 5) * scale):
        first, last = rng.choice(FIRST_NAMES), rng.choice(LAST_NAMES)
        while (first, last) in used_names and len(used_names) < len(FIRST_NAMES) * len(LAST_NAMES):
            first, last = rng.choice(FIRST_NAMES), rng.choice(LAST_NAMES)
        used_names.add((first, last))
        user_id = f"{first.lower()}_{last.lower()}_{rng.randrange(1000, 9999)}"
        city, region, zip_prefix = rng.choice(CITIES)
        address = {
            "address1": f"{rng.randrange(10, 999)} {rng.choice(STREETS)}",
            "address2": rng.choice(("", f"Apt {rng.randrange(1, 40)}", f"Suite {rng.randrange(100, 500)}")),
            "city": city, "state": region, "zip": f"{zip_prefix}{rng.randrange(10, 99)}", "country": "USA",
        }
        methods = []
        for kind in rng.sample(PAYMENT_KINDS, rng.randint(1, 3)):
            method: dict[str, Any] = {"payment_method_id": f"{kind}_{rng.randrange(1000000, 9999999)}", "kind": kind}
            if kind == "credit_card":
                method.update(brand=rng.choice(CARD_BRANDS), last_four=f"{rng.randrange(0, 9999):04d}")
            elif kind == "gift_card":
                method.update(balance=round(rng.uniform(10, 300), 2))
            else:
                method.update(account_email=personal_email(rng, first, last))
            methods.append(method)
        user_orders = []
        for _ in range(rng.randint(1, 4)):
            order_id = f"#W{rng.randrange(1000000, 9999999)}"
            chosen = rng.sample(variants, rng.randint(1, 3))
            items = [
                {"item_id": v["item_id"], "product_id": v["product_id"], "name": v["name"],
                 "options": v["options"], "price": v["price"]}
                for v in chosen
            ]
            status = rng.choices(("pending", "processed", "delivered", "cancelled"), (4, 2, 4, 1))[0]
            placed = today - timedelta(days=rng.randrange(1, 60))
            order: dict[str, Any] = {
                "order_id": order_id, "user_id": user_id, "status": status, "items": items,
                "total": round(sum(i["price"] for i in items), 2), "currency": "USD",
                "placed_at": placed.isoformat(), "payment_method_id": rng.choice(methods)["payment_method_id"],
                "shipping_address": dict(address), "fulfillment": None,
            }
            if status in ("processed", "delivered"):
                order["fulfillment"] = {
                    "carrier": rng.choice(("UPS", "FedEx", "USPS", "DHL")),
                    "tracking_number": f"{rng.randrange(10**11, 10**12)}",
                    "estimated_delivery": (placed + timedelta(days=rng.randrange(3, 9))).isoformat(),
                }
            orders[order_id] = order
            user_orders.append(order_id)
        users[user_id] = {
            "user_id": user_id, "first_name": first, "last_name": last,
            "email": personal_email(rng, first, last, rng.randrange(1, 99)),
            "address": address, "payment_methods": methods, "orders": user_orders,
            "member_since": (today - timedelta(days=rng.randrange(90, 2000))).isoformat(),
        }
    return {
        "tables": {"users": users, "orders": orders, "products": products,
                   "meta": {"clock": {"today": today.isoformat()}}},
        "counters": {"returns": 0},
    }
