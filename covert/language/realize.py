"""Turning bound intents into a user query and a final answer (template realization)."""

from __future__ import annotations

import random
import re
import string
from functools import cache
from typing import Any

from covert.language.values import ends_sentence, single_stops

# Openings and closings by register: most queries have none; customers of a business write a little more
# formally than colleagues on a work chat, and people talking to their home hub are the most casual.
OPENINGS = {
    "customer": ("Hello,", "Hi,", "Hi there,", "Good morning.", "Good afternoon.", "Good evening.", "Hello there.",
                 "Hi, I hope you can help.", "Hello, quick question.", "Hi, I need some help.", "Hey,",
                 "Hello! I'm hoping you can help me.", "Hi again,", "Good morning,", "Hello again.",
                 "Hi, thanks for getting back to me.", "Excuse me,", "Hi, sorry to bother you."),
    "work": ("Hi,", "Hey,", "Hey!", "Morning!", "Morning,", "Hi there,", "Quick one:", "Quick question:", "Hello,",
             "Hey, quick one.", "Hi, hope your day's going well.", "Afternoon,", "Sorry, another one:", "hi,", "hey,",
             "Hi! Can you help with something?", "Hello team,", "Got a sec?"),
    "casual": ("hey,", "Hey!", "hi,", "Hi!", "Hey there,", "Morning!", "Evening!", "Yo,", "Hiya,", "ok so",
               "Hey, quick thing.", "Hello!", "Okay,", "Right,", "So,"),
    # people asking an assistant to work an API for them: to the point
    "developer": ("Hi,", "Hey,", "Quick one:", "Quick question:", "ok,", "So,"),
}
CLOSINGS_BY_REGISTER = {
    "customer": ("Thanks!", "Thank you.", "Thanks in advance.", "Thank you very much.", "Many thanks.",
                 "Thanks for your help.", "I appreciate it.", "Much appreciated.", "Thanks so much!",
                 "Thank you for your help.", "Please let me know.", "Looking forward to your reply.",
                 "That's all for now.", "Thanks a lot.", "Thank you kindly.", "Grateful for any help."),
    "work": ("Thanks!", "thanks", "Thanks.", "Cheers.", "Cheers!", "ty!", "Thx.", "Appreciate it.",
             "Thanks a bunch.", "That's it.", "Thanks so much.", "Much appreciated!", "Many thanks.",
             "Let me know if you need anything else.", "Thanks, you're a star."),
    "casual": ("thanks!", "Thanks!", "thx", "ty", "Cheers!", "Ta.", "Thanks a ton.", "Nice one, thanks.",
               "That's all.", "Thanks :)", "Appreciate it!", "cheers"),
    "developer": ("Thanks.", "thx", "Cheers.", "Thanks!"),
}
REGISTERS = {"airline": "customer", "banking": "customer", "hotels": "customer", "retail": "customer",
             "calendar": "work", "helpdesk": "work", "messaging": "work", "smart_home": "casual"}
# how often a query of a register opens with a greeting and ends with a closer
# (real users' requests to assistants carry a politeness formula in well under a fifth of queries)
FREQUENCY = {"customer": (0.08, 0.06), "work": (0.07, 0.05), "casual": (0.08, 0.05),
             "developer": (0.06, 0.05)}
GREETINGS = ("", *sorted({g for group in OPENINGS.values() for g in group}))
CLOSINGS = ("", *sorted({c for group in CLOSINGS_BY_REGISTER.values() for c in group}))
CONNECTORS = ("Also, ", "And ", "After that, ", "Then ", "Once that's done, ", "On top of that, ", "Plus, ",
              "While you're at it, ", "And then ", "Separately, ", "One more thing: ", "Oh, and ", "Next, ",
              "As well as that, ", "Besides that, ", "Another thing: ", "And one more: ", "Alongside that, ",
              "Oh, also, ", "Next up: ", "At the same time, ", "In addition, ", "Then, ", "Another question: ",
              "Unrelated, but ", "Also, quickly: ", "Before I forget, ", "Something else: ", "Apart from that, ")
QUESTION_STARTS = ("what", "which", "when", "where", "who", "how", "can", "could", "would", "will", "is", "are",
                   "do", "does", "did", "has", "have", "should")
