"""Messaging tools: one user's mailbox with contacts, labels and messages (Gmail-like)."""

from __future__ import annotations

import re
from datetime import date
from typing import Annotated, Literal, Optional, TypedDict

from covert.env import Entity, Environment, ToolError, tool

# a ``to`` item carries the ``email`` entity, so a contact's ``email`` field feeds it; ``cc`` stays a plain
# value (the user names whom to copy), so the tool graph never fills it by itself
Email = Annotated[str, Entity("email")]
Folder = Literal["inbox", "sent", "drafts", "archive", "trash"]

_ADDRESS = re.compile(r"^[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}$")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
MAX_LIMIT = 50


class ContactSummary(TypedDict):
    """A contact matching a search.

    Attributes:
        contact_id: Id of the contact.
        name: Full name.
        email: Email address.
        company: Company, null for personal contacts.
        job_title: Job title, null for personal contacts.
    """

    contact_id: str
    name: str
    email: str
    company: Optional[str]
    job_title: Optional[str]


class ContactList(TypedDict):
    """Contacts matching a name.

    Attributes:
        contacts: The matching contacts.
        total: Number of matches.
    """

    contacts: list[ContactSummary]
    total: int


class MessageRef(TypedDict):
    """A short reference to a message.

    Attributes:
        message_id: Id of the message.
        subject: Subject line.
        from_name: Display name of the sender.
        date: Date sent or received (YYYY-MM-DD).
        folder: inbox, sent, drafts, archive or trash.
        is_read: Whether the message has been read.
    """

    message_id: str
    subject: str
    from_name: str
    date: str
    folder: str
    is_read: bool


class ContactDetails(TypedDict):
    """A contact's full card.

    Attributes:
        contact_id: Id of the contact.
        name: Full name.
        first_name: First name.
        last_name: Last name.
        email: Email address.
        phone: Phone number.
        company: Company, null for personal contacts.
        job_title: Job title, null for personal contacts.
        group: coworker, client, friend or family.
        added_on: Date the contact was saved (YYYY-MM-DD).
        recent_messages: Up to five latest messages received from this contact, newest first.
    """

    contact_id: str
    name: str
    first_name: str
    last_name: str
    email: str
    phone: str
    company: Optional[str]
    job_title: Optional[str]
    group: str
    added_on: str
    recent_messages: list[MessageRef]


class MessageSummary(TypedDict):
    """One message in a listing.

    Attributes:
        message_id: Id of the message.
        thread_id: Id of the conversation it belongs to.
        folder: inbox, sent, drafts, archive or trash.
        from_name: Display name of the sender.
        from_email: Address of the sender.
        subject: Subject line.
        snippet: The first words of the body.
        sent_at: When it was sent (ISO 8601, UTC).
        date: Date sent (YYYY-MM-DD).
        labels: Labels on the message.
        is_read: Whether the message has been read.
        has_attachments: Whether files are attached.
        size_kb: Size of the message with attachments, in KB.
    """

    message_id: str
    thread_id: str
    folder: str
    from_name: str
    from_email: str
    subject: str
    snippet: str
    sent_at: str
    date: str
    labels: list[str]
    is_read: bool
    has_attachments: bool
    size_kb: int


class InboxPage(TypedDict):
    """The newest messages of the inbox.

    Attributes:
        messages: Inbox messages, newest first.
        total: Number of messages in the inbox.
        unread_count: Number of unread messages in the inbox.
    """

    messages: list[MessageSummary]
    total: int
    unread_count: int


class SearchResult(TypedDict):
    """Messages matching a search.

    Attributes:
        messages: Matching messages, newest first, at most ``limit``.
        total_matches: Number of matching messages before the limit.
    """

    messages: list[MessageSummary]
    total_matches: int


class Attachment(TypedDict):
    """A file attached to a message.

    Attributes:
        filename: File name.
        mime_type: MIME type.
        size_kb: Size in KB.
    """

    filename: str
    mime_type: str
    size_kb: int


class ThreadMessage(TypedDict):
    """A message of the same conversation.

    Attributes:
        message_id: Id of the message.
        from_name: Display name of the sender.
        from_email: Address of the sender.
        subject: Subject line.
        sent_at: When it was sent (ISO 8601, UTC).
        date: Date sent (YYYY-MM-DD).
        folder: Folder the message is in.
        snippet: The first words of the body.
    """

    message_id: str
    from_name: str
    from_email: str
    subject: str
    sent_at: str
    date: str
    folder: str
    snippet: str


