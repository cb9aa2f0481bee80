"""How the bank's customers talk: intents per tool, references to entities, value samplers."""

from __future__ import annotations

import random
from datetime import date
from typing import Any

from builders.banking.env import DISPUTE_WINDOW_DAYS
from covert.env import Intent, Language, Reference, State
from covert.env.policy import Identity

# notes to a person ("I owe Dana 40 dollars for {memo}") and labels for moves between own accounts
PAYEE_MEMOS = ("March rent", "dinner last night", "the concert tickets", "our utilities split", "your birthday gift",
               "groceries", "piano lessons", "the car repair", "the weekend trip", "dog walking")
SAVINGS_MEMOS = ("trip fund", "emergency top-up", "house savings", "holiday gifts", "tuition", "car fund",
                 "monthly savings")


def _customer(rng: random.Random, state: State) -> dict[str, Any]:
    return state.get("customers", rng.choice(state.ids("customers")))


def _contact(rng: random.Random, state: State) -> str:
    """A customer's email or phone number, the phone written the way people type it."""
    customer = _customer(rng, state)
    if rng.random() < 0.55:
        return customer["email"]
    digits = customer["phone_digits"][1:]
    area, exchange, line = digits[:3], digits[3:6], digits[6:]
    return rng.choice((f"({area}) {exchange}-{line}", f"{area}-{exchange}-{line}", f"+1 {area} {exchange} {line}",
                       f"{area}.{exchange}.{line}", f"+1-{area}-{exchange}-{line}"))


def _amount(low: int, high: int):
    """Round-ish amounts people actually type (25, 140, 300.5)."""
    def sample(rng: random.Random, state: State) -> float:
        value = rng.randrange(low, high)
        if rng.random() < 0.7:
            value = max(low, value - value % 5)
        return value if rng.random() < 0.8 else value + 0.5
    return sample


def _bill_amount(rng: random.Random, state: State) -> float:
    dues = [b["amount_due"] for _, b in state.records("billers") if b["amount_due"] > 0]
    if not dues:
        return _amount(20, 150)(rng, state)
    # a partial payment of a real bill, rounded down to whole dollars
    return max(10, int(rng.choice(dues) * rng.uniform(0.3, 0.9)))


def _freezable(state: State, card: dict[str, Any]) -> bool:
    """A card in use (not closed, not frozen already)."""
    return card["status"] not in ("closed", "frozen")


def _frozen(state: State, card: dict[str, Any]) -> bool:
    return card["status"] == "frozen"


def _unfrozen_account(state: State, account: dict[str, Any]) -> bool:
    """No money moves in or out of a frozen account."""
    return account["status"] != "frozen"


def _disputable(state: State, transaction: dict[str, Any]) -> bool:
    """A posted merchant charge, not disputed yet and inside the dispute window."""
    today = date.fromisoformat(state.get("meta", "clock")["today"])
    return (not transaction["disputed"] and transaction["status"] != "pending" and transaction["direction"] == "debit"
            and transaction["channel"] not in ("internal", "transfer")
            and (today - date.fromisoformat(transaction["posted_on"])).days <= DISPUTE_WINDOW_DAYS)


def _spending_category(rng: random.Random, state: State) -> str:
    """A category the customer actually spent money on."""
    found = sorted({t["category"] for _, t in state.records("transactions") if t["direction"] == "debit"})
    return rng.choice(found or ["groceries"])


IDENTITY = Identity(
    table="customers", tools=("find_customer",), output_field="customer_id",
    owners={"accounts": "customer_id", "cards": "customer_id", "payees": "customer_id", "billers": "customer_id",
            "transfers": "customer_id", "transactions": ("account_id", "accounts"),
            "disputes": ("account_id", "accounts")},
    self_params=("email_or_phone",),
    requirement="Identify the customer by email or phone before acting on their accounts.",
    signed_in="The customer is signed in to online banking as {first_name} {last_name} ({email}), so they are "
              "already identified; act only on their own accounts, cards and payees.",
)


