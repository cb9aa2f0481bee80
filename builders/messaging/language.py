"""How the mailbox owner talks to their email assistant: intents per tool, references, value samplers."""

from __future__ import annotations

import random
import re
from datetime import date, timedelta
from typing import Any

from covert.env import Intent, Language, Reference, State

# subject, body of new emails and drafts a user might dictate
OUTGOING = (
    ("Lunch next week?", "Are you free for lunch on Thursday? My treat."),
    ("Running late", "Running about 15 minutes late to our meeting, sorry about that."),
    ("Thanks for today", "Thanks for your help with the launch today, it went really smoothly."),
    ("Updated numbers", "I've updated the forecast with the new numbers; the totals are in the shared sheet."),
    ("Quick question", "Do you have the final version of the contract? I can't find it in the shared drive."),
    ("Weekend plans", "We're having a barbecue on Saturday afternoon, would love for you to come."),
    ("Moving our call", "Could we move our call to Friday at 10am? Something came up on Wednesday."),
    ("Happy birthday!", "Happy birthday! Hope you have a wonderful day."),
)
DRAFT_IDEAS = (
    ("Proposal feedback", "Thanks for sending the proposal. A few thoughts on the timeline before we sign off"),
    ("Team offsite ideas", "Here are some ideas for the team offsite in the spring"),
    ("Holiday schedule", "Here's who is out over the holidays and who covers what"),
    ("Thank-you note", "Thank you so much for the lovely dinner last weekend"),
    ("Hiring plan", "Draft of the hiring plan for next quarter: two engineers and one designer"),
)
REPLIES = (
    "Thanks, that works for me.", "Sounds good, see you then.", "Got it, I'll take a look today.",
    "Thanks for the heads-up!", "Perfect, thank you.", "Can we push this to next week?",
    "Yes, please go ahead.", "I'll get back to you by Friday.",
)
NOTES = (
    "FYI, see below.", "Can you take a look at this?", "Forwarding for your records.",
    "Could you handle this one?", "Thought you'd want to see this.",
)
STOPWORDS = {"your", "from", "with", "this", "that", "week", "still", "about", "what", "have", "ready", "next",
             "matching", "jobs"}


def _messages(state: State, *folders: str) -> list[dict[str, Any]]:
    return [m for _, m in state.records("messages") if m["folder"] in folders]


def _contact_name(rng: random.Random, state: State) -> str:
    contact = state.get("contacts", rng.choice(state.ids("contacts")))
    return f"{contact['first_name']} {contact['last_name']}"


def _sender(rng: random.Random, state: State) -> str:
    found = _messages(state, "inbox", "archive") or _messages(state, "inbox", "archive", "sent")
    return rng.choice(found)["from_name"]


def _subject_keyword(rng: random.Random, state: State) -> str:
    subject = rng.choice(_messages(state, "inbox", "archive", "sent"))["subject"]
    words = [w for w in re.findall(r"[A-Za-z][A-Za-z-]{3,}", subject) if w.lower() not in STOPWORDS]
    return rng.choice(words) if words else subject


def _used_label(rng: random.Random, state: State) -> str:
    used = sorted({n for m in _messages(state, "inbox", "archive", "sent") for n in m["labels"]})
    return rng.choice(used or [r["name"] for _, r in state.records("labels")])


def _any_label(rng: random.Random, state: State) -> list[str]:
    return [rng.choice([r["name"] for _, r in state.records("labels")])]


def _dates(state: State) -> list[str]:
    return sorted({m["date"] for m in _messages(state, "inbox", "archive", "sent")})