# how a user says which record they mean, when the request itself does not
SELECTION_CONTEXTS = ("I'm asking about {phrase}", "I'm talking about {phrase}", "this is for {phrase}",
                      "I'm thinking of {phrase}", "it's {phrase}", "I'm after {phrase}", "it's for {phrase}",
                      "I have {phrase} in mind", "the one I need is {phrase}", "I'm on about {phrase}",
                      "this has to do with {phrase}", "I'm dealing with {phrase}", "my question is about {phrase}",
                      "I'm looking at {phrase}", "I'm sorting out {phrase}", "it relates to {phrase}",
                      "it's {phrase} I'm after")
# the same said as a clarification: only after the request it clarifies
CLARIFICATIONS = ("it's {phrase} I mean", "the one I mean is {phrase}", "I mean {phrase}", "to be clear, {phrase}",
                  "specifically {phrase}", "that's {phrase}", "{phrase}, I mean", "as in {phrase}",
                  "I'm referring to {phrase}", "{phrase}, to be precise", "I should say {phrase}",
                  "{phrase}, that is", "the one in question is {phrase}", "I'm thinking of {phrase} here",
                  "{phrase} is the one")
# a count of the records listed with one record ("the emails with my contact at ...")
RECORD_COUNT_ASKS = ("how many {plural} does {record} have?", "how many {plural} are there for {record}?",
                     "what's the number of {plural} for {record}?", "can you count the {plural} for {record}?",
                     "what's the {plural} count for {record}?", "I need a count of the {plural} for {record}")
# a count of the user's own records (their bookings, their inbox) may say so
OWN_COUNT_ASKS = ("how many {plural} do I have?", "do you know how many {plural} I have?", "count my {plural} for me?",
                  "how many {plural} have I got?")
AGGREGATE_ASKS = {
    "sum": ("what's the total {field} across {items}?", "{whats} the combined {field} for {items}?",
            "can you add up the {field} of {items} for me?", "{whats} the {field} for {items} all told?",
            "if you add up {items}, what's the total {field}?", "in total, {whats} the {field} for {items}?",
            "add up the {field} for {items}", "sum up the {field} across {items}",
            "what's the sum of the {field} for {items}?", "{whats} the {field} for {items} combined?"),
    "count": ("can you tell me how many {plural} there are?", "how many {plural} are there?",
              "what's the number of {plural}?", "how many {plural} is that?", "how many {plural} come up?",
              "count the {plural} for me", "what's the count of {plural}?", "how many {plural} show up?"),
    "max": ("which of {items} has the highest {field}?", "which one of {items} has the largest {field}?",
            "out of {items}, which has the highest {field}?", "of {items}, which one has the highest {field}?",
            "what's the one with the highest {field} among {items}?", "among {items}, which has the biggest {field}?",
            "find the one among {items} with the highest {field}", "of {items}, which one's {field} is highest?"),
    "min": ("which of {items} has the lowest {field}?", "which one of {items} has the smallest {field}?",
            "out of {items}, which has the lowest {field}?", "among {items}, which one has the lowest {field}?",
            "what's the one with the lowest {field} among {items}?", "find the one among {items} with the lowest {field}",
            "of {items}, which one's {field} is lowest?", "which of {items} comes in lowest on {field}?"),
}


@cache
def _parsed(template: str) -> tuple[tuple[str, str | None], ...]:
    return tuple((literal, name or None) for literal, name, _, _ in string.Formatter().parse(template))


@cache
def slots(template: str) -> frozenset[str]:
    """The ``{slot}`` names of a template."""
    return frozenset(name for _, name in _parsed(template) if name)


# a phrase that carries its own qualifier ("my contact at Northwind", "the passenger born on May 2", "the job
# whose output path is s3://logs/") takes no possessive: "the job title of my contact at Northwind", never
# "my contact at Northwind's job title" or "the job whose output path is s3://logs/'s completion date"
_QUALIFIED = re.compile(r"\s(?:at|from|in|on|with|born|of|for|about|whose|that|which|where|is|are|has|named|called)\s",
                        re.IGNORECASE)