LANGUAGE = Language(
    scope="checking and savings accounts, transfers, bill payments, cards and transaction disputes at our bank",
    intents={
        "find_customer": (
            Intent(ask=("can you pull up my banking profile? I'm registered under {email_or_phone}",
                        "can you check you have me on file? I'm under {email_or_phone}",
                        "could you look me up? My contact on file is {email_or_phone}", "I'm a customer under {email_or_phone}; what do you have for me?", "look me up by {email_or_phone}", "is {email_or_phone} the contact you have for me?"),
                   answer=("Thanks, {name}, I found your profile.",
                           "I have your profile up, {name}.",
                           "Your profile is under {name}."),
                   context=("I'm registered under {email_or_phone}", "you have me on file as {email_or_phone}",
                            "my contact on file is {email_or_phone}", "you can find me under {email_or_phone}", "my banking login is {email_or_phone}", "I bank with you under {email_or_phone}", "{email_or_phone} is the contact on my account", "the bank has me as {email_or_phone}", "I signed up with {email_or_phone}", "my account is under {email_or_phone}", "I'm the customer at {email_or_phone}", "I'm on file with {email_or_phone}", "the profile is under {email_or_phone}", "I use {email_or_phone} with you", "my online banking is under {email_or_phone}", "{email_or_phone} is how you know me", "I'm listed with {email_or_phone}", "I'm a client, {email_or_phone}", "I'm {email_or_phone} in your records", "I hold my accounts under {email_or_phone}", "contact on file: {email_or_phone}", "profile: {email_or_phone}")),
        ),
        "get_customer_profile": (
            Intent(ask=("how much money do I have across all my accounts?", "how much have I got with you in total?", "what's my total balance with you?",
                        "can you add up what I've got in all my accounts?"),
                   answer=("Across all your accounts you have {total_balance:money}.",
                           "Your accounts hold {total_balance:money} in total: {accounts:list:nickname|balance@money}.",
                           "Altogether that's {total_balance:money} across {accounts:n:account}.")),
            Intent(ask=("how much more can I send to people today?", "how much can I still transfer today?", "how much room is left on my transfer limit today?", "what's my daily transfer limit, and how much is left?"),
                   answer=("You can still send {remaining_transfer_limit:money} today; you've sent {transferred_today:money} of your {daily_transfer_limit:money} daily limit.",
                           "Your daily limit is {daily_transfer_limit:money}, and {remaining_transfer_limit:money} of it is left today.",
                           "{remaining_transfer_limit:money} left for today (limit {daily_transfer_limit:money}, sent so far {transferred_today:money}).")),
            Intent(ask=("what phone number and address do you have on file for me?", "what contact details do you have for me?", "which address and number are on my profile?",
                        "can you confirm the contact details on my profile?"),
                   answer=("We have {phone} and {email} on file, with mailing address {address}.",
                           "Your phone on file is {phone}, and your mailing address is {address}.",
                           "The profile lists {address} as your address and {phone} as your phone number.")),
        ),
        "get_account_transactions": (
            Intent(ask=("what's the balance on {account_id}?", "how much is in {account_id} right now?",
                        "how much can I spend from {account_id} today?", "how much have I got in {account_id}?", "I'm about to pay rent; how much is sitting in {account_id}?"),
                   answer=("{nickname} has a balance of {balance:money}, with {available_balance:money} available.",
                           "Your {nickname} balance is {balance:money} ({available_balance:money} available).",
                           "There's {balance:money} in {nickname}; {available_balance:money} of it is available to spend."),
                   context=("it's about {account_id}", "this is on {account_id}", "the money's in {account_id}",
                            "it was a {category} charge on {account_id}", "it's the {category} one on {account_id}", "it hit {account_id}")),
            Intent(ask=("can you show me the latest transactions on {account_id}?", "show me the last few charges on {account_id}",
                        "what's gone in and out of {account_id} lately?",
                        "I'd like to go over the recent activity on {account_id}",
                        "what have I spent on {category} from {account_id} recently?",
                        "show me my {category} transactions on {account_id}", "I'm checking my budget; show me what went through {account_id} lately", "list the recent activity on {account_id}"),
                   answer=("The latest on {nickname}: {transactions:list:merchant|amount@money|posted_on@date}. The balance is {balance:money}.",
                           "Recent transactions on {nickname}: {transactions:list:merchant|amount@money}.",
                           "Here's what posted on {nickname} lately: {transactions:list:merchant|posted_on@date}; the balance stands at {balance:money}.",
                           "{?transactions=}There are {transactions:n:transaction} on {nickname} yet; the balance is {balance:money}."),
                   context=("the charge was on {account_id}", "it went through {account_id}",
                            "it showed up on {account_id}", "it was a {category} purchase on {account_id}")),
        ),
        "list_payees": (
            Intent(ask=("who do I have saved as payees?", "show me my payees", "can you list the people and companies I pay?", "which payees have I set up?"),
                   answer=("Your saved payees are {payees:list:name|nickname}.",
                           "You have {payees:n:payee} saved: {payees:list:name}.",
                           "On file as payees: {payees:list:name|bank_name}.",
                           "{?payees=}You have {payees:n:saved payee}.")),
            Intent(ask=("how much do I owe on my bills right now?", "what's the total due on my bills?", "what bills do I have coming up?", "how much is due on my bills?"),
                   answer=("Your bills currently add up to {total_due:money}.",
                           "You owe {total_due:money} across your billers: {billers:list:name|amount_due@money}.",
                           "All told, {total_due:money} is due on your bills.")),
        ),
        "transfer_between_accounts": (
            Intent(ask=("please move {amount} dollars from {from_account_id} to {to_account_id}", "I need {amount} dollars moved from {from_account_id} to {to_account_id}",
                        "can you transfer ${amount} out of {from_account_id} into {to_account_id}?",
                        "I want to put {amount} from {from_account_id} into {to_account_id}",
                        "move ${amount} from {from_account_id} to {to_account_id} and label it \"{memo}\"",
                        "transfer {amount} dollars from {from_account_id} to {to_account_id}, note: {memo}", "I want to put {amount} from {from_account_id} into {to_account_id}", "shift ${amount} over from {from_account_id} to {to_account_id}"),
                   answer=("Done: {amount:money} moved from {from_nickname} to {to_nickname} (confirmation {confirmation_number}), and {from_nickname} now holds {from_balance:money}.",
                           "I transferred {amount:money} to {to_nickname}; the confirmation number is {confirmation_number}.",
                           "{amount:money} is now in {to_nickname} (confirmation {confirmation_number}), leaving {from_balance:money} in {from_nickname}.")),
        ),
        "transfer_to_payee": (
            Intent(ask=("please send ${amount} to {payee_id} from {account_id}", "pay {payee_id} ${amount} out of {account_id}", "{payee_id} needs ${amount} from me; send it from {account_id}",
                        "I need to pay {payee_id} {amount} dollars out of {account_id}",
                        "can you transfer {amount} to {payee_id}? Take it from {account_id}",
                        "send {payee_id} ${amount} from {account_id} with the note \"{memo}\"",
                        "I owe {payee_id} {amount} dollars for {memo}; please send it from {account_id}"),
                   answer=("Sent {amount:money} to {payee_name} from {account_nickname} (confirmation {confirmation_number}); it should arrive by {expected_arrival:date}.",
                           "{payee_name} has been sent {amount:money}, confirmation {confirmation_number}. You can still send {remaining_transfer_limit:money} today.",
                           "Your payment of {amount:money} to {payee_name} is on its way and due to land by {expected_arrival:date}; confirmation {confirmation_number}.")),
        ),
        "pay_bill": (
            Intent(ask=("please pay {amount} dollars toward {biller_id} from {account_id}", "put {amount} dollars toward {biller_id} from {account_id}",
                        "I'd like to make a ${amount} payment on {biller_id} using {account_id}",
                        "pay off {biller_id} in full from {account_id}",
                        "please pay {biller_id} out of {account_id}",
                        "can you settle {biller_id}? Use {account_id}", "settle {biller_id} out of {account_id}"),
                   answer=("Paid {amount:money} to {biller_name} from {account_nickname}; the confirmation is {confirmation_number}, and {remaining_due:money} is still due.",
                           "Your {amount:money} payment to {biller_name} went through (confirmation {confirmation_number}).",
                           "{biller_name} got {amount:money} from {account_nickname} on {paid_on:date}; confirmation number {confirmation_number}.")),
        ),
        "get_dispute_status": (
            Intent(ask=("what's the status of {dispute_id}?", "any update on {dispute_id}?",
                        "has {dispute_id} been resolved yet?", "where are we on {dispute_id}?", "is {dispute_id} still open?", "I'm still waiting on {dispute_id}; any news?", "what's going on with {dispute_id}?", "did {dispute_id} go my way?", "status of {dispute_id}?", "is there an outcome on {dispute_id} yet?", "check on {dispute_id} for me", "has the bank ruled on {dispute_id}?", "was {dispute_id} decided in my favour?"),
                   answer=("Dispute {dispute_id} over the {amount:money} charge from {merchant} is {status:status}.",
                           "{?status=under_review}Your dispute {dispute_id} about {merchant} ({amount:money}) is still under review; a decision is expected by {decision_expected_by:date}.",
                           "{?status~under_review}Dispute {dispute_id} about the {merchant} charge was closed on {resolved_on:date}: {resolution}"),
                   context=("it's about {dispute_id}", "I opened {dispute_id} a while ago", "I'm following up on {dispute_id}", "I filed {dispute_id}")),
            Intent(ask=("when will I hear back about {dispute_id}?", "when do I get an answer on {dispute_id}?", "when will {dispute_id} be decided?", "when is a decision due on {dispute_id}?", "how long until {dispute_id} is decided?", "what's the expected decision date for {dispute_id}?", "by when should {dispute_id} be settled?", "how much longer will {dispute_id} take?"),
                   answer=("{?status=under_review}A decision on dispute {dispute_id} is expected by {decision_expected_by:date}; it's still under review.",
                           "{?status=under_review}We should decide dispute {dispute_id} by {decision_expected_by:date}.",
                           "{?status~under_review}Dispute {dispute_id} was already decided on {resolved_on:date}: {resolution}")),
        ),
        "freeze_card": (
            Intent(ask=("please freeze {card_id}", "freeze {card_id} for now", "block {card_id} until further notice", "I can't find {card_id} — can you lock it for now?",
                        "put a temporary hold on {card_id}, I think I left it somewhere", "freeze {card_id} until I find it"),
                   answer=("Your card ending in {last_four} is now frozen; new purchases will be declined.",
                           "I've frozen your {product_name} ending in {last_four}.",
                           "Done: the card ending in {last_four} is frozen until you unfreeze it.")),
        ),
        "unfreeze_card": (
            Intent(ask=("I found {card_id}, please unfreeze it", "unfreeze {card_id}", "can you turn {card_id} back on?",
                        "please lift the freeze on {card_id}", "{card_id} turned up; lift the freeze", "take the hold off {card_id}"),
                   answer=("Your card ending in {last_four} is active again.",
                           "I've unfrozen your {product_name} ending in {last_four}; you can use it right away.",
                           "The card ending in {last_four} works again.")),
        ),
        "report_lost_card": (
            Intent(ask=("{card_id} was {reason}, please cancel it and send me a new one", "cancel {card_id}, it was {reason}, and send a replacement",
                        "I need to report {card_id} as {reason}",
                        "my wallet's gone — {card_id} was {reason}. Block it please"),
                   answer=("Your card ending in {last_four} is closed, and a replacement ending in {replacement.last_four} will arrive by {replacement.estimated_delivery:date}.",
                           "I've cancelled the card ending in {last_four}. The new one, ending in {replacement.last_four}, ships to {replacement.ship_to} and should arrive by {replacement.estimated_delivery:date}.",
                           "The card ending in {last_four} can no longer be used; expect its replacement (ending in {replacement.last_four}) by {replacement.estimated_delivery:date}.")),
        ),
        "dispute_transaction": (
            Intent(ask=("I want to dispute {transaction_id}: {reason}", "dispute {transaction_id}; {reason}",
                        "please open a dispute on {transaction_id} — {reason}",
                        "something's off with {transaction_id}; {reason}. Can you dispute it?", "dispute {transaction_id} for me, {reason}"),
                   answer=("Dispute {dispute_id} is open for the {amount:money} charge from {merchant}. You'll get a provisional credit of {provisional_credit:money} by {provisional_credit_by:date} and a decision by {decision_expected_by:date}.",
                           "I've opened dispute {dispute_id} on the {merchant} charge; we'll credit {provisional_credit:money} provisionally by {provisional_credit_by:date}.",
                           "Your dispute of the {amount:money} {merchant} charge is filed as {dispute_id}, with a decision expected by {decision_expected_by:date}.")),
        ),
    },
    references={
        "dispute_id": Reference(noun="dispute", plural="disputes",
                                by_id=("dispute {value}", "case {value}", "my dispute {value}", "{value}", "dispute case {value}")),
        "customer_id": Reference(noun="customer profile", plural="customer profiles", by_id=("customer {value}",),
                                 user_knows_id=False),
        "account_id": Reference(
            noun="account", plural="accounts", by_id=("account {value}",), user_knows_id=False,
            by_field={"nickname": ("my {value}", "my {value} account", "the {value} account")},
            superlative={"balance": ("the account with the most money in it", "my account with the lowest balance")},
        ),
        "payee_id": Reference(
            noun="payee", plural="payees", by_id=("payee {value}",), user_knows_id=False,
            by_field={"nickname": ("my {value}",), "name": ("{value}",)},
        ),
        "biller_id": Reference(
            noun="bill", plural="bills", by_id=("biller {value}",), user_knows_id=False,
            by_field={"category": ("my {value} bill", "the {value} bill"), "name": ("my {value} bill", "{value}")},
            superlative={"amount_due": ("my biggest bill", "my smallest bill")},
        ),
        "card_id": Reference(
            noun="card", plural="cards", by_id=("card {value}",), user_knows_id=False,
            by_field={"last_four": ("my card ending in {value}", "the card ending {value}"),
                      "product_name": ("my {value}", "my {value} card"),
                      "kind": ("my {value} card",)},
        ),
        "transaction_id": Reference(
            noun="transaction", plural="transactions", by_id=("transaction {value}",), user_knows_id=False,
            by_field={"merchant": ("the {value} charge", "my payment at {value}", "the transaction from {value}"),
                      "posted_on": ("the transaction on {value}", "the charge from {value}")},
            superlative={"amount": ("the biggest transaction", "the smallest transaction")},
        ),
    },
    entity_tables={"dispute_id": "disputes", "customer_id": "customers", "account_id": "accounts", "payee_id": "payees", "biller_id": "billers",
                   "card_id": "cards", "transaction_id": "transactions"},
    values={
        # one user has one identity: a joint sampler keeps covert from asking to look up several at once
        "find_customer": lambda rng, state: {"email_or_phone": _contact(rng, state)},
        "amount": _amount(20, 400),
        "memo": lambda rng, state: rng.choice(PAYEE_MEMOS),
        "transfer_between_accounts.memo": lambda rng, state: rng.choice(SAVINGS_MEMOS),
        "transfer_between_accounts.amount": _amount(50, 500),
        "transfer_to_payee.amount": _amount(20, 300),
        "pay_bill.amount": _bill_amount,
        "get_account_transactions.category": _spending_category,
    },
    eligible={
        "freeze_card.card_id": _freezable,
        "unfreeze_card.card_id": _frozen,
        "dispute_transaction.transaction_id": _disputable,
        "transfer_between_accounts.from_account_id": _unfrozen_account,
        "transfer_between_accounts.to_account_id": _unfrozen_account,
        "transfer_to_payee.account_id": _unfrozen_account,
        "pay_bill.account_id": _unfrozen_account,
    },
    field_nouns={
        "balance": "balance", "available_balance": "available balance", "total_balance": "total balance",
        "amount": "amount", "amount_due": "amount due", "total_due": "total due", "remaining_due": "remaining amount due",
        "daily_transfer_limit": "daily transfer limit", "transferred_today": "amount sent today",
        "remaining_transfer_limit": "remaining daily transfer limit", "interest_rate": "interest rate (APY, %)",
        "posted_on": "posting date", "due_date": "due date", "provisional_credit": "provisional credit",
        "decision_expected_by": "decision date", "opened_on": "date opened", "resolved_on": "date resolved",
        "estimated_delivery": "delivery date",
        "expected_arrival": "arrival date", "from_balance": "new balance", "to_balance": "new balance",
        "transaction_count": "number of transactions", "payee_count": "number of payees",
    },
    out_of_scope=(
        "Can you recommend a good novel for a long flight?",
        "What's the weather going to be like in Lisbon this weekend?",
        "Should I put my savings into Bitcoin or an index fund?",
        "Can you help me fill out my tax return?",
        "What's the exchange rate between the euro and the yen right now?",
        "Can you book me a table for two at an Italian restaurant tonight?",
        "I'd like to apply for a 30-year mortgage, what rate can I get?",
        "Please raise the credit limit on my Visa to 15,000 dollars.",
        "Translate 'where is the train station' into Japanese, please.",
        "Who won the football match last night?",
        # near the domain: requests the tools look like they could serve, but do not
        "Can you raise my daily transfer limit to 10,000 dollars?",
        "Please open a new high-yield savings account for me.",
        "Can you increase the credit limit on my card?",
        "Please add my landlord as a new payee.",
        "Can you waive the overdraft fee on my {accounts.nickname}?",
        "What's your rate on a 30-year fixed mortgage right now?",
        "Can you stop {transactions.merchant} from ever charging me again?",
        "Can you order me a new checkbook for my {accounts.nickname}?",
        "I'd like to change the PIN on my card. Can you set a new one?",
        "Please close my {accounts.nickname} for good.",
        "Can you wire money to my cousin's bank in Portugal?",
        "Could you buy 10 shares of Apple for me with my savings?",
        "Can you change the mailing address on my profile?",
        "Can you tell me what the euro exchange rate will be next week?",
        "Can you reverse my payment to {payees.name}? I sent it to the wrong person.",
        "Can you lower the interest rate on my {accounts.nickname}?",
    ),
    identity=IDENTITY,
)
