"""Seeded state factory for the messaging domain: one mailbox owner, their contacts, labels and messages."""

from __future__ import annotations

import random
from datetime import date, datetime, timedelta
from typing import Any

FIRST_NAMES = (
    "Maria", "James", "Aisha", "Daniel", "Lucas", "Sofia", "Omar", "Yuki", "Elena", "Mateo", "Priya", "Noah",
    "Fatima", "Liam", "Hana", "Diego", "Amara", "Jonas", "Ingrid", "Ravi", "Chloe", "Kwame", "Mei", "Tomas",
    "Grace", "Felix", "Nadia", "Owen", "Leila", "Samuel", "Zoe", "Marcus", "Irene", "Hugo", "Dana", "Victor",
)
LAST_NAMES = (
    "Chen", "Garcia", "Okafor", "Muller", "Rossi", "Nguyen", "Silva", "Kowalski", "Haddad", "Tanaka", "Whitfield",
    "Johansson", "Patel", "Dubois", "Kim", "Novak", "Mensah", "Lopez", "Schmidt", "Ivanova", "Park", "Costa",
    "Brennan", "Alvarez", "Lindqvist", "Osei", "Moreau", "Fischer", "Sato", "Reyes", "Hartley", "Bianchi",
)
# the owner's employer first; the others are clients and partners
COMPANIES = (
    ("Northwind Analytics", "northwind-analytics.com"), ("Bluepeak Labs", "bluepeaklabs.io"),
    ("Harbor Finch Consulting", "harborfinch.com"), ("Cobalt Ridge Logistics", "cobaltridge.com"),
    ("Lumen Health Partners", "lumenhealth.org"), ("Quarry Street Media", "quarrystreet.media"),
    ("Tidewater Foods", "tidewaterfoods.com"), ("Saltmarsh Capital", "saltmarshcap.com"),
    ("Greenway Architects", "greenway-arch.com"), ("Orchid Software", "orchidsoftware.dev"),
)
PERSONAL_DOMAINS = ("mailnest.com", "inboxly.net", "letterbird.org", "skypost.io")
COWORKER_TITLES = ("Product Manager", "Finance Lead", "Staff Engineer", "Head of Marketing", "Recruiter",
                   "Design Director", "Operations Analyst", "Engineering Manager", "Legal Counsel")
CLIENT_TITLES = ("Procurement Manager", "VP Operations", "Account Director", "CTO", "Project Lead",
                 "Head of Partnerships", "Controller")
AREA_CODES = ("503", "512", "303", "608", "919", "520", "208", "614", "804", "402", "617", "415")
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday")
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December")
PROJECTS = ("Atlas", "Beacon", "Harvest", "Nimbus", "Keystone", "Meridian", "Orbit", "Juniper")
CITIES = ("Boston", "Seattle", "Denver", "Chicago", "Austin", "Toronto", "Lisbon", "Portland", "Atlanta", "Miami")
HOTELS = ("The Linden Hotel", "Harborview Inn", "Hotel Marisol", "The Copperleaf", "Parkside Suites")
STORES = ("Fieldstone Outfitters", "Brightcart", "Paper & Pine", "Kettle House Goods", "Voltline Electronics")
RESTAURANTS = ("the new Thai place on Elm Street", "Casa Lupita", "the ramen bar near the station", "Osteria Nove")

LABELS = ("Work", "Clients", "Finance", "Receipts", "Travel", "Family", "Newsletters", "Follow-up", "Important")

