"""Seeded state factory for the banking domain: customers, accounts, cards, payees and history."""

from __future__ import annotations

import random
from datetime import date, timedelta
from typing import Any

from covert.env.people import personal_email

FIRST_NAMES = (
    "Maria", "James", "Aisha", "Wei", "Lucas", "Sofia", "Omar", "Yuki", "Elena", "Mateo", "Priya", "Noah",
    "Fatima", "Liam", "Hana", "Diego", "Amara", "Jonas", "Ingrid", "Ravi", "Chloe", "Kwame", "Mei", "Tomas",
    "Grace", "Samuel", "Leila", "Owen", "Nadia", "Victor",
)
LAST_NAMES = (
    "Chen", "Garcia", "Okafor", "Muller", "Rossi", "Nguyen", "Silva", "Kowalski", "Haddad", "Tanaka", "Smith",
    "Johansson", "Patel", "Dubois", "Kim", "Novak", "Mensah", "Lopez", "Schmidt", "Ivanova", "Park", "Costa",
    "Bennett", "Alvarez", "Fischer", "Reyes",
)
STREETS = ("Maple Avenue", "Oak Street", "Harbor Road", "Elm Court", "Sunset Boulevard", "Mill Lane", "Cedar Drive",
           "Lakeview Terrace", "Station Road", "Birch Way", "Hillcrest Avenue", "Riverside Drive")
# city, state, ZIP prefix, phone area code
CITIES = (("Portland", "OR", "972", "503"), ("Austin", "TX", "787", "512"), ("Denver", "CO", "802", "303"),
          ("Madison", "WI", "537", "608"), ("Raleigh", "NC", "276", "919"), ("Tucson", "AZ", "857", "520"),
          ("Boise", "ID", "837", "208"), ("Columbus", "OH", "432", "614"), ("Richmond", "VA", "232", "804"),
          ("Omaha", "NE", "681", "402"))

ACCOUNT_NICKNAMES = {
    "checking": ("Everyday Checking", "Main Checking", "Household Checking", "Joint Checking", "Bills Checking"),
    "savings": ("Rainy Day Savings", "Emergency Fund", "Vacation Fund", "House Down Payment", "Holiday Savings"),
    "money market": ("Money Market", "High-Yield Money Market"),
}
INTEREST_RATES = {"checking": 0.01, "savings": 4.10, "money market": 4.35}

# merchant, category, channel, (low, high) amount in USD
DEBIT_MERCHANTS = (
    ("Whole Foods Market", "groceries", "card", (18, 160)),
    ("Trader Joe's", "groceries", "card", (15, 120)),
    ("Safeway", "groceries", "card", (12, 140)),
    ("Costco Wholesale", "groceries", "card", (60, 320)),
    ("Shell", "fuel", "card", (25, 80)),
    ("Chevron", "fuel", "card", (25, 85)),
    ("Starbucks", "dining", "card", (4, 18)),
    ("Chipotle Mexican Grill", "dining", "card", (9, 32)),
    ("Olive Garden", "dining", "card", (30, 110)),
    ("DoorDash", "dining", "card", (18, 65)),
    ("Amazon.com", "shopping", "card", (12, 240)),
    ("Target", "shopping", "card", (15, 180)),
    ("Best Buy", "shopping", "card", (40, 900)),
    ("IKEA", "shopping", "card", (35, 600)),
    ("Netflix", "subscriptions", "card", (15.49, 22.99)),
    ("Spotify", "subscriptions", "card", (11.99, 16.99)),
    ("Adobe Creative Cloud", "subscriptions", "card", (22.99, 59.99)),
    ("Uber", "transport", "card", (9, 58)),
    ("Lyft", "transport", "card", (8, 52)),
    ("Delta Air Lines", "travel", "card", (180, 820)),
    ("Marriott Hotels", "travel", "card", (140, 640)),
    ("Airbnb", "travel", "card", (120, 900)),
    ("CVS Pharmacy", "health", "card", (8, 75)),
    ("Planet Fitness", "health", "card", (10, 25)),
    ("AMC Theatres", "entertainment", "card", (14, 48)),
    ("Ticketmaster", "entertainment", "card", (45, 320)),
    ("Comcast Xfinity", "utilities", "ach", (60, 140)),
    ("City Water Utility", "utilities", "ach", (35, 95)),
)
CREDIT_SOURCES = (
    ("Northwind Traders Payroll", "income", "ach", (1400, 3600)),
    ("Contoso Ltd Payroll", "income", "ach", (1600, 4200)),
    ("Mobile Check Deposit", "deposit", "check", (50, 900)),
    ("IRS Tax Refund", "income", "ach", (300, 2200)),
)
SAVINGS_ACTIVITY = (
    ("Interest Payment", "interest", "internal", "credit", (1.2, 48)),
    ("Transfer from Checking", "transfer", "internal", "credit", (100, 800)),
    ("Transfer to Checking", "transfer", "internal", "debit", (50, 500)),
    ("Vanguard Brokerage Funding", "transfer", "ach", "debit", (200, 1500)),
    ("Fidelity Investments", "transfer", "ach", "debit", (100, 1000)),
    ("Northwestern Mutual Premium", "utilities", "ach", "debit", (60, 240)),
)

