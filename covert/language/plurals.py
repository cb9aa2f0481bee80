"""English plurals, the one implementation: the hand-written domains' counts ("3 events"), the answers'
field nouns and the imported APIs' table and resource names all use these rules.

Both functions change the last word of a phrase only ("open ticket" -> "open tickets"); a word they
do not know follows the common rules. Nouns with no plural of their own ("metadata", "info") and
Latin and irregular plurals are listed.
"""

from __future__ import annotations

_IRREGULAR = {"person": "people", "child": "children"}
_IRREGULAR_SINGULAR = {many: one for one, many in _IRREGULAR.items()}
# plurals of abbreviations, shorter than the length below which a word is left as it is
_SHORT_PLURALS = frozenset(("vms", "ips", "ids", "dbs", "cas", "lbs", "arns", "apis"))
_US_PLURALS = ("statuses", "buses", "campuses", "viruses", "bonuses", "censuses", "corpuses", "prospectuses",
               "syllabuses", "aliases", "biases", "canvases", "atlases", "gases")
_LATIN_PLURALS = {"matrices": "matrix", "vertices": "vertex", "indices": "index", "appendices": "appendix"}
# an f that becomes v ("bookshelves" -> "bookshelf", never "bookshelve"); only endings no other word shares
_F_PLURALS = {"shelves": "shelf", "halves": "half", "wolves": "wolf", "calves": "calf", "selves": "self",
              "knives": "knife", "wives": "wife"}
# nouns with no plural of their own ("billing info", "metadata") and acronyms that are no nouns ("aws")
UNCOUNTABLE = frozenset(("info", "information", "data", "metadata", "aws", "gcp", "equipment", "software", "hardware",
                         "feedback", "evidence", "media", "news", "series", "species", "settings", "analytics",
                         "access", "traffic", "storage", "compliance", "inventory", "staff",
                         "personnel", "advice", "research", "knowledge", "weather", "music", "firmware", "middleware"))


def _last_word(phrase: str) -> tuple[str, str]:
    """``phrase`` split into everything before its last word and that word."""
    last = phrase.rsplit(" ", 1)[-1]
    return phrase[: len(phrase) - len(last)], last


def plural(noun: str) -> str:
    """The plural of an English noun or noun phrase ("analysis" -> "analyses", "person" -> "people",
    "info" stays "info", "open ticket" -> "open tickets")."""
    head, word = _last_word(noun)
    return head + _plural_word(word)


def _plural_word(word: str) -> str:
    if word in _IRREGULAR:
        return _IRREGULAR[word]
    if word in UNCOUNTABLE or word.endswith(("data", "ware")):
        return word
    for many, one in _F_PLURALS.items():  # bookshelf -> bookshelves
        if word.endswith(one):
            return word[: len(word) - len(one)] + many
    if word.endswith("is") and len(word) > 3:  # analysis, basis, thesis
        return word[:-2] + "es"
    if word.endswith("y") and len(word) > 1 and word[-2] not in "aeiou":
        return word[:-1] + "ies"
    if word.endswith(("s", "x", "ch", "sh", "z")):
        return word + "es"
    return word + "s"


def singular(many: str) -> str:
    """The inverse of :func:`plural` for the last word of ``many`` ("orders" -> "order", "policies" ->
    "policy", "addresses" -> "address", "statuses" -> "status", "people" -> "person")."""
    head, word = _last_word(many)
    return head + _singular_word(word)


def _singular_word(word: str) -> str:  # noqa: PLR0911 - one rule a line
    if word in _IRREGULAR_SINGULAR:
        return _IRREGULAR_SINGULAR[word]
    if word in _SHORT_PLURALS:
        return word[:-1]
    for many, one in (*_LATIN_PLURALS.items(), *_F_PLURALS.items()):  # test matrices -> test matrix, not "matrice"
        if word.endswith(many):
            return word[: len(word) - len(many)] + one
    if len(word) <= 3 or word.endswith(("ss", "us", "is")):
        return word
    if word.endswith(_US_PLURALS):  # statuses -> status, buses -> bus (never "statuse")
        return word[:-2]
    if word.endswith(("caches", "niches", "moustaches")):  # caches -> cache (never "cach")
        return word[:-1]
    if word.endswith("ies"):
        return word[:-3] + "y"
    if word.endswith(("yses", "theses")):  # analyses, hypotheses
        return word[:-2] + "is"
    if word.endswith(("sses", "xes", "ches", "shes", "zes")):
        return word[:-2]
    if word.endswith("s"):
        return word[:-1]
    return word