# subject, labels, attachments (filename, mime type, size in KB), bodies alternating contact / owner / contact
WORK_THREADS = (
    ("Q{q} budget review", ("Work", "Finance"), (("Q{q}_budget_draft.xlsx", "application/vnd.ms-excel", 84),),
     ("Hi {me}, I've put together the draft Q{q} budget. Could you check the travel and software lines before {weekday}?",
      "Thanks {first}, the travel line looks high. Can we trim it by about 10%?",
      "Sure, I'll send a revised version tomorrow morning.")),
    ("Agenda for {weekday}'s planning meeting", ("Work",), (),
     ("Hi {me}, proposed agenda: roadmap check-in, hiring update and the vendor renewal. Anything to add?",
      "Looks good. Please add ten minutes for the {project} launch retro.")),
    ("Slides for the offsite", ("Work",), (("offsite_{project}_slides.pptx", "application/vnd.ms-powerpoint", 2310),),
     ("{me}, attaching my slides for the offsite. Let me know if the timeline section makes sense.",)),
    ("Is the {project} launch still on track?", ("Work", "Important"), (),
     ("Hey {me}, is the {project} launch still on for {day}? Marketing wants to lock the announcement date.",
      "Yes, we're on track. Engineering signed off on the release candidate yesterday.",
      "Great, I'll let them know.")),
    ("Interview feedback: {candidate}", ("Work",), (),
     ("Hi {me}, I met {candidate} today. Strong on system design, a bit light on testing. I'd lean yes.",)),
    ("Expense report for {month}", ("Work", "Finance"), (("expenses_{month}.pdf", "application/pdf", 142),),
     ("Hi {me}, your {month} expense report is missing the receipt for the {city} hotel. Could you upload it by {weekday}?",
      "Done, I just attached it in the portal.")),
)
CLIENT_THREADS = (
    ("Contract renewal with {company}", ("Clients", "Important"), (),
     ("Hi {me}, our agreement expires on {day}. Could we set up a call next week to discuss renewal terms?",
      "Happy to. Does {weekday} at 2pm work for you?",
      "{weekday} at 2pm works. I'll send an invite.")),
    ("Invoice {invoice} from {company}", ("Clients", "Finance"), (("{invoice}.pdf", "application/pdf", 96),),
     ("Hello {me}, please find attached invoice {invoice} for {amount} USD, due on {day}.",)),
    ("Revised proposal for {project}", ("Clients",), (("{project}_proposal_v2.pdf", "application/pdf", 518),),
     ("Hi {me}, thanks for the call. Attached is the revised proposal with the phased rollout we discussed.",
      "Thanks {first}, I'll review it with the team and get back to you by {weekday}.")),
    ("Question about the {month} report", ("Clients",), (),
     ("Hi {me}, in the {month} report the shipment volume for {city} looks off by about 8%. Could you double-check?",)),
)
PERSONAL_THREADS = (
    ("Dinner on Sunday?", ("Family",), (),
     ("Hi {me}! Are you free for dinner on Sunday? We're thinking of trying {restaurant}.",
      "Sounds great, count me in. 7pm?",
      "Perfect, see you there!")),
    ("Photos from the weekend", ("Family",), (("IMG_{n}.jpg", "image/jpeg", 3120), ("IMG_{n2}.jpg", "image/jpeg", 2875)),
     ("Here are the photos from the hike! The one at the lake came out really well.",)),
    ("Surprise party for {other}", ("Family",), (),
     ("{me}, we're planning a surprise party for {other} on {day}. Could you bring dessert?",
      "Of course! I'll bake the lemon cake.")),
    ("Borrowing your tent", (), (),
     ("Hey {me}, could I borrow your tent for a camping trip to {city} next month?",
      "Sure, swing by any evening this week and pick it up.")),
)
# sender name, local part of the sender address, sender domain, subject, labels, attachments, body
SERVICE_MESSAGES = (
    ("Alaska Airlines", "no-reply", "alaskaair-mail.com", "Your flight confirmation {conf}", ("Travel",), (),
     "Your trip from {city} to {city2} on {day} is confirmed. Confirmation code {conf}. Check-in opens 24 hours before departure."),
    ("{hotel}", "reservations", "stay-mail.com", "Your reservation at {hotel}", ("Travel",), (),
     "We look forward to welcoming you on {day}. Reservation {conf}, 2 nights, total {amount} USD."),
    ("{store}", "orders", "shop-notify.com", "Your receipt from {store}", ("Receipts",),
     (("receipt_{order}.pdf", "application/pdf", 48),),
     "Thanks for your order #{order}. Total charged: {amount} USD to the card ending in {last4}."),
    ("Ridgeline Bank", "alerts", "ridgelinebank.com", "Your {month} statement is ready", ("Finance",), (),
     "Your {month} statement for the account ending in {last4} is now available. Closing balance: {amount} USD."),
    ("Design Weekly", "newsletter", "designweekly.news", "This week in product design", ("Newsletters",), (),
     "Five onboarding flows worth studying, a new accessibility checklist and an interview with the team behind {project}."),
    ("JobScout", "alerts", "jobscout.io", "{n3} new jobs matching 'engineering manager'", ("Newsletters",), (),
     "New roles in {city} and remote: engineering manager openings at companies you follow."),
    ("ParcelGo", "tracking", "parcelgo.com", "Your package has shipped", ("Receipts",), (),
     "Your order #{order} is on its way. Tracking number PG{tracking}. Expected delivery {day}."),
    ("Account Security", "security", "accounts-notify.com", "Security alert: new sign-in on Mac", ("Important",), (),
     "We noticed a new sign-in to your account from a Mac in {city}. If this was you, there's nothing to do."),
    ("Maple Dental Clinic", "appointments", "mapledental.com", "Reminder: dentist appointment on {day}", (), (),
     "This is a reminder of your cleaning appointment on {day} at 9:30am. Reply C to confirm."),
)
# group of the contact, subject, bodies of conversations the owner starts (owner / contact / owner)
OWNER_THREADS = (
    ("client", "Follow-up on our call",
     ("Thanks for the call today, {first}. As discussed, I'll share the revised plan by {weekday}.",
      "Thanks {me}, looking forward to it.")),
    ("coworker", "Vacation days in {next_month}",
     ("Hi {first}, I'd like to take {n4} days off in {next_month}. Does that work with the release schedule?",
      "That's fine, just add them to the team calendar.")),
    ("coworker", "Intro: {first} and {candidate}",
     ("Hi {first}, meet {candidate}, who led the data platform work at Saltmarsh Capital. I think you two should talk.",)),
)
DRAFTS = (
    ("Reference letter for {candidate}", "To whom it may concern, I worked with {candidate} for three years and"),
    ("Re: {project} timeline", "Hi {first}, quick update on the timeline: we're moving the beta to"),
    ("Team lunch next week", "Hi all, let's do a team lunch on {weekday}. Options so far:"),
)