_POSSESSED = re.compile(r"^'s ((?:(?!(?:on|in|at|for|from|to|is|are|and|or|under|within|of|by|with|across|inside|"
                        r"during|since|before|after|over|the|a|an|my|our|that|which|whose|per|as|into|than|via)\b)"
                        r"[A-Za-z-]+ ?)+?)(?=[\s?.,;:!]|$)")


_PLAIN_WORD = re.compile(r"[a-z]+(?=[\s,;:]|$)")  # a value's first word in lower case, not an id or address


def fill(template: str, values: dict[str, str]) -> str:
    """Fill a template's slots (dotted slot names allowed); a qualified phrase before ``'s`` is turned
    round ("{contact}'s number" -> "the number of my contact at Northwind"), and a value that opens a
    sentence starts with a capital ("Economy, on my Visa")."""
    if "'s" not in template and "." not in template and "? {" not in template and "! {" not in template:
        # nothing to turn round, no stop to drop, no value opening a sentence: the plain fill
        return "".join(literal + (values[name] if name else "") for literal, name in _parsed(template))
    out: list[str] = []
    pending = ""
    for literal, name in _parsed(template):
        if literal.startswith(".") and (pending or (out[-1] if out else "")).endswith(("?", "!", ".")):
            literal = literal[1:]  # 'Subject: Lunch next week?. Text: ...' -> 'Subject: Lunch next week? Text: ...'
        if pending:
            possessed = _POSSESSED.match(literal)
            if possessed:
                out.append(f"the {possessed.group(1)} of {pending}")
                literal = literal[possessed.end():]
            else:
                out.append(pending)
            pending = ""
        out.append(literal)
        if name:
            value = values[name]
            if literal.endswith((". ", "? ", "! ")) and _PLAIN_WORD.match(value):
                value = value[0].upper() + value[1:]  # "... for Liam? Economy, on my Visa", not "? economy"
            if _QUALIFIED.search(value):
                pending = value
            else:
                out.append(value)
    out.append(pending)
    return "".join(out)


def sentence(text: str) -> str:
    """Capitalise the first letter and end with fitting punctuation (a quoted sentence takes no second stop)."""
    text = single_stops(text.strip())
    if not text:
        return text
    if "@" not in text.split(" ", 1)[0]:  # an email address is written as it is, even first
        text = text[0].upper() + text[1:]
    if not ends_sentence(text):
        last = text.replace("? ", ". ").replace("! ", ". ").rsplit(". ", 1)[-1]
        first = last.split(" ", 1)[0].lower().strip(",")
        text += "?" if first in QUESTION_STARTS else "."
    return text


def keeps_capital(text: str) -> bool:
    """Whether a sentence keeps its capital after "Hi,": it starts with "I", a name or an id."""
    first = text.split(" ", 1)[0]
    return first == "I" or first.startswith(("I'", "I’")) or (len(first) > 1 and not first[1:].islower())


def register_of(builder: Any) -> str:
    """How a builder's users write: its language's register, else the one named for it, else "customer"."""
    return getattr(builder.language, "register", "") or REGISTERS.get(builder.name, "customer")


def pleasantries(rng: random.Random, register: str = "customer") -> tuple[str, str]:
    """An opening and a closing for one query of ``register`` (each usually empty)."""
    register = register if register in OPENINGS else "customer"
    p_open, p_close = FREQUENCY[register]
    opening = rng.choice(OPENINGS[register]) if rng.random() < p_open else ""
    closing = rng.choice(CLOSINGS_BY_REGISTER[register]) if rng.random() < p_close else ""
    return opening, closing


ANAPHORS = ("that {noun}", "the same {noun}", "that {noun}", "it")
_PARTICLE_END = re.compile(r"\b(?:up|off|out|on|in|down|back|over|about|of|to)\s$")
_DETERMINER_END = re.compile(r"\b(?:the|that|this|a|an)\s$", re.IGNORECASE)  # a back-reference brings its own


