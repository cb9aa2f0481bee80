"""What the assistant says in a scripted conversation: how it asks for a detail, asks which record is
meant, confirms a change before making it, and answers a user who asks what else a change touches
(used by :mod:`covert.conversation.dialogue` and by the ambiguous-query augmentation)."""

from __future__ import annotations

ASK_TEMPLATES = ("What {label} should I use?", "Happy to help. Could you tell me the {label}?",
                 "Sure. To look that up, what {label} should I use?", "I can do that. What's the {label}?",
                 "Could you give me the {label} first?")
WHICH_TEMPLATES = ("Which {label} do you mean?", "Could you tell me which {label} this is about?",
                   "Sure, which {label} is it?")
# (the restated change, the question): the change ends its own sentence ("... my desk." keeps its one stop)
CONFIRM_TEMPLATES = (("Just to confirm before I make the change: I'll {action}", "Shall I go ahead?"),
                     ("I'm about to {action}", "Do you want me to proceed?"),
                     ("To confirm, I'll {action}", "Shall I go ahead?"),
                     ("Here's what I'll do: {action}", "Should I proceed?"))
# a user who checks the scope of a change before agreeing, and the assistant's answer from what the turn does
ASK_BACK = ("Wait, will anything else change?", "Before you do that: is that the only change?",
            "Hmm, does that touch anything else?", "Just to check, nothing else changes, right?",
            "Is that all you'll change?")
ASK_BACK_ANSWERS = (("Only that: I'll {action}, nothing more in this step.", "Okay to go ahead?"),
                    ("Right, this step does just one thing: {action}.", "Shall I?"),
                    ("Nothing else in this step. I'll only {action}.", "Should I go ahead?"))
