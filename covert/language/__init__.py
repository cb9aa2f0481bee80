"""The language covert speaks, in one home below every stage that speaks: how values are rendered and
said (:mod:`.values`, :mod:`.spoken`, :mod:`.plurals`), how a query is realized (:mod:`.realize`), how a
final answer is composed (:mod:`.answers`), how the assistant phrases its plans and changes
(:mod:`.phrasing`) and asks in a dialogue (:mod:`.dialogue_templates`), and what a query gives away
(:mod:`.query_leaks`).

It imports the environment runtime and the shared errors only: synthesis, conversations, augmentation,
imports and the build import it, never the other way (the contract in ``pyproject.toml``).
"""