def _since(rng: random.Random, state: State) -> str:
    dates = _dates(state)
    return rng.choice(dates[: len(dates) // 2 + 1])


def _until(rng: random.Random, state: State) -> str:
    # drawn from the newer half, so ``since`` <= ``until`` and the window holds messages
    dates = _dates(state)
    return rng.choice(dates[len(dates) // 2:])


def _colleague(rng: random.Random, state: State) -> list[str]:
    contacts = [c for _, c in state.records("contacts")]
    work = [c for c in contacts if c["group"] == "coworker"] or contacts
    return [rng.choice(work)["email"]]


def _search(rng: random.Random, state: State) -> dict[str, str]:
    """Filters that all describe one labelled message, so any combination of them finds it."""
    received = _messages(state, "inbox", "archive")
    message = rng.choice([m for m in received if m["labels"]] or received or _messages(state, "sent"))
    words = [w for w in re.findall(r"[A-Za-z][A-Za-z-]{3,}", message["subject"]) if w.lower() not in STOPWORDS]
    day = date.fromisoformat(message["date"])
    out = {"sender": message["from_name"], "subject_keyword": rng.choice(words) if words else message["subject"],
           "since": (day - timedelta(days=rng.randint(0, 6))).isoformat(),
           "until": min(state.get("meta", "clock")["today"], (day + timedelta(days=rng.randint(0, 6))).isoformat())}
    if message["labels"]:
        out["label"] = rng.choice(message["labels"])
    return out


def _pick(pairs: tuple[tuple[str, str], ...]):
    def sample(rng: random.Random, state: State) -> dict[str, str]:
        subject, body = rng.choice(pairs)
        return {"subject": subject, "body": body}
    return sample


# search filters: every combination a user plausibly gives, as ask and as context phrasing
SEARCH_ASKS = (
    "find the emails from {sender}", "did {sender} email me recently?", "show me what {sender} has sent me",
    "find my emails about {subject_keyword}", "search my mail for \"{subject_keyword}\" in the subject",
    "show me everything labeled {label}", "which emails are filed under {label}?",
    "what emails did I get between {since} and {until}?", "list my mail from {since} through {until}",
    "show me my emails since {since}", "which emails did I have up to {until}?",
    "what's in my {folder} folder?",
    "find the emails from {sender} labeled {label}", "find the email from {sender} about {subject_keyword}",
    "are there any {label} emails about {subject_keyword}?", "has {sender} emailed me since {since}?",
    "look in my {folder} folder for emails from {sender}", "search my {folder} folder for \"{subject_keyword}\"",
    "which {label} emails are in my {folder} folder?", "show me my {label} emails since {since}",
    "which {label} emails came in up to {until}?", "show me my {label} emails from {since} to {until}",
    "what's landed in my {folder} folder since {since}?", "what was in my {folder} folder up to {until}?",
    "find emails about {subject_keyword} since {since}", "what did {sender} send me up to {until}?",
    "what did {sender} send me between {since} and {until}?",
    "find the {label} email from {sender} about {subject_keyword}",
)
SEARCH_CONTEXTS = (
    "it came from {sender}", "the sender was {sender}", "the subject had \"{subject_keyword}\" in it",
    "it was about {subject_keyword}", "I filed it under {label}", "it has the {label} label",
    "it came in between {since} and {until}", "it arrived on or after {since}", "it came in no later than {until}",
    "it's in my {folder} folder", "it's from {sender} and labeled {label}",
    "it's from {sender}, about {subject_keyword}", "it's a {label} email about {subject_keyword}",
    "{sender} sent it sometime since {since}", "it's from {sender}, in my {folder} folder",
    "it's in my {folder} folder, something about {subject_keyword}", "it's a {label} email in my {folder} folder",
    "it's a {label} email from {since} or later", "it's a {label} email from no later than {until}",
    "it's a {label} email from between {since} and {until}", "it reached my {folder} folder on or after {since}",
    "it's in my {folder} folder, from {until} or earlier", "it's about {subject_keyword} and came in after {since}",
    "{sender} sent it on or before {until}", "{sender} sent it between {since} and {until}",
    "it's the {label} email from {sender} about {subject_keyword}",
)

LANGUAGE = Language(
    scope="your email: contacts, reading and searching messages, sending, replying, forwarding, labels, "
          "archiving, deleting and drafts",
    intents={
        "search_contacts": (
            Intent(ask=("is {name} in my contacts?", "can you look up {name} in my address book?",
                        "find the contact named {name} for me", "do I have {name} saved?", "look for {name} in my contacts", "is {name} saved in my address book?", "bring up {name} from my contacts", "search my contacts for {name}", "is there a {name} among my contacts?", "I met {name} at a conference; did I save them as a contact?"),
                   answer=("Yes, {contacts:list:name|email} is in your contacts.",
                           "I found {contacts:n:contact} matching that name: {contacts:list:name|company}.",
                           "Your address book has {contacts:list:name|job_title}.",
                           "{?contacts=}I found {total:n:contact} with that name."),
                   context=("their name is {name}", "it's {name} from my contacts", "I'm looking for {name}",
                            "it's about my contact {name}", "I mean {name} from my address book", "I've got {name} saved as a contact")),
        ),
        "get_contact": (
            Intent(ask=("what's the phone number for {contact_id}?", "phone number for {contact_id}?", "can you give me {contact_id}'s number?", "I need to call {contact_id}; what's their number?"),
                   answer=("{name}'s phone number is {phone}.",
                           "You can reach {name} at {phone}.",
                           "The number on file for {name} is {phone}.")),
            Intent(ask=("what's the email address of {contact_id}?", "I want to write to {contact_id}; what's their address?", "which address do I have for {contact_id}?", "how do I email {contact_id}?"),
                   answer=("{name}'s email address is {email}.",
                           "You can write to {name} at {email}.",
                           "{name} uses {email}.")),
            Intent(ask=("where does {contact_id} work?", "which company is {contact_id} with?", "what's {contact_id}'s job title?", "what does {contact_id} do, and where?"),
                   answer=("{name} is {job_title} at {company}.",
                           "{name} works at {company} as {job_title}.",
                           "{company}: {name} is their {job_title}.")),
        ),
        "list_inbox": (
            Intent(ask=("what's in my inbox?", "show me my inbox", "what's new in my inbox today?", "anything new in my email?", "how many unread emails do I have?",
                        "can you show me my latest emails?", "what emails have come in lately?", "any emails I should know about?"),
                   answer=("{?unread_count~0}You have {total:n:email} in your inbox, {unread_count} of them unread; the latest are {messages:list:subject|from_name}.",
                           "{?unread_count=0}You have {total:n:email} in your inbox, all read; the latest are {messages:list:subject|from_name}.",
                           "In your inbox: {messages:list:subject|from_name}.",
                           "Your inbox holds {total:n:email} ({unread_count} unread), including {messages:list:subject}.",
                           "{?messages=}Your inbox is empty: {total:n:email}.")),
        ),
        "search_messages": (
            Intent(ask=SEARCH_ASKS, answer=("I found {total_matches:n:email}: {messages:list:subject|from_name}.",
                                            "Matching emails: {messages:list:subject|date@date}.",
                                            "These came up: {messages:list:subject|from_name|date@date}.",
                                            "{?messages=}I found {total_matches:n:matching email}."), context=SEARCH_CONTEXTS),
        ),
        "get_message": (
            Intent(ask=("what does {message_id} say?", "what's {message_id} about?", "give me the gist of {message_id}", "can you read me {message_id}?", "open {message_id} for me", "read {message_id} to me", "what did {message_id} say again?"),
                   answer=("{from_name} wrote on {date:date}: \"{body}\"",
                           "The email \"{subject}\" from {from_name} says: \"{body}\"",
                           "Here's what {from_name} sent: \"{body}\"")),
            Intent(ask=("does {message_id} have any attachments?", "is there anything attached to {message_id}?", "how many files are attached to {message_id}?", "did {message_id} come with any files?"),
                   answer=("That email has {attachment_count:n:attachment}: {attachments:list:filename}.",
                           "\"{subject}\" comes with {attachments:list:filename}.",
                           "Attached to it: {attachments:list:filename}.",
                           "{?attachments=}\"{subject}\" has {attachment_count:n:attachment}.")),
            Intent(ask=("when exactly did {message_id} come in?", "what day and time did {message_id} arrive?", "what time was {message_id} sent?", "when did {message_id} arrive?"),
                   answer=("It came in on {sent_at:when}, from {from_name} ({from_email}).",
                           "{from_name} sent it on {sent_at:when}.",
                           "\"{subject}\" arrived {sent_at:when}.")),
        ),
        "send_email": (
            Intent(ask=("send an email to {to} with the subject \"{subject}\" saying: {body}",
                        "email {to}: subject \"{subject}\", message \"{body}\"",
                        "please write to {to}. Subject: {subject}. Text: {body}",
                        "email {to} and copy {cc}, subject \"{subject}\": {body}",
                        "send {to} a note titled \"{subject}\" with {cc} on cc: {body}"),
                   answer=("Your email \"{subject}\" was sent on {sent_at:when}.",
                           "Sent: \"{subject}\" is on its way.",
                           "I sent \"{subject}\" ({sent_at:when}).")),
        ),
        "reply_to_message": (
            Intent(ask=("reply to {message_id} and say: {body}", "send a reply to {message_id}: {body}", "respond to {message_id} with: {body}", "answer {message_id} with \"{body}\"",
                        "write back to {message_id}: {body}", "reply to {message_id} with \"{body}\" and cc {cc}"),
                   answer=("Your reply \"{subject}\" was sent on {sent_at:when}.",
                           "I replied; \"{subject}\" is in your Sent folder.",
                           "Reply sent: \"{subject}\".")),
        ),
        "forward_message": (
            Intent(ask=("forward {message_id} to {to}", "share {message_id} with {to}", "can you pass {message_id} along to {to}?", "send {message_id} over to {to}",
                        "send {message_id} on to {to}", "forward {message_id} to {to} with the note \"{note}\"",
                        "send {message_id} to {to} and add \"{note}\" on top"),
                   answer=("I forwarded \"{subject}\" on {sent_at:when}.",
                           "\"{subject}\" is forwarded.",
                           "Done, \"{subject}\" went out ({attachment_count:n:attachment} included).")),
        ),
        "update_labels": (
            Intent(ask=("add the {add_labels} label to {message_id}", "put {message_id} under {add_labels}", "label {message_id} as {add_labels}", "file {message_id} under {add_labels}",
                        "tag {message_id} with {add_labels}", "remove the {remove_labels} label from {message_id}",
                        "take {message_id} out of {remove_labels}",
                        "label {message_id} {add_labels} instead of {remove_labels}"),
                   answer=("\"{subject}\" is now labelled {labels}.",
                           "I updated the labels on \"{subject}\"; it now has {labels}.",
                           "The labels on \"{subject}\" now read {labels}.",
                           "{?labels=}\"{subject}\" has no labels now.")),
        ),
        "archive_message": (
            Intent(ask=("archive {message_id}", "{message_id} can go to the archive", "get {message_id} out of my inbox, I'm done with it",
                        "please archive {message_id}", "move {message_id} to the archive"),
                   answer=("\"{subject}\" is archived; it moved from your {previous_folder} to the {folder}.",
                           "I archived \"{subject}\".",
                           "\"{subject}\" is out of your {previous_folder} and in the {folder} now.")),
        ),
        "delete_message": (
            Intent(ask=("delete {message_id}", "bin {message_id}", "move {message_id} to the trash", "get rid of {message_id}", "trash {message_id}"),
                   answer=("\"{subject}\" is now in the {folder}.",
                           "I deleted \"{subject}\"; it's in the {folder} if you need it back.",
                           "\"{subject}\" moved from your {previous_folder} to the {folder}.")),
        ),
        "create_draft": (
            Intent(ask=("draft an email to {to} titled \"{subject}\": {body}. Don't send it yet",
                        "start a draft for {to} with the subject \"{subject}\" that says \"{body}\"; I'll review it first",
                        "save a draft to {to}, subject {subject}, text: {body}",
                        "draft a note to {to} with {cc} on cc, subject \"{subject}\": {body}. Don't send it"),
                   answer=("I saved the draft \"{subject}\" in your {folder} folder.",
                           "Your draft \"{subject}\" is saved and not sent.",
                           "\"{subject}\" is waiting in {folder}, unsent.")),
        ),
    },
    references={
        "contact_id": Reference(
            noun="contact", plural="contacts", by_id=("contact {value}",), user_knows_id=False,
            by_field={"name": ("{value}", "my contact {value}"), "company": ("my contact at {value}",)},
        ),
        # a recipient address; read as "my contact" when it comes from a contact card
        "email": Reference(
            noun="contact", plural="contacts", by_id=("{value}",), user_knows_id=False,
            by_field={"name": ("{value}", "{value}'s address"), "company": ("my contact at {value}",)},
        ),
        "message_id": Reference(
            noun="email", plural="emails", by_id=("message {value}",), user_knows_id=False,
            by_field={"subject": ("the email about \"{value}\"", "the \"{value}\" email", "the message titled \"{value}\""),
                      "from_name": ("the email from {value}", "{value}'s message")},
            superlative={"size_kb": ("my biggest email", "my smallest email")},
        ),
    },
    entity_tables={"message_id": "messages", "contact_id": "contacts"},
    eligible={"archive_message.message_id": lambda state, message: message["folder"] == "inbox",
              "reply_to_message.message_id": lambda state, message: message["folder"] != "drafts",
              "forward_message.message_id": lambda state, message: message["folder"] != "drafts"},
    values={
        "search_contacts.name": _contact_name,
        "search_messages.sender": _sender,
        "search_messages.subject_keyword": _subject_keyword,
        "search_messages.label": _used_label,
        "search_messages.since": _since,
        "search_messages.until": _until,
        "search_messages": _search,
        "send_email": _pick(OUTGOING),
        "create_draft": _pick(DRAFT_IDEAS),
        "cc": _colleague,
        "reply_to_message.body": lambda rng, state: rng.choice(REPLIES),
        "forward_message.note": lambda rng, state: rng.choice(NOTES),
        "update_labels.add_labels": _any_label,
        "update_labels.remove_labels": lambda rng, state: [_used_label(rng, state)],
    },
    field_nouns={
        "size_kb": "size in KB", "unread_count": "number of unread emails", "total": "count",
        "total_matches": "number of matching emails", "attachment_count": "number of attachments",
        "sent_at": "time sent", "saved_at": "time saved", "moved_at": "time moved", "added_on": "date added",
        "date": "date", "since": "earliest date", "until": "latest date",
    },
    out_of_scope=(
        "Can you book a meeting room for Thursday at 3pm?",
        "What's the weather going to be like in Chicago tomorrow?",
        "Call my sister and tell her I'll be late.",
        "Can you reset my email password?",
        "Translate this paragraph into Portuguese for me.",
        "What's the stock price of Apple right now?",
        "Order me a large pepperoni pizza.",
        "Set an alarm for 6:30 tomorrow morning.",
        "Who won the basketball game last night?",
        "Can you recommend a good laptop for video editing?",
        # near the domain: requests the tools look like they could serve, but do not
        "Can you unsend the email I sent to {contacts.first_name} {contacts.last_name} an hour ago?",
        "Can you block {messages.from_email} so their mail never reaches me again?",
        "Can you create a new label called Receipts?",
        "Please set up an out-of-office auto-reply for next week.",
        "Can you schedule an email to {contacts.first_name} to go out tomorrow at 9am?",
        "Can you call {contacts.first_name} {contacts.last_name} for me?",
        "Please change my email signature to include my new phone number.",
        "Can you update {contacts.first_name} {contacts.last_name}'s phone number in my contacts?",
        "I forgot my email password. Can you reset it?",
        "Can you increase my mailbox storage? I'm nearly full.",
        "Can you delete {contacts.first_name} {contacts.last_name} from my contacts?",
        "Can you set up a filter that sends newsletters straight to a folder?",
        "Can you add a new contact for my plumber, Sam, at 555-0142?",
        "Can you export my whole mailbox to a file?",
        "Can you recall the message with the subject '{messages.subject}'? I sent it by mistake.",
        "Can you make my emails to {contacts.company} go out from a different address?",
    ),
)
