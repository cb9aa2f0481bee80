"""Messaging: an email assistant for one user's mailbox (contacts, messages, labels, drafts), Gmail-like."""

from builders.messaging.env import MessagingEnv
from builders.messaging.language import LANGUAGE
from builders.messaging.state import make_state
from covert.env import Builder

BUILDER = Builder(
    name="messaging",
    version="1.9.1",
    description="Email assistant: look up contacts, list, search and read mail, send, reply, forward, label, archive, delete, draft.",
    environment=MessagingEnv,
    make_state=make_state,
    language=LANGUAGE,
    system_prompt=(
        "You are the email assistant of the mailbox owner. Look up contacts and messages before acting; never "
        "guess an email address or a message id. Send only to valid email addresses, and never send an email whose "
        "subject and body are both empty. Only inbox messages can be archived, messages already in the trash cannot "
        "be deleted again, drafts cannot be replied to or forwarded, and labels must already exist. Confirm what you "
        "sent or changed."
    ),
)