def refer_back(parts: list[str], repeats: dict[str, str], rng: random.Random) -> list[str]:
    """Parts in which a phrase said in an earlier part ("booking WS3MHA9K") becomes a back-reference
    ("that booking"): people do not hand the same thing over twice."""
    said: set[str] = set()
    out = []
    longest_first = sorted(repeats.items(), key=lambda kv: -len(kv[0]))
    for part in parts:
        for phrase, noun in longest_first:
            if phrase in said and phrase in part:
                start = part.find(phrase)
                said_again = _said_again(part, start, phrase)
                if said_again is not None:  # "... at 14:30? zara@... here." said earlier: the sentence goes
                    part = said_again
                    continue
                anaphor = rng.choice(ANAPHORS).format(noun=noun)
                # "it" only as a plain object: not first, not after a particle ("picked up it"), not in a list,
                # not opening what a colon introduces ("named Holiday Mode: it at 08:45")
                if anaphor == "it" and (start == 0 or _PARTICLE_END.search(part, 0, start)
                                        or part.startswith(" and ", start + len(phrase))
                                        or part[:start].endswith(("and ", "with ", "for ", ": "))):
                    anaphor = "that " + noun
                determiner = _DETERMINER_END.search(part, 0, start)
                if determiner is not None:  # "for the project X" said again: "for the same project", not "the the"
                    part, start = part[:determiner.start()] + part[start:], determiner.start()
                    if determiner.group(0)[0].isupper():  # "... . The project X" opened a sentence
                        anaphor = anaphor[0].upper() + anaphor[1:]
                part = part[:start] + anaphor + part[start + len(phrase):]
                part = part[0].upper() + part[1:] if start == 0 else part
        said.update(p for p in repeats if p in part)
        out.append(part)
    return out


_SENTENCE_END = re.compile(r"[.?!](?:\s|$)")


def _said_again(part: str, start: int, phrase: str) -> str | None:
    """``part`` without the sentence that opens with ``phrase`` and says little else ("zara@example.com
    here." said a second time; possibly nothing is left), or ``None`` when the phrase does not open such a
    sentence (it becomes a back-reference: "it here" would be no sentence)."""
    if start and not re.search(r"[.?!]\s+$", part[:start]):
        return None
    end = _SENTENCE_END.search(part, start + len(phrase))
    stop = end.end() if end else len(part)
    if len(part[start + len(phrase):stop].split()) > 4:
        return None
    return (part[:start] + part[stop:]).strip()


_PLURAL_AUX = {"has": "have", "is": "are", "does": "do", "was": "were", "needs": "need", "stands": "stand"}


_PLURAL_HEAD = re.compile(r"^(?:the|my|our) (?:[a-z]+ )?([a-z]{3,}s)$")
_SINGULAR_S = ("ss", "us", "is", "os", "ics", "news", "series", "status", "gas", "lens")


def plural_phrase(phrase: str) -> bool:
    """Whether a noun phrase takes a plural verb: several joined records ("#A and #B") or a short
    phrase whose head is a plural noun ("the blinds", "my smart plugs")."""
    if " and " in phrase:
        return True
    match = _PLURAL_HEAD.match(phrase)
    return bool(match) and _plural_word(match.group(1))


# words after a noun that say what its amount is (``rooms left``, ``energy used``): the noun leads
_AFTER_NOUN = frozenset(("left", "used", "paid", "due", "remaining", "spent", "redeemed", "earned", "owed"))


def plural_noun(phrase: str) -> bool:
    """Whether a field noun takes a plural verb: its head word is a plural ("points", "rooms left",
    "booked minutes"; not "number of devices", "order total", "status")."""
    words = phrase.split(" of ")[0].split()
    if not words:
        return False
    return _plural_word(words[0] if len(words) > 1 and words[-1] in _AFTER_NOUN else words[-1])


def _plural_word(word: str) -> bool:
    return word.endswith("s") and not word.endswith(_SINGULAR_S)


# "whoever has #A and #B": the subject is "whoever", not the records
_AUX_BEFORE = re.compile(r"(?<!\bwho )(?<!\bwhoever )(?<!\bwhat )(?<!\bwhich )(?<!\bthat )\b(has|is|does|was) $",
                         re.IGNORECASE)
_AUX_AFTER = re.compile(r" (needs|stands|has|is|was|does)\b")