def _fill(rng: random.Random, today: date, me: str, first: str, company: str) -> dict[str, Any]:
    ahead = today + timedelta(days=rng.randrange(3, 40))
    return {
        "me": me, "first": first, "company": company, "q": rng.randint(1, 4), "weekday": rng.choice(WEEKDAYS),
        "day": f"{MONTHS[ahead.month - 1]} {ahead.day}", "month": MONTHS[(today.month - 2) % 12],
        "next_month": MONTHS[today.month % 12],
        "project": rng.choice(PROJECTS), "candidate": f"{rng.choice(FIRST_NAMES)} {rng.choice(LAST_NAMES)}",
        "other": rng.choice([n for n in FIRST_NAMES if n not in (first, me)]), "city": rng.choice(CITIES), "city2": rng.choice(CITIES),
        "hotel": rng.choice(HOTELS), "store": rng.choice(STORES), "restaurant": rng.choice(RESTAURANTS),
        "invoice": f"INV-{rng.randrange(10000, 99999)}", "amount": f"{rng.uniform(20, 1800):,.2f}",
        "conf": "".join(rng.choice("ABCDEFGHJKLMNPQRSTUVWXYZ23456789") for _ in range(6)),
        "order": f"{rng.randrange(100000, 999999)}", "last4": f"{rng.randrange(0, 10000):04d}",
        "tracking": f"{rng.randrange(10**9, 10**10)}", "n": rng.randrange(1000, 9000), "n2": rng.randrange(1000, 9000),
        "n3": rng.randint(3, 24), "n4": rng.randint(2, 6),
    }


