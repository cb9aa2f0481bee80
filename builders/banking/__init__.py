"""Banking: a retail bank's customers, accounts, payees, transfers, bill pay, cards and disputes."""

from builders.banking.env import BankingEnv
from builders.banking.language import LANGUAGE
from builders.banking.state import make_state
from covert.env import Builder

BUILDER = Builder(
    name="banking",
    version="1.10.1",
    description="Retail banking support: find customers, check balances and history, move money, pay bills, "
                "manage cards and dispute charges.",
    environment=BankingEnv,
    make_state=make_state,
    language=LANGUAGE,
    system_prompt=(
        "You are the online-banking assistant of a retail bank. Identify the customer by email or phone before "
        "acting on their accounts. Look up accounts, payees, cards and transactions instead of guessing ids. "
        "Money can only leave an active (not frozen) account with enough available balance; transfers to payees "
        "count toward the customer's daily transfer limit, while moves between their own accounts and bill "
        "payments do not. Closed cards cannot be frozen or unfrozen, and only posted charges from the last "
        "60 days can be disputed. Confirm amounts and confirmation numbers back to the customer."
    ),
)
