"""Messaging builder: the uniform contract plus its cases."""

from __future__ import annotations

from covert.env import State
from tests.builders.contract import BuilderContract, Case


def _contact(s: State) -> dict:
    return s.get("contacts", s.ids("contacts")[0])


def _first(s: State) -> str:
    return s.ids("messages")[0]


def _message(s: State) -> dict:
    return s.get("messages", _first(s))


def _force(folder: str):
    """Setup: move the first message to ``folder`` (so every seed has one there)."""
    def setup(env) -> None:
        message = env.state.edit("messages", env.state.ids("messages")[0])
        message["folder"] = folder
    return setup


def _own(env) -> None:
    """Setup: make the first message one the owner sent (a reply then goes to its recipients)."""
    message = env.state.edit("messages", env.state.ids("messages")[0])
    message.update(folder="sent", from_email=env.state.get("account", "owner")["email"], to=["ops@harborfinch.com"])


def _labelled(name: str):
    """Setup: the first message carries label ``name``."""
    def setup(env) -> None:
        message = env.state.edit("messages", env.state.ids("messages")[0])
        message["labels"] = [*(n for n in message["labels"] if n != name), name]
    return setup


def _unlabelled(env) -> None:
    """Setup: the first message carries no label."""
    env.state.edit("messages", env.state.ids("messages")[0])["labels"] = []


def _msg(**extra):
    return lambda s: {"message_id": _first(s), **extra}


MISSING = {"message_id": "18d0000000000000"}
MAIL = {"subject": "Lunch next week?", "body": "Are you free for lunch on Thursday?"}


class TestMessaging(BuilderContract):
    builder_name = "messaging"
    fingerprint = "1.9.1:b3501924bf904b7c"
    cases = [
        Case("search_contacts", lambda s: {"name": f"{_contact(s)['first_name']} {_contact(s)['last_name']}"}),
        Case("search_contacts", lambda s: {"name": _contact(s)["last_name"].lower()}),
        Case("search_contacts", lambda s: {"name": _contact(s)["first_name"][:3]}),
        Case("search_contacts", lambda s: {"name": "   "}, "empty_query"),
        Case("get_contact", lambda s: {"contact_id": _contact(s)["contact_id"]}),
        Case("get_contact", lambda s: {"contact_id": "c0000000000000000"}, "contact_not_found"),
        Case("list_inbox", lambda s: {}),
        Case("list_inbox", lambda s: {"unread_only": True, "limit": 3}),
        Case("search_messages", lambda s: {"sender": _message(s)["from_name"].split()[0]}),
        Case("search_messages", lambda s: {"sender": _message(s)["from_email"]}, setup=_force("inbox")),
        Case("search_messages", lambda s: {"subject_keyword": _message(s)["subject"].split()[-1], "folder": "inbox"},
             setup=_force("inbox")),
        Case("search_messages", lambda s: {"label": "work", "since": _message(s)["date"], "until": "2026-12-31"}),
        Case("search_messages", lambda s: {}, "missing_search_criteria"),
        Case("search_messages", lambda s: {"label": "Taxes 2019"}, "label_not_found"),
        Case("search_messages", lambda s: {"since": "03/14/2026"}, "invalid_date"),
        Case("search_messages", lambda s: {"since": "2026-02-30"}, "invalid_date"),
        Case("search_messages", lambda s: {"since": "2026-03-10", "until": "2026-03-01"}, "invalid_date_range"),
        Case("get_message", _msg()),
        Case("get_message", lambda s: MISSING, "message_not_found"),
        Case("send_email", lambda s: {"to": [_contact(s)["email"]], **MAIL}),
        Case("send_email", lambda s: {"to": [_contact(s)["email"].upper()], "subject": "", "body": "See you at 6.",
                                      "cc": ["Ops.Team@northwind-analytics.com"]}),
        Case("send_email", lambda s: {"to": [], **MAIL}, "no_recipients"),
        Case("send_email", lambda s: {"to": ["dana at example.com"], **MAIL}, "invalid_recipient"),
        Case("send_email", lambda s: {"to": [_contact(s)["email"]], "cc": ["dana@"], **MAIL}, "invalid_recipient"),
        Case("send_email", lambda s: {"to": [_contact(s)["email"]], "subject": " ", "body": ""}, "empty_message"),
        Case("reply_to_message", _msg(body="Thanks, that works for me."), setup=_force("inbox")),
        Case("reply_to_message", _msg(body="Adding Dana.", cc=["dana.whitfield@bluepeaklabs.io"]), setup=_own),
        Case("reply_to_message", lambda s: {**MISSING, "body": "Thanks"}, "message_not_found"),
        Case("reply_to_message", _msg(body="Thanks"), "message_is_draft", setup=_force("drafts")),
        Case("reply_to_message", _msg(body="  "), "empty_message", setup=_force("inbox")),
        Case("reply_to_message", _msg(body="Thanks", cc=["not-an-address"]), "invalid_recipient", setup=_force("inbox")),
        Case("forward_message", lambda s: {"message_id": _first(s), "to": [_contact(s)["email"]]}, setup=_force("inbox")),
        Case("forward_message", lambda s: {"message_id": _first(s), "to": [_contact(s)["email"]], "note": "FYI"},
             setup=_force("archive")),
        Case("forward_message", lambda s: {**MISSING, "to": ["a@b.com"]}, "message_not_found"),
        Case("forward_message", _msg(to=["a@b.com"]), "message_is_draft", setup=_force("drafts")),
        Case("forward_message", _msg(to=[]), "no_recipients", setup=_force("inbox")),
        Case("forward_message", _msg(to=["a@b"]), "invalid_recipient", setup=_force("inbox")),
        Case("update_labels", _msg(add_labels=["travel", "Follow-up"])),
        Case("update_labels", lambda s: {"message_id": _first(s), "add_labels": ["Important"],
                                         "remove_labels": _message(s)["labels"][:1]}, setup=_labelled("Work")),
        Case("update_labels", _msg(remove_labels=["Clients"]), "label_not_on_message", setup=_unlabelled),
        Case("update_labels", lambda s: {**MISSING, "add_labels": ["Travel"]}, "message_not_found"),
        Case("update_labels", _msg(add_labels=["Taxes 2019"]), "label_not_found"),
        Case("update_labels", _msg(add_labels=[], remove_labels=[]), "no_label_changes"),
        Case("update_labels", _msg(add_labels=["Work"], remove_labels=["Work"]), "conflicting_labels"),
        Case("archive_message", _msg(), setup=_force("inbox")),
        Case("archive_message", lambda s: MISSING, "message_not_found"),
        Case("archive_message", _msg(), "not_in_inbox", setup=_force("archive")),
        Case("delete_message", _msg(), setup=_force("inbox")),
        Case("delete_message", lambda s: MISSING, "message_not_found"),
        Case("delete_message", _msg(), "already_deleted", setup=_force("trash")),
        Case("create_draft", lambda s: {"to": [_contact(s)["email"]], **MAIL}),
        Case("create_draft", lambda s: {"to": [], "subject": "Holiday schedule", "body": ""}),
        Case("create_draft", lambda s: {"to": ["bob@@example.com"], **MAIL}, "invalid_recipient"),
        Case("create_draft", lambda s: {"to": [_contact(s)["email"]], "subject": "", "body": "  "}, "empty_message"),
    ]