PERSON_NICKNAMES = ("mom", "dad", "landlord", "roommate", "sister", "brother", "babysitter", "piano teacher",
                    "dog walker", "cleaner", "best friend", "nephew")
BANKS = ("Chase", "Wells Fargo", "Bank of America", "Citibank", "US Bank", "PNC Bank", "Capital One",
         "Ally Bank", "TD Bank", "Navy Federal Credit Union")
# biller name, category, (low, high) amount due
BILLERS = (
    ("Pacific Gas & Electric", "electricity", (60, 240)),
    ("Duke Energy", "electricity", (55, 230)),
    ("Verizon Wireless", "phone", (45, 180)),
    ("T-Mobile", "phone", (40, 160)),
    ("Comcast Xfinity", "internet", (55, 130)),
    ("Spectrum", "internet", (50, 120)),
    ("State Farm Insurance", "insurance", (90, 310)),
    ("GEICO", "insurance", (80, 260)),
    ("Sallie Mae", "student loan", (150, 480)),
    ("Metro Water District", "water", (30, 95)),
    ("Waste Management", "trash", (25, 70)),
    ("Capital One Credit Card", "credit card", (120, 1500)),
)
CARD_PRODUCTS = {
    "debit": (("Everyday Debit Mastercard", "mastercard"), ("Visa Debit", "visa")),
    "credit": (("Cash Rewards Visa Signature", "visa"), ("Travel Rewards World Mastercard", "mastercard"),
               ("Platinum Low Rate Visa", "visa")),
}
DAILY_LIMITS = (500.0, 1000.0, 2500.0, 5000.0)
DISPUTE_REASONS = ("I don't recognize the charge", "I was charged twice", "the item never arrived",
                   "the amount is wrong")
RESOLUTIONS = {
    "resolved_refunded": "The merchant refunded the charge; the provisional credit is now permanent.",
    "denied": "The charge was verified as authorized; the provisional credit was reversed.",
}


def _money(rng: random.Random, low: float, high: float) -> float:
    return round(rng.uniform(low, high), 2)


def _phone(rng: random.Random, area: str) -> tuple[str, str]:
    """A phone number as stored (+1-503-555-0142) and its digits for lookups."""
    exchange, line = rng.randrange(200, 999), rng.randrange(0, 10000)
    return f"+1-{area}-{exchange}-{line:04d}", f"1{area}{exchange}{line:04d}"


def _transactions(rng: random.Random, account: dict[str, Any], today: date, count: int,
                  card_last_four: str) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    used: set[str] = set()
    savings = account["kind"] != "checking"
    for position in range(count):
        if savings:
            merchant, category, channel, direction, (low, high) = rng.choice(SAVINGS_ACTIVITY)
        elif position == 0 or rng.random() < 0.15:
            merchant, category, channel, (low, high) = rng.choice(CREDIT_SOURCES)
            direction = "credit"
        else:
            merchant, category, channel, (low, high) = rng.choice(DEBIT_MERCHANTS)
            direction = "debit"
        if merchant in used:
            continue
        used.add(merchant)
        age = rng.randrange(0, 3) if position == 1 else rng.randrange(0, 75)
        status = "pending" if age < 2 and direction == "debit" and rng.random() < 0.6 else "posted"
        record: dict[str, Any] = {
            "transaction_id": f"TXN-{rng.randrange(10**9, 9 * 10**9)}",
            "account_id": account["account_id"],
            "posted_on": (today - timedelta(days=age)).isoformat(),
            "merchant": merchant,
            "category": category,
            "amount": _money(rng, low, high),
            "direction": direction,
            "channel": channel,
            "status": status,
            "disputed": False,
        }
        if channel == "card":
            record["card_last_four"] = card_last_four
        out.append(record)
    return out


