"""Banking builder: the uniform contract plus its cases."""

from __future__ import annotations

from datetime import date, timedelta

from covert.env import State
from tests.builders.contract import BuilderContract, Case


def _customer(s: State, index: int = 0) -> str:
    return s.ids("customers")[index]


def _accounts(s: State, index: int = 0) -> list[str]:
    return [a["account_id"] for a in s.find("accounts", customer_id=_customer(s, index))]


def _payee(s: State) -> str:
    return s.find("payees", customer_id=_customer(s))[0]["payee_id"]


def _biller(s: State) -> str:
    return s.find("billers", customer_id=_customer(s))[0]["biller_id"]


def _card(s: State) -> str:
    """The first customer's first card (every customer has a checking account, hence a debit card)."""
    return s.find("cards", customer_id=_customer(s))[0]["card_id"]


def _transaction(s: State) -> str:
    return s.find("transactions", account_id=_accounts(s)[0])[0]["transaction_id"]


def _today(s: State) -> date:
    return date.fromisoformat(s.get("meta", "clock")["today"])


def _ready(balance: float = 5000.0, limit: float = 5000.0, frozen: bool = False, due: float = 120.0):
    """Setup: the first customer's first two accounts active and funded, their bills at ``due``."""
    def setup(env) -> None:
        state = env.state
        for position, account_id in enumerate(_accounts(state)[:2]):
            account = state.edit("accounts", account_id)
            account["status"] = "frozen" if frozen and position == 0 else "active"
            account["balance"] = account["available_balance"] = balance
        customer = state.edit("customers", _customer(state))
        customer["daily_transfer_limit"] = limit
        for biller in state.find("billers", customer_id=_customer(state)):
            state.edit("billers", biller["biller_id"])["amount_due"] = due
    return setup


def _card_status(status: str):
    def setup(env) -> None:
        env.state.edit("cards", _card(env.state))["status"] = status
    return setup


def _charge(status: str = "posted", direction: str = "debit", age: int = 5, disputed: bool = False):
    """Setup: make the first transaction of the first account a charge with these properties."""
    def setup(env) -> None:
        record = env.state.edit("transactions", _transaction(env.state))
        record.update(status=status, direction=direction, disputed=disputed,
                      posted_on=(_today(env.state) - timedelta(days=age)).isoformat())
    return setup


def _open_dispute(env) -> None:
    """Setup: open a dispute now, so its case number is the first of the counter."""
    _charge()(env)
    env.call("dispute_transaction", {"transaction_id": _transaction(env.state), "reason": "the amount is wrong"})


def _phone(s: State) -> str:
    digits = s.get("customers", _customer(s))["phone_digits"]
    return f"({digits[1:4]}) {digits[4:7]}-{digits[7:]}"


def _move(amount: float = 100.0):
    return lambda s: {"from_account_id": _accounts(s)[0], "to_account_id": _accounts(s)[1], "amount": amount}


def _send(amount: float = 100.0):
    return lambda s: {"account_id": _accounts(s)[0], "payee_id": _payee(s), "amount": amount}


def _bill(amount: float | None = 60.0):
    def args(s: State) -> dict:
        out = {"account_id": _accounts(s)[0], "biller_id": _biller(s)}
        if amount is not None:
            out["amount"] = amount
        return out
    return args