class MessageDetails(TypedDict):
    """A full message and its conversation.

    Attributes:
        message_id: Id of the message.
        thread_id: Id of the conversation.
        folder: inbox, sent, drafts, archive or trash.
        from_name: Display name of the sender.
        from_email: Address of the sender.
        to_addresses: Addresses in the To line.
        cc_addresses: Addresses in the Cc line.
        subject: Subject line.
        body: The message text.
        sent_at: When it was sent (ISO 8601, UTC).
        date: Date sent (YYYY-MM-DD).
        labels: Labels on the message.
        is_read: Whether the message has been read.
        attachments: Attached files.
        attachment_count: Number of attached files.
        size_kb: Size of the message with attachments, in KB.
        in_reply_to: Id of the message this one answers, empty if it starts the conversation.
        thread: Every message of the conversation, oldest first, this one included.
    """

    message_id: str
    thread_id: str
    folder: str
    from_name: str
    from_email: str
    to_addresses: list[str]
    cc_addresses: list[str]
    subject: str
    body: str
    sent_at: str
    date: str
    labels: list[str]
    is_read: bool
    attachments: list[Attachment]
    attachment_count: int
    size_kb: int
    in_reply_to: str
    thread: list[ThreadMessage]


class SentMessage(TypedDict):
    """A message that was sent.

    Attributes:
        message_id: Id of the new message.
        thread_id: Id of its conversation.
        status: Always sent.
        folder: Always sent.
        from_email: The mailbox owner's address.
        to_addresses: Addresses in the To line.
        cc_addresses: Addresses in the Cc line.
        subject: Subject line.
        sent_at: When it was sent (ISO 8601, UTC).
        attachment_count: Number of attached files.
    """

    message_id: str
    thread_id: str
    status: str
    folder: str
    from_email: str
    to_addresses: list[str]
    cc_addresses: list[str]
    subject: str
    sent_at: str
    attachment_count: int


class DraftResult(TypedDict):
    """A saved draft.

    Attributes:
        message_id: Id of the draft.
        status: Always draft.
        folder: Always drafts.
        to_addresses: Addresses in the To line.
        cc_addresses: Addresses in the Cc line.
        subject: Subject line.
        body: The draft text.
        saved_at: When the draft was saved (ISO 8601, UTC).
    """

    message_id: str
    status: str
    folder: str
    to_addresses: list[str]
    cc_addresses: list[str]
    subject: str
    body: str
    saved_at: str


class LabelResult(TypedDict):
    """A message's labels after a change.

    Attributes:
        message_id: Id of the message.
        subject: Subject line.
        labels: All labels now on the message.
        added: Labels that were added.
        removed: Labels that were removed.
    """

    message_id: str
    subject: str
    labels: list[str]
    added: list[str]
    removed: list[str]


class MoveResult(TypedDict):
    """A message moved to another folder.

    Attributes:
        message_id: Id of the message.
        subject: Subject line.
        folder: The folder it is in now.
        previous_folder: The folder it was in before.
        moved_at: When it was moved (ISO 8601, UTC).
    """

    message_id: str
    subject: str
    folder: str
    previous_folder: str
    moved_at: str


def _snippet(body: str) -> str:
    return body if len(body) <= 90 else body[:87].rsplit(" ", 1)[0] + "..."


def _summary(m: dict) -> MessageSummary:
    return {
        "message_id": m["message_id"], "thread_id": m["thread_id"], "folder": m["folder"],
        "from_name": m["from_name"], "from_email": m["from_email"], "subject": m["subject"],
        "snippet": _snippet(m["body"]), "sent_at": m["sent_at"], "date": m["date"], "labels": list(m["labels"]),
        "is_read": m["is_read"], "has_attachments": bool(m["attachments"]), "size_kb": m["size_kb"],
    }


def _newest_first(messages: list[dict]) -> list[dict]:
    return sorted(messages, key=lambda m: (m["sent_at"], m["message_id"]), reverse=True)