def _dispute(rng: random.Random, transaction: dict[str, Any], today: date) -> dict[str, Any]:
    """A dispute a customer opened earlier on ``transaction`` (open, or resolved if it is old enough)."""
    posted = date.fromisoformat(transaction["posted_on"])
    opened = min(posted + timedelta(days=rng.randrange(1, 10)), today)
    status = "under_review"
    if (today - opened).days > 20 and rng.random() < 0.7:
        status = rng.choice(("resolved_refunded", "denied"))
    resolved_on = ""
    if status != "under_review":
        resolved_on = min(opened + timedelta(days=rng.randrange(12, 40)), today).isoformat()
    return {
        "dispute_id": f"DSP-{opened.year}-{rng.randrange(100000, 1000000)}",
        "transaction_id": transaction["transaction_id"], "merchant": transaction["merchant"],
        "amount": transaction["amount"], "currency": "USD", "reason": rng.choice(DISPUTE_REASONS),
        "status": status, "opened_on": opened.isoformat(), "provisional_credit": transaction["amount"],
        "provisional_credit_by": (opened + timedelta(days=10)).isoformat(),
        "decision_expected_by": (opened + timedelta(days=45)).isoformat(),
        "resolution": RESOLUTIONS.get(status, ""), "resolved_on": resolved_on,
        "account_id": transaction["account_id"],
    }