def _iso(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def _attachments(specs: tuple, fill: dict[str, Any], rng: random.Random) -> list[dict[str, Any]]:
    return [{"filename": name.format(**fill), "mime_type": mime, "size_kb": int(size * rng.uniform(0.7, 1.3))}
            for name, mime, size in specs]


def _size(body: str, attachments: list[dict[str, Any]]) -> int:
    return 2 + len(body) // 512 + sum(a["size_kb"] for a in attachments)


def _contacts(rng: random.Random, count: int, owner_last: str, today: date, used: set[str]) -> list[dict[str, Any]]:
    contacts = []
    names: set[tuple[str, str]] = set()
    for index in range(count):
        group = ("coworker", "client", "coworker", "friend", "client", "family", "coworker", "friend")[index % 8]
        first, last = rng.choice(FIRST_NAMES), rng.choice(LAST_NAMES)
        # distinct names (and, in small states, distinct first names) so a name singles a contact out
        while ((first, last) in names or (count <= 12 and first in {n[0] for n in names})) and len(names) < 600:
            first, last = rng.choice(FIRST_NAMES), rng.choice(LAST_NAMES)
        if group == "family":
            last = owner_last
        elif last == owner_last:
            last = LAST_NAMES[(LAST_NAMES.index(last) + 1) % len(LAST_NAMES)]
        names.add((first, last))
        if group == "coworker":
            company, domain = COMPANIES[0]
            title = rng.choice(COWORKER_TITLES)
            local = f"{first[0]}{last}".lower()
        elif group == "client":
            company, domain = rng.choice(COMPANIES[1:])
            title = rng.choice(CLIENT_TITLES)
            local = f"{first}.{last}".lower()
        else:
            company, domain, title = None, rng.choice(PERSONAL_DOMAINS), None
            local = f"{first}{last[0]}{rng.randrange(10, 99)}".lower()
        email = f"{local}@{domain}"
        while email in used:
            email = f"{local}{rng.randrange(2, 999)}@{domain}"
        used.add(email)
        contacts.append({
            "contact_id": f"c{rng.randrange(10**15, 10**16)}", "first_name": first, "last_name": last,
            "email": email, "phone": f"+1 ({rng.choice(AREA_CODES)}) 555-01{rng.randrange(0, 100):02d}",
            "company": company, "job_title": title, "group": group,
            "added_on": (today - timedelta(days=rng.randrange(30, 2500))).isoformat(),
        })
    return contacts


def make_state(rng: random.Random, scale: int = 1) -> dict[str, Any]:
    """One mailbox: per unit of scale 6-8 contacts who each started a conversation, 2-4 service emails,
    sometimes a conversation the owner started, and 1-2 drafts."""
    today = date(2026, 1, 5) + timedelta(days=rng.randrange(0, 300))
    now = datetime(today.year, today.month, today.day, rng.randrange(8, 18), rng.randrange(0, 60))
    span_days = 18 + 3 * scale
    me_first, me_last = rng.choice(FIRST_NAMES), rng.choice(LAST_NAMES)
    owner_email = f"{me_first}.{me_last}@{COMPANIES[0][1]}".lower()
    owner = {"name": f"{me_first} {me_last}", "first_name": me_first, "email": owner_email,
             "company": COMPANIES[0][0], "signature": f"{me_first} {me_last} | {COMPANIES[0][0]}"}
    used = {owner_email}
    contacts = _contacts(rng, rng.randint(6, 8) * scale, me_last, today, used)
    by_group: dict[str, list[dict[str, Any]]] = {}
    for contact in contacts:
        by_group.setdefault(contact["group"], []).append(contact)

    # each message: (sent_at, thread number, fields); ids are assigned once all are sorted by time
    pending: list[tuple[datetime, int, dict[str, Any]]] = []
    # every contact has written at least once; services, the owner's own threads and (in larger
    # mailboxes) more mail per contact come on top
    kinds = {"coworker": "work", "client": "client", "friend": "personal", "family": "personal"}
    plan: list[tuple[str, dict[str, Any] | None]] = [(kinds[c["group"]], c) for c in contacts]
    plan += [(kinds[c["group"]], c) for c in rng.choices(contacts, k=4 * (scale - 1))]
    plan += [("service", None)] * (rng.randint(2, 4) * scale) + [("owner", None)] * (rng.randint(0, 1) * scale)
    for thread, (kind, contact) in enumerate(plan):
        start = now - timedelta(minutes=rng.randrange(30, span_days * 24 * 60))
        if kind == "service":
            name, local, domain, subject, labels, files, body = rng.choice(SERVICE_MESSAGES)
            fill = _fill(rng, today, me_first, "", "")
            attachments = _attachments(files, fill, rng)
            text = body.format(**fill)
            pending.append((start, thread, {
                "from_name": name.format(**fill), "from_email": f"{local}@{domain}", "to": [owner_email], "cc": [],
                "subject": subject.format(**fill), "body": text, "labels": list(labels), "attachments": attachments,
                "size_kb": _size(text, attachments)}))
            continue
        if contact is None:
            group, subject, bodies = rng.choice(OWNER_THREADS)
            contact = rng.choice(by_group.get(group) or contacts)
        fill = _fill(rng, today, me_first, contact["first_name"], contact["company"] or "")
        if kind == "owner":
            labels, files, owner_starts = (), (), True
        else:
            templates = {"work": WORK_THREADS, "client": CLIENT_THREADS, "personal": PERSONAL_THREADS}[kind]
            subject, labels, files, bodies = rng.choice(templates)
            owner_starts = False
        subject = subject.format(**fill)
        cc = []
        if kind in ("work", "client") and rng.random() < 0.3:
            others = [c["email"] for c in by_group.get("coworker", []) if c is not contact]
            cc = rng.sample(others, min(len(others), 1))
        moment = start
        for position, template in enumerate(bodies[: rng.randint(1, len(bodies))]):
            if position:
                moment += timedelta(minutes=rng.randrange(20, 30 * 60))
                if moment >= now:
                    break
            from_owner = (position % 2 == 0) == owner_starts
            text = template.format(**fill)
            attachments = _attachments(files, fill, rng) if position == 0 else []
            sender, recipient = (owner, contact) if from_owner else (contact, owner)
            pending.append((moment, thread, {
                "from_name": sender.get("name") or f"{contact['first_name']} {contact['last_name']}",
                "from_email": sender["email"], "to": [recipient["email"]], "cc": list(cc),
                "subject": subject if position == 0 else f"Re: {subject}", "body": text,
                "labels": [] if from_owner else list(labels), "attachments": attachments,
                "size_kb": _size(text, attachments)}))

    work_contacts = by_group.get("coworker", []) + by_group.get("client", [])
    for _ in range(rng.randint(1, 2) * scale):
        contact = rng.choice(work_contacts or contacts)
        fill = _fill(rng, today, me_first, contact["first_name"], contact["company"])
        subject, body = rng.choice(DRAFTS)
        text = body.format(**fill)
        pending.append((now - timedelta(minutes=rng.randrange(10, 3 * 24 * 60)), -1, {
            "from_name": owner["name"], "from_email": owner_email, "to": [contact["email"]], "cc": [],
            "subject": subject.format(**fill), "body": text, "labels": [], "attachments": [],
            "size_kb": _size(text, [])}))

    pending.sort(key=lambda item: item[0])
    messages: dict[str, Any] = {}
    thread_ids: dict[int, str] = {}
    last_in_thread: dict[int, str] = {}
    counter = rng.randrange(0x18D0000000000000, 0x18E0000000000000)
    for moment, thread, fields in pending:
        counter += rng.randrange(1 << 20, 1 << 30)
        message_id = f"{counter:016x}"
        age_days = (now - moment).days
        if thread < 0:
            folder, is_read = "drafts", True
        elif fields["from_email"] == owner_email:
            folder, is_read = "sent", True
        else:
            keep = 0.85 if age_days < 7 else 0.5 if age_days < 30 else 0.15
            roll = rng.random()
            folder = "trash" if roll < 0.06 else "inbox" if roll < 0.06 + keep * 0.94 else "archive"
            is_read = rng.random() < (0.45 if age_days < 3 else 0.9)
        record = {
            "message_id": message_id,
            "thread_id": message_id if thread < 0 else thread_ids.setdefault(thread, message_id),
            "folder": folder, **fields, "sent_at": _iso(moment), "date": moment.date().isoformat(),
            "is_read": is_read, "in_reply_to": last_in_thread.get(thread) if thread >= 0 else None,
        }
        if folder == "trash":
            record["previous_folder"] = "inbox"
            record["trashed_at"] = _iso(min(now, moment + timedelta(hours=rng.randrange(1, 48))))
        if thread >= 0:
            last_in_thread[thread] = message_id
        messages[message_id] = record

    labels = {}
    for number, name in zip(sorted(rng.sample(range(1, 40), len(LABELS))), LABELS, strict=True):
        labels[f"Label_{number}"] = {"label_id": f"Label_{number}", "name": name, "key": name.lower()}
    return {
        "tables": {
            "meta": {"clock": {"today": today.isoformat(), "now": _iso(now)}},
            "account": {"owner": owner},
            "contacts": {c["contact_id"]: c for c in contacts},
            "labels": labels,
            "messages": messages,
        },
        "counters": {"messages": counter},
    }