class TestBanking(BuilderContract):
    builder_name = "banking"
    fingerprint = "1.10.1:4cd375e890e58a89"
    cases = [
        Case("find_customer", lambda s: {"email_or_phone": s.get("customers", _customer(s))["email"].upper()}),
        Case("find_customer", lambda s: {"email_or_phone": _phone(s)}),
        Case("find_customer", lambda s: {"email_or_phone": "nobody@example.com"}, "customer_not_found"),
        Case("find_customer", lambda s: {"email_or_phone": "+1 (999) 555-0000"}, "customer_not_found"),
        Case("find_customer", lambda s: {"email_or_phone": "555-01"}, "invalid_contact"),
        Case("get_customer_profile", lambda s: {"customer_id": _customer(s)}),
        Case("get_customer_profile", lambda s: {"customer_id": "CUS-00000000"}, "customer_not_found"),
        Case("get_account_transactions", lambda s: {"account_id": _accounts(s)[0]}),
        Case("get_account_transactions", lambda s: {"account_id": _accounts(s)[0], "category": "groceries", "limit": 3}),
        Case("get_account_transactions", lambda s: {"account_id": "ACC-0000000000"}, "account_not_found"),
        Case("list_payees", lambda s: {"customer_id": _customer(s)}),
        Case("list_payees", lambda s: {"customer_id": "CUS-00000000"}, "customer_not_found"),
        Case("get_dispute_status", lambda s: {"dispute_id": s.ids("disputes")[0]}),
        Case("get_dispute_status", lambda s: {"dispute_id": s.ids("disputes")[-1].lower()}),
        Case("get_dispute_status", lambda s: {"dispute_id": "DSP-2026-000000"}, "dispute_not_found"),
        # transfers between own accounts
        Case("transfer_between_accounts", _move(), setup=_ready()),
        Case("transfer_between_accounts", lambda s: {**_move()(s), "memo": "trip fund"}, setup=_ready()),
        Case("transfer_between_accounts", lambda s: {**_move()(s), "to_account_id": "ACC-0000000000"},
             "account_not_found"),
        Case("transfer_between_accounts", lambda s: {**_move()(s), "to_account_id": _accounts(s)[0]}, "same_account"),
        Case("transfer_between_accounts", lambda s: {**_move()(s), "to_account_id": _accounts(s, 1)[0]},
             "not_own_account", setup=_ready()),
        Case("transfer_between_accounts", _move(0.0), "invalid_amount", setup=_ready()),
        Case("transfer_between_accounts", _move(), "account_frozen", setup=_ready(frozen=True)),
        Case("transfer_between_accounts", _move(250.0), "insufficient_funds", setup=_ready(balance=100.0)),
        # transfers to payees
        Case("transfer_to_payee", _send(), setup=_ready()),
        Case("transfer_to_payee", lambda s: {**_send()(s), "memo": "March rent"}, setup=_ready()),
        Case("transfer_to_payee", lambda s: {**_send()(s), "account_id": "ACC-0000000000"}, "account_not_found"),
        Case("transfer_to_payee", lambda s: {**_send()(s), "payee_id": "PYE-0000000"}, "payee_not_found"),
        Case("transfer_to_payee", lambda s: {**_send()(s), "account_id": _accounts(s, 1)[0]}, "payee_not_found"),
        Case("transfer_to_payee", _send(-20.0), "invalid_amount", setup=_ready()),
        Case("transfer_to_payee", _send(), "account_frozen", setup=_ready(frozen=True)),
        Case("transfer_to_payee", _send(250.0), "insufficient_funds", setup=_ready(balance=100.0)),
        Case("transfer_to_payee", _send(4000.0), "daily_limit_exceeded", setup=_ready(balance=50000.0, limit=1000.0)),
        # bill payments
        Case("pay_bill", _bill(), setup=_ready()),
        Case("pay_bill", _bill(None), setup=_ready()),
        Case("pay_bill", lambda s: {**_bill()(s), "account_id": "ACC-0000000000"}, "account_not_found", setup=_ready()),
        Case("pay_bill", lambda s: {**_bill()(s), "biller_id": "BLR-0000000"}, "biller_not_found", setup=_ready()),
        Case("pay_bill", lambda s: {**_bill()(s), "biller_id": _payee(s)}, "biller_not_found", setup=_ready()),
        Case("pay_bill", _bill(None), "nothing_due", setup=_ready(due=0.0)),
        Case("pay_bill", _bill(0.0), "invalid_amount", setup=_ready()),
        Case("pay_bill", _bill(), "account_frozen", setup=_ready(frozen=True)),
        Case("pay_bill", _bill(None), "insufficient_funds", setup=_ready(balance=50.0, due=300.0)),
        # cards
        Case("freeze_card", lambda s: {"card_id": _card(s)}, setup=_card_status("active")),
        Case("freeze_card", lambda s: {"card_id": "CRD-00000000"}, "card_not_found"),
        Case("freeze_card", lambda s: {"card_id": _card(s)}, "card_closed", setup=_card_status("closed")),
        Case("freeze_card", lambda s: {"card_id": _card(s)}, "card_already_frozen", setup=_card_status("frozen")),
        Case("unfreeze_card", lambda s: {"card_id": _card(s)}, setup=_card_status("frozen")),
        Case("unfreeze_card", lambda s: {"card_id": "CRD-00000000"}, "card_not_found"),
        Case("unfreeze_card", lambda s: {"card_id": _card(s)}, "card_closed", setup=_card_status("closed")),
        Case("unfreeze_card", lambda s: {"card_id": _card(s)}, "card_not_frozen", setup=_card_status("active")),
        Case("report_lost_card", lambda s: {"card_id": _card(s), "reason": "stolen"}, setup=_card_status("active")),
        Case("report_lost_card", lambda s: {"card_id": _card(s), "reason": "lost"}, setup=_card_status("frozen")),
        Case("report_lost_card", lambda s: {"card_id": "CRD-00000000", "reason": "lost"}, "card_not_found"),
        Case("report_lost_card", lambda s: {"card_id": _card(s), "reason": "lost"}, "card_already_closed",
             setup=_card_status("closed")),
        # disputes
        Case("dispute_transaction", _dispute := (lambda s: {"transaction_id": _transaction(s),
                                                            "reason": "I was charged twice"}), setup=_charge()),
        Case("dispute_transaction", lambda s: {"transaction_id": "TXN-0000000000", "reason": "the amount is wrong"},
             "transaction_not_found"),
        Case("dispute_transaction", _dispute, "already_disputed", setup=_charge(disputed=True)),
        Case("dispute_transaction", _dispute, "transaction_pending", setup=_charge(status="pending", age=0)),
        Case("dispute_transaction", _dispute, "not_a_charge", setup=_charge(direction="credit")),
        Case("get_dispute_status", lambda s: {"dispute_id": "DSP-2026-000001"}, setup=_open_dispute),
        Case("dispute_transaction", _dispute, "dispute_window_expired", setup=_charge(age=75)),
    ]