def _verb_spans(ask: str, subject: str) -> list[tuple[int, int]]:
    """Where the verb of ``subject`` stands in ``ask``: the first auxiliary right before it (any case) and
    the first verb right after it; the spans of the verbs, in order."""
    if ask.isascii() and subject.isascii():
        folded, wanted = ask.lower(), subject.lower()
        starts = []
        at = folded.find(wanted)
        while at != -1:
            starts.append(at)
            at = folded.find(wanted, at + 1)
    else:  # non-ASCII: the regex engine's own case folding
        starts = [m.start() for m in re.finditer(f"(?={re.escape(subject)})", ask, re.IGNORECASE)]
    spans: list[tuple[int, int]] = []
    before = next((m.span(1) for at in starts if (m := _AUX_BEFORE.search(ask, 0, at))), None)
    if before:
        spans.append(before)
    exact = ask.find(subject)
    after = _AUX_AFTER.match(ask, exact + len(subject)) if exact != -1 else None
    if after:
        spans.append(after.span(1))
    return sorted(spans)


def plural_subject(ask: str, subjects: list[str]) -> str:
    """An ask whose subject is plural takes a plural verb: "has #A and #B gone through" -> "have #A and
    #B ...", "when does Kwame and Grace work" -> "when do ...", "what firmware is the blinds running"
    -> "... are the blinds ..."; only where the auxiliary
    stands right before one of ``subjects`` (the joined phrases), so "what was the total on #A and #B"
    keeps its singular."""
    for subject in subjects:
        if not plural_phrase(subject):
            continue
        for start, end in reversed(_verb_spans(ask, subject)):  # from the end: the spans stay put
            verb = ask[start:end]
            plural = _PLURAL_AUX[verb.lower()]
            ask = ask[:start] + (plural.capitalize() if verb[0].isupper() else plural) + ask[end:]
    return ask


_PLEASE_START = re.compile(r"^(?:please|kindly),? (?=[a-z])", re.IGNORECASE)
_PLEASE_INSIDE = re.compile(r"\b(can you|could you|would you|will you) please\b|,? please(?=[.?!]?$)", re.IGNORECASE)
PLEASE_KEPT = 0.3  # the share of a template's "please" a query keeps: real users write it far less often


def fewer_pleases(part: str, rng: random.Random) -> str:
    """A sentence with its "please" dropped most of the time ("Please cancel X" -> "Cancel X", "can you
    please check" -> "can you check"); the draw is made only where there is one."""
    low = part.lower()
    if "please" not in low and "kindly" not in low:
        return part
    if rng.random() < PLEASE_KEPT:
        return part
    out = _PLEASE_INSIDE.sub(lambda m: m.group(1) or "", part)
    match = _PLEASE_START.match(out)
    if match:
        rest = out[match.end():]
        out = rest[:1].upper() + rest[1:]
    return out


# How people put one request. A template says it one way ("can you pull up my profile?", "cancel
# booking X"); a person may ask it as a question, say it flat out, or say what they need. Each frame keeps
# the request's own verb phrase, so nothing is added to what is asked; none carries a courtesy word.
QUESTION_FRAMES = ("{vp}.", "{vp}.", "{vp}.", "{vp}.", "could you {vp}?", "would you {vp}?", "I need you to {vp}.",
                   "any chance you could {vp}?", "are you able to {vp}?", "see if you can {vp}.",
                   "I was hoping you could {vp}.", "{vp} when you get a chance.")
ORDER_FRAMES = ("can you {vp}?", "could you {vp}?", "would you {vp}?", "go ahead and {vp}.", "can you {vp} now?",
                "I'd like you to {vp}.", "I want you to {vp}.")
WANT_FRAMES = ("I'd like to {vp}", "I want to {vp}", "I need to {vp}", "I'm looking to {vp}", "I'm trying to {vp}",
               "I'd like to {vp}")
REFRAMED = 0.65  # the share of requests said in another frame than their template's
# verbs a request opens with when it is an order ("cancel booking X", "turn on the lamp")
ORDER_VERBS = frozenset((
    "add", "answer", "apply", "archive", "assign", "book", "bump", "cancel", "change", "close", "create", "decline",
    "delete", "draft", "email", "escalate", "file", "find", "flag", "forward", "get", "give", "knock", "label", "lock",
    "log", "look", "mark", "message", "move", "open", "pass", "pay", "push", "put", "raise", "refund", "remove",
    "reply", "reschedule", "reserve", "resolve", "rsvp", "run", "schedule", "send", "set", "ship", "show", "start",
    "switch", "tell", "transfer", "turn", "unfreeze", "freeze", "unlock", "update", "write", "list", "check",
    "upgrade", "downgrade", "replace", "report", "request", "return", "exchange", "invite", "accept", "submit",
))
_QUESTION_REQUEST = re.compile(r"^(?:can|could) you (?:please )?(?P<vp>[a-z][^?]*)\?(?P<rest>(?:\s.*)?)$",
                               re.IGNORECASE | re.DOTALL)
