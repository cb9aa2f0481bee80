"""Retail: an online store's customers, orders, returns and catalogue (after tau-bench's retail domain)."""

from builders.retail.env import RetailEnv
from builders.retail.language import LANGUAGE
from builders.retail.state import make_state
from covert.env import Builder

BUILDER = Builder(
    name="retail",
    version="1.10.0",
    description="Online store support: find customers, inspect and track orders, cancel, return, change addresses.",
    environment=RetailEnv,
    make_state=make_state,
    language=LANGUAGE,
    system_prompt=(
        "You are the customer support agent of an online store. Identify the customer before acting on their "
        "account. Only pending orders can be cancelled or re-addressed; only delivered orders can be returned. "
        "Refunds go to the original payment method unless the customer names another saved one. Never invent "
        "order details: look them up."
    ),
)