def _prefixed(prefix: str, subject: str) -> str:
    return subject if subject.lower().startswith(prefix.lower()) else f"{prefix} {subject}".strip()


class MessagingEnv(Environment):
    """One person's mailbox: contacts, labels, folders and messages."""

    name = "messaging"

    # -- helpers ---------------------------------------------------------------------------------
    def _clock(self) -> dict:
        return self.state.get("meta", "clock")

    def _owner(self) -> dict:
        return self.state.get("account", "owner")

    def _message(self, message_id: str) -> dict:
        message = self.state.get("messages", message_id)
        if message is None:
            raise ToolError("message_not_found", f"No message has id {message_id}.")
        return message

    def _sendable(self, message_id: str) -> dict:
        message = self._message(message_id)
        if message["folder"] == "drafts":
            raise ToolError("message_is_draft", f"Message {message_id} is an unsent draft; only sent or received messages can be answered or forwarded.")
        return message

    def _addresses(self, addresses: Optional[list[str]]) -> list[str]:
        out: list[str] = []
        for raw in addresses or []:
            address = raw.strip().lower()
            if not _ADDRESS.match(address):
                raise ToolError("invalid_recipient", f"{raw!r} is not a valid email address.")
            if address not in out:
                out.append(address)
        return out

    def _label_names(self, names: list[str]) -> list[str]:
        out: list[str] = []
        for raw in names:
            label = self.state.find_one("labels", key=raw.strip().lower())
            if label is None:
                existing = ", ".join(r["name"] for _, r in self.state.records("labels"))
                raise ToolError("label_not_found", f"There is no label named {raw!r}. Existing labels: {existing}.")
            if label["name"] not in out:
                out.append(label["name"])
        return out

    def _new_message(self, fields: dict) -> dict:
        """Insert a message written by the owner now (sent unless ``fields`` says drafts); a new id
        from the ``messages`` counter, rendered as 16 hex digits like the seeded ids."""
        clock, owner = self._clock(), self._owner()
        message_id = f"{self.state.next_id('messages'):016x}"
        attachments = fields.get("attachments", [])
        record = {
            "message_id": message_id, "thread_id": message_id, "folder": "sent",
            "from_name": owner["name"], "from_email": owner["email"],
            "cc": [], "labels": [], "attachments": [], "in_reply_to": None, **fields,
            "sent_at": clock["now"], "date": clock["today"], "is_read": True,
            "size_kb": 2 + len(fields.get("body", "")) // 512 + sum(a["size_kb"] for a in attachments),
        }
        self.state.insert("messages", message_id, record)
        return record

    @staticmethod
    def _sent(record: dict) -> SentMessage:
        return {
            "message_id": record["message_id"], "thread_id": record["thread_id"], "status": "sent",
            "folder": record["folder"], "from_email": record["from_email"], "to_addresses": list(record["to"]),
            "cc_addresses": list(record["cc"]), "subject": record["subject"], "sent_at": record["sent_at"],
            "attachment_count": len(record["attachments"]),
        }

    def _move(self, message_id: str, folder: str) -> MoveResult:
        message = self.state.edit("messages", message_id)
        previous = message["folder"]
        now = self._clock()["now"]
        message["folder"] = folder
        if folder == "trash":
            message["previous_folder"] = previous
            message["trashed_at"] = now
        return {"message_id": message_id, "subject": message["subject"], "folder": folder,
                "previous_folder": previous, "moved_at": now}

    # -- reads -----------------------------------------------------------------------------------
    @tool(errors=("empty_query",))
    def search_contacts(self, name: str) -> ContactList:
        """Search the address book for contacts by name (first name, last name or full name).

        Args:
            name: The name to look for, such as "Dana Whitfield" or "Whitfield".
        """
        words = name.replace(",", " ").split()
        if not words:
            raise ToolError("empty_query", "Give a name to search for.")
        if "@" in name:
            found = self.state.find("contacts", email=name.strip().lower())
        elif len(words) >= 2:
            found = self.state.find("contacts", first_name=words[0].capitalize(),
                                    last_name=" ".join(words[1:]).title())
        else:
            word = words[0].capitalize()
            found = self.state.find("contacts", first_name=word)
            seen = {c["contact_id"] for c in found}
            found += [c for c in self.state.find("contacts", last_name=word) if c["contact_id"] not in seen]
        if not found:  # partial names ("Dan", "whit") fall back to a scan
            needle = " ".join(words).lower()
            found = [c for _, c in self.state.records("contacts")
                     if needle in f"{c['first_name']} {c['last_name']}".lower()]
        contacts = [{"contact_id": c["contact_id"], "name": f"{c['first_name']} {c['last_name']}", "email": c["email"],
                     "company": c["company"], "job_title": c["job_title"]} for c in found]
        return {"contacts": contacts, "total": len(contacts)}

    @tool(errors=("contact_not_found",))
    def get_contact(self, contact_id: str) -> ContactDetails:
        """Get a contact's full card: email, phone, company, title and their latest messages to the user.

        Args:
            contact_id: The contact's id, such as c4820193847561029.
        """
        contact = self.state.get("contacts", contact_id)
        if contact is None:
            raise ToolError("contact_not_found", f"No contact has id {contact_id}.")
        received = _newest_first(self.state.find("messages", from_email=contact["email"]))[:5]
        return {
            "contact_id": contact_id, "name": f"{contact['first_name']} {contact['last_name']}",
            "first_name": contact["first_name"], "last_name": contact["last_name"], "email": contact["email"],
            "phone": contact["phone"], "company": contact["company"], "job_title": contact["job_title"],
            "group": contact["group"], "added_on": contact["added_on"],
            "recent_messages": [{"message_id": m["message_id"], "subject": m["subject"], "from_name": m["from_name"],
                                 "date": m["date"], "folder": m["folder"], "is_read": m["is_read"]} for m in received],
        }

    @tool()
    def list_inbox(self, unread_only: bool = False, limit: int = 10) -> InboxPage:
        """List the newest messages in the inbox, with the inbox's total and unread counts.

        Args:
            unread_only: Only list unread messages.
            limit: Maximum number of messages to return (1-50).
        """
        inbox = self.state.find("messages", folder="inbox")  # stored oldest first: new mail is appended
        unread = [m for m in inbox if not m["is_read"]]
        chosen = unread if unread_only else inbox
        limit = max(1, min(limit, MAX_LIMIT))
        return {"messages": [_summary(m) for m in chosen[::-1][:limit]], "total": len(inbox),
                "unread_count": len(unread)}

    @tool(errors=("missing_search_criteria", "label_not_found", "invalid_date", "invalid_date_range"))
    def search_messages(
        self,
        sender: Optional[str] = None,
        subject_keyword: Optional[str] = None,
        label: Optional[str] = None,
        since: Optional[str] = None,
        until: Optional[str] = None,
        folder: Optional[Folder] = None,
        limit: int = 10,
    ) -> SearchResult:
        """Search messages by sender, subject keyword, label, date range or folder; all given filters must match.

        Without a folder, every folder except trash is searched.

        Args:
            sender: Sender name or address, or part of it, such as "Dana" or "billing@northwind.com".
            subject_keyword: A word or phrase the subject contains (case-insensitive).
            label: A label the message carries, such as "Travel".
            since: Only messages sent on or after this date (YYYY-MM-DD).
            until: Only messages sent on or before this date (YYYY-MM-DD).
            folder: Only search this folder.
            limit: Maximum number of messages to return (1-50).
        """
        if not any(v for v in (sender, subject_keyword, label, since, until, folder)):
            raise ToolError("missing_search_criteria", "Give at least one of sender, subject keyword, label, date or folder.")
        label_name = self._label_names([label])[0] if label else None
        for value in (since, until):
            if value:
                try:
                    if not _DATE.match(value):
                        raise ValueError(value)
                    date.fromisoformat(value)
                except ValueError:
                    raise ToolError("invalid_date", f"{value!r} is not a date in YYYY-MM-DD form.") from None
        if since and until and since > until:
            raise ToolError("invalid_date_range", f"The start date {since} is after the end date {until}.")
        who = (sender or "").strip().lower()
        keyword = (subject_keyword or "").strip().lower()
        # narrow with an index where one applies (exact sender address, folder); otherwise scan
        candidates = self.state.find("messages", from_email=who) if "@" in who else []
        if not candidates:
            candidates = (self.state.find("messages", folder=folder) if folder
                          else [m for _, m in self.state.records("messages")])
        hits = [
            m for m in candidates
            if (m["folder"] == folder if folder else m["folder"] != "trash")
            and (not who or who in m["from_email"] or who in m["from_name"].lower())
            and (not keyword or keyword in m["subject"].lower())
            and (not label_name or label_name in m["labels"])
            and (not since or m["date"] >= since)
            and (not until or m["date"] <= until)
        ]
        limit = max(1, min(limit, MAX_LIMIT))
        return {"messages": [_summary(m) for m in _newest_first(hits)[:limit]], "total_matches": len(hits)}

    @tool(errors=("message_not_found",))
    def get_message(self, message_id: str) -> MessageDetails:
        """Open a message: full text, recipients, attachments, labels and the rest of its conversation.

        Args:
            message_id: The message's id, such as 18d4f2a9c4b7e012.
        """
        m = self._message(message_id)
        thread = sorted(self.state.find("messages", thread_id=m["thread_id"]), key=lambda t: (t["sent_at"], t["message_id"]))
        return {
            "message_id": message_id, "thread_id": m["thread_id"], "folder": m["folder"],
            "from_name": m["from_name"], "from_email": m["from_email"], "to_addresses": list(m["to"]),
            "cc_addresses": list(m["cc"]), "subject": m["subject"], "body": m["body"], "sent_at": m["sent_at"],
            "date": m["date"], "labels": list(m["labels"]), "is_read": m["is_read"],
            "attachments": [dict(a) for a in m["attachments"]], "attachment_count": len(m["attachments"]),
            "size_kb": m["size_kb"], "in_reply_to": m["in_reply_to"] or "",
            "thread": [{"message_id": t["message_id"], "from_name": t["from_name"], "from_email": t["from_email"],
                        "subject": t["subject"], "sent_at": t["sent_at"], "date": t["date"], "folder": t["folder"],
                        "snippet": _snippet(t["body"])} for t in thread],
        }

    # -- writes ----------------------------------------------------------------------------------
    @tool(writes=True, errors=("no_recipients", "invalid_recipient", "empty_message"))
    def send_email(self, to: list[Email], subject: str, body: str, cc: Optional[list[str]] = None) -> SentMessage:
        """Send a new email from the user's address; it starts a new conversation.

        Args:
            to: Recipient email addresses.
            subject: Subject line.
            body: The message text.
            cc: Addresses to copy.
        """
        recipients, copied = self._addresses(to), self._addresses(cc)
        if not recipients:
            raise ToolError("no_recipients", "Name at least one recipient in the To line.")
        if not subject.strip() and not body.strip():
            raise ToolError("empty_message", "An email needs a subject or a body; both are empty.")
        record = self._new_message({"to": recipients, "cc": [a for a in copied if a not in recipients],
                                    "subject": subject.strip(), "body": body})
        return self._sent(record)

    @tool(writes=True, errors=("message_not_found", "message_is_draft", "empty_message", "invalid_recipient"))
    def reply_to_message(self, message_id: str, body: str, cc: Optional[list[str]] = None) -> SentMessage:
        """Reply to a message in its conversation. The reply goes to the sender, or to the original recipients
        when the user wrote the message.

        Args:
            message_id: The message to answer.
            body: The reply text.
            cc: Addresses to copy on the reply.
        """
        original = self._sendable(message_id)
        if not body.strip():
            raise ToolError("empty_message", "A reply needs a body.")
        copied = self._addresses(cc)
        own = original["from_email"] == self._owner()["email"]
        recipients = list(original["to"]) if own else [original["from_email"]]
        record = self._new_message({
            "thread_id": original["thread_id"], "in_reply_to": message_id, "to": recipients,
            "cc": [a for a in copied if a not in recipients], "subject": _prefixed("Re:", original["subject"]),
            "body": body,
        })
        return self._sent(record)

    @tool(writes=True, errors=("message_not_found", "message_is_draft", "no_recipients", "invalid_recipient"))
    def forward_message(self, message_id: str, to: list[Email], note: str = "") -> SentMessage:
        """Forward a message, with its attachments, to other people, optionally with a note on top.

        Args:
            message_id: The message to forward.
            to: Recipient email addresses.
            note: A short note to put above the forwarded message.
        """
        original = self._sendable(message_id)
        recipients = self._addresses(to)
        if not recipients:
            raise ToolError("no_recipients", "Name at least one recipient to forward to.")
        quoted = (f"---------- Forwarded message ---------\nFrom: {original['from_name']} <{original['from_email']}>\n"
                  f"Date: {original['sent_at']}\nSubject: {original['subject']}\n\n{original['body']}")
        record = self._new_message({
            "thread_id": original["thread_id"], "to": recipients, "subject": _prefixed("Fwd:", original["subject"]),
            "body": f"{note.strip()}\n\n{quoted}" if note.strip() else quoted,
            "attachments": [dict(a) for a in original["attachments"]],
        })
        return self._sent(record)

    @tool(writes=True, errors=("message_not_found", "label_not_found", "no_label_changes", "conflicting_labels",
                               "label_not_on_message"))
    def update_labels(
        self, message_id: str, add_labels: Optional[list[str]] = None, remove_labels: Optional[list[str]] = None
    ) -> LabelResult:
        """Add labels to and/or remove labels from a message. Labels must already exist in the mailbox.

        Args:
            message_id: The message to label.
            add_labels: Names of labels to add, such as ["Travel"].
            remove_labels: Names of labels to remove; each must be on the message.
        """
        self._message(message_id)
        if not add_labels and not remove_labels:
            raise ToolError("no_label_changes", "Name at least one label to add or remove.")
        adding, removing = self._label_names(add_labels or []), self._label_names(remove_labels or [])
        both = sorted(set(adding) & set(removing))
        if both:
            raise ToolError("conflicting_labels", f"{', '.join(both)} cannot be added and removed at once; name it once.")
        absent = [n for n in removing if n not in self.state.get("messages", message_id)["labels"]]
        if absent:  # "Clients instead of Travel" on a message that was never Travel: the request is mistaken
            raise ToolError("label_not_on_message", f"Message {message_id} is not labelled {', '.join(absent)}; "
                                                    "it cannot be removed.")
        message = self.state.edit("messages", message_id)
        added = [n for n in adding if n not in message["labels"] and n not in removing]
        removed = list(removing)
        message["labels"] = [n for n in message["labels"] if n not in removed] + added
        return {"message_id": message_id, "subject": message["subject"], "labels": list(message["labels"]),
                "added": added, "removed": removed}

    @tool(writes=True, errors=("message_not_found", "not_in_inbox"))
    def archive_message(self, message_id: str) -> MoveResult:
        """Archive an inbox message: it leaves the inbox but stays searchable.

        Args:
            message_id: The message to archive.
        """
        folder = self._message(message_id)["folder"]
        if folder != "inbox":
            raise ToolError("not_in_inbox", f"Only inbox messages can be archived; message {message_id} is in {folder}.")
        return self._move(message_id, "archive")

    @tool(writes=True, errors=("message_not_found", "already_deleted"))
    def delete_message(self, message_id: str) -> MoveResult:
        """Delete a message by moving it to the trash.

        Args:
            message_id: The message to delete.
        """
        if self._message(message_id)["folder"] == "trash":
            raise ToolError("already_deleted", f"Message {message_id} is already in the trash.")
        return self._move(message_id, "trash")

    @tool(writes=True, errors=("invalid_recipient", "empty_message"))
    def create_draft(self, to: list[Email], subject: str, body: str, cc: Optional[list[str]] = None) -> DraftResult:
        """Save an email as a draft without sending it.

        Args:
            to: Recipient email addresses; may be empty for now.
            subject: Subject line.
            body: The draft text.
            cc: Addresses to copy.
        """
        recipients, copied = self._addresses(to), self._addresses(cc)
        if not subject.strip() and not body.strip():
            raise ToolError("empty_message", "A draft needs a subject or a body; both are empty.")
        record = self._new_message({"folder": "drafts", "to": recipients,
                                    "cc": [a for a in copied if a not in recipients],
                                    "subject": subject.strip(), "body": body})
        return {"message_id": record["message_id"], "status": "draft", "folder": "drafts",
                "to_addresses": list(record["to"]), "cc_addresses": list(record["cc"]), "subject": record["subject"],
                "body": record["body"], "saved_at": record["sent_at"]}