_WANT = re.compile(r"^I'd like to (?P<vp>[a-z].*)$", re.DOTALL)
_CLAUSE_MARK = re.compile(r"[,;—–!?]|:(?!\d)| - |\. ")  # a clause ends; "10:00" is no colon


def vary_request(ask: str, rng: random.Random) -> str:
    """``ask`` in another frame some of the time: "can you X?" as "could you X?", "X." or "I need you to
    X."; an order "cancel X" as "can you cancel X?"; "I'd like to X" as "I want to X". The words of the
    request itself stay as written; one draw is made for every ask."""
    roll = rng.random()
    if roll >= REFRAMED:
        return ask
    match = _QUESTION_REQUEST.match(ask)
    if match:
        vp = match.group("vp").strip()
        framed = QUESTION_FRAMES[int(roll / REFRAMED * len(QUESTION_FRAMES))].format(vp=vp)
        return framed + match.group("rest")
    want = _WANT.match(ask)
    if want:
        return WANT_FRAMES[int(roll / REFRAMED * len(WANT_FRAMES))].format(vp=want.group("vp"))
    first = ask.split(" ", 1)[0].lower()
    if first == "please":
        ask = ask.split(" ", 1)[1] if " " in ask else ask
        first = ask.split(" ", 1)[0].lower()
    # an order of one clause ("delete my Night Owl routine"), not one that runs on ("remove X, I don't ...")
    if first in ORDER_VERBS and not _CLAUSE_MARK.search(ask.rstrip(".")):
        vp = ask.rstrip(".")
        frame = ORDER_FRAMES[int(roll / REFRAMED * len(ORDER_FRAMES))]
        if frame.endswith(" now?") and vp.endswith(("now", "today", "tonight")):
            frame = "can you {vp}?"
        return frame.format(vp=vp[:1].lower() + vp[1:] if vp[1:2].islower() else vp)
    return ask


_REFERS_BACK = re.compile(r"(?:their|his|her|its|it's|it is|they're|they are)\b", re.IGNORECASE)


def compose_query(rng: random.Random, contexts: list[str], asks: list[str], register: str = "customer",
                  repeats: dict[str, str] | None = None, trailing: list[str] | None = None) -> str:
    """A user message: optional greeting, the context the user hands over, the requests, optional thanks.
    ``register`` (customer, work or casual) sets which openings and closings fit and how often;
    ``repeats`` maps phrases that name a record to its noun, so a second mention refers back;
    ``trailing`` are clarifications ("I mean ..."), said after the requests."""
    connectors = rng.sample(CONNECTORS, min(len(CONNECTORS), max(0, len(asks) - 1)))
    ask_sentences = [sentence(asks[0])] + [sentence(c + a) for c, a in zip(connectors, asks[1:], strict=False)]
    # "their name is X" names what a request refers to: it follows the request, it cannot open the message
    context_sentences = [sentence(c) for c in contexts if not _REFERS_BACK.match(c)]
    parts = context_sentences + ask_sentences if rng.random() < 0.75 else ask_sentences + context_sentences
    parts += [sentence(c) for c in contexts if _REFERS_BACK.match(c)] + [sentence(t) for t in trailing or ()]
    if repeats:
        parts = [p for p in refer_back(parts, repeats, rng) if p]
    parts = [fewer_pleases(p, rng) for p in parts]
    greeting, closing = pleasantries(rng, register)
    # after "Hi," or "ok so" the sentence runs on; after "Good morning." or "Hey!" a new one starts
    if greeting and not ends_sentence(greeting) and parts and not keeps_capital(parts[0]):
        parts[0] = parts[0][0].lower() + parts[0][1:]
    return " ".join(p for p in (greeting, *parts, closing) if p)