def make_state(rng: random.Random, scale: int = 1) -> dict[str, Any]:
    """A small bank: 3 (sometimes 4) customers per unit of scale, each with 2-3 accounts, cards, payees, billers and history."""
    today = date(2026, 1, 5) + timedelta(days=rng.randrange(0, 300))
    customers: dict[str, Any] = {}
    accounts: dict[str, Any] = {}
    transactions: dict[str, Any] = {}
    payees: dict[str, Any] = {}
    billers: dict[str, Any] = {}
    cards: dict[str, Any] = {}
    transfers: dict[str, Any] = {}
    disputes: dict[str, Any] = {}
    disputable: list[dict[str, Any]] = []
    used_names: set[tuple[str, str]] = set()
    for _ in range((4 if rng.random() < 0.3 else 3) * scale):
        first, last = rng.choice(FIRST_NAMES), rng.choice(LAST_NAMES)
        while (first, last) in used_names and len(used_names) < len(FIRST_NAMES) * len(LAST_NAMES):
            first, last = rng.choice(FIRST_NAMES), rng.choice(LAST_NAMES)
        used_names.add((first, last))
        customer_id = f"CUS-{rng.randrange(10**7, 10**8)}"
        city, region, zip_prefix, area = rng.choice(CITIES)
        phone, phone_digits = _phone(rng, area)
        customer: dict[str, Any] = {
            "customer_id": customer_id, "first_name": first, "last_name": last,
            "email": personal_email(rng, first, last, rng.randrange(1, 99)),
            "phone": phone, "phone_digits": phone_digits,
            "address": f"{rng.randrange(10, 999)} {rng.choice(STREETS)}, {city}, {region} "
                       f"{zip_prefix}{rng.randrange(10, 99)}",
            "member_since": (today - timedelta(days=rng.randrange(200, 5000))).isoformat(),
            "daily_transfer_limit": rng.choice(DAILY_LIMITS),
        }

        # accounts: always a checking account, usually savings, sometimes a third
        kinds = ["checking", "savings"] if rng.random() < 0.85 else ["checking", "money market"]
        if rng.random() < 0.25:
            kinds.append(rng.choice(("checking", "savings")))
        nicknames: set[str] = set()
        own_accounts: list[dict[str, Any]] = []
        for kind in kinds:
            nickname = rng.choice([n for n in ACCOUNT_NICKNAMES[kind] if n not in nicknames])
            nicknames.add(nickname)
            number = f"{rng.randrange(10**9, 10**10)}"
            balance = _money(rng, 40, 300) if rng.random() < 0.1 else (
                _money(rng, 1200, 9000) if kind == "checking" else _money(rng, 2500, 40000))
            account = {
                "account_id": f"ACC-{number}", "customer_id": customer_id, "kind": kind, "nickname": nickname,
                "last_four": number[-4:], "balance": balance, "available_balance": balance, "currency": "USD",
                "status": "frozen" if rng.random() < 0.08 else "active",
                "interest_rate": INTEREST_RATES[kind],
                "opened_on": (today - timedelta(days=rng.randrange(60, 4000))).isoformat(),
            }
            own_accounts.append(account)

        # cards: a debit card per checking account, sometimes a credit card
        own_cards: list[dict[str, Any]] = []
        products = [("debit", a) for a in own_accounts if a["kind"] == "checking"]
        if rng.random() < 0.45:
            products.append(("credit", None))
        for kind, account in products:
            product_name, network = rng.choice(CARD_PRODUCTS[kind])
            status = rng.choices(("active", "frozen", "closed"), (5, 4, 1))[0]
            expiry = today + timedelta(days=rng.randrange(120, 1500))
            card = {
                "card_id": f"CRD-{rng.randrange(10**7, 9 * 10**7)}", "customer_id": customer_id, "kind": kind,
                "product_name": product_name, "network": network, "last_four": f"{rng.randrange(0, 10000):04d}",
                "status": status, "expires": f"{expiry.year}-{expiry.month:02d}",
                "linked_account": account["nickname"] if account else "credit line",
            }
            if status == "closed":
                card["reported_as"] = "lost"
            own_cards.append(card)
            cards[card["card_id"]] = card

        debit_card = next((c for c in own_cards if c["kind"] == "debit"), None)
        for account in own_accounts:
            count = 4 if account["kind"] == "checking" else 2
            last_four = debit_card["last_four"] if debit_card else "0000"
            pending = 0.0
            for record in _transactions(rng, account, today, count, last_four):
                transactions[record["transaction_id"]] = record
                if record["status"] == "pending":
                    pending += record["amount"]
                elif record["direction"] == "debit" and record["channel"] in ("card", "ach"):
                    disputable.append(record)
            account["available_balance"] = round(max(account["balance"] - pending, 0.0), 2)
            accounts[account["account_id"]] = account

        # payees: people for transfers, billers for bill pay
        persons: list[str] = []
        for nickname in rng.sample(PERSON_NICKNAMES, rng.randint(1, 2)):
            payee_id = f"PYE-{rng.randrange(10**6, 10**7)}"
            persons.append(payee_id)
            payees[payee_id] = {
                "payee_id": payee_id, "customer_id": customer_id,
                "name": f"{rng.choice(FIRST_NAMES)} {rng.choice(LAST_NAMES)}", "nickname": nickname,
                "bank_name": rng.choice(BANKS), "account_last4": f"{rng.randrange(0, 10000):04d}",
                "added_on": (today - timedelta(days=rng.randrange(5, 900))).isoformat(),
            }
        categories: set[str] = set()
        for name, category, (low, high) in rng.sample(BILLERS, rng.randint(1, 2)):
            if category in categories:  # one biller per kind of bill, so "my phone bill" is unambiguous
                continue
            categories.add(category)
            biller_id = f"BLR-{rng.randrange(10**6, 10**7)}"
            due = 0.0 if rng.random() < 0.15 else _money(rng, low, high)
            billers[biller_id] = {
                "biller_id": biller_id, "customer_id": customer_id, "name": name,
                "category": category, "account_reference": f"****{rng.randrange(0, 10000):04d}",
                "amount_due": due, "due_date": (today + timedelta(days=rng.randrange(2, 28))).isoformat(),
                "added_on": (today - timedelta(days=rng.randrange(30, 1500))).isoformat(),
            }

        # transfers already sent to payees, some of them today (they count towards the daily limit)
        for _ in range(rng.randint(0, 2)):
            sent_on = today if rng.random() < 0.6 else today - timedelta(days=rng.randrange(1, 20))
            transfer_id = f"TRF-{rng.randrange(10**8, 9 * 10**8)}"
            transfers[transfer_id] = {
                "transfer_id": transfer_id, "customer_id": customer_id, "kind": "payee",
                "account_id": own_accounts[0]["account_id"], "payee_id": rng.choice(persons),
                "amount": float(rng.choice((50, 75, 120, 200, 250, 400, 600))), "currency": "USD",
                "date": sent_on.isoformat(), "memo": "",
            }
        customers[customer_id] = customer

    # earlier disputes (several per state, so there are case numbers to ask about)
    wanted = max(4, len(customers))
    for record in rng.sample(disputable, min(wanted, len(disputable))):
        dispute = _dispute(rng, record, today)
        if dispute["dispute_id"] not in disputes:
            record["disputed"] = True
            disputes[dispute["dispute_id"]] = dispute
    return {
        "tables": {
            "customers": customers, "accounts": accounts, "transactions": transactions, "payees": payees, "billers": billers,
            "cards": cards, "transfers": transfers, "disputes": disputes,
            "meta": {"clock": {"today": today.isoformat()}},
        },
        "counters": {"transfers": 0, "payments": 0, "disputes": 0, "cards": 0, "transactions": 0},
    }
