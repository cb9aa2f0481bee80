"""Banking tools: customers, accounts and their history, payees, transfers, bills, cards and disputes."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Annotated, Literal, Optional, TypedDict

from covert.env import Entity, Environment, ToolError, tool

AccountRef = Annotated[str, Entity("account_id")]

DISPUTE_WINDOW_DAYS = 60
MAX_TRANSACTIONS = 50

Category = Literal[
    "groceries", "fuel", "dining", "shopping", "subscriptions", "transport", "travel", "health",
    "entertainment", "utilities", "income", "deposit", "interest", "transfer", "bill payment",
]
DisputeReason = Literal["I don't recognize the charge", "I was charged twice", "the item never arrived",
                        "the amount is wrong"]


# -- return types ----------------------------------------------------------------------------------
class CustomerRef(TypedDict):
    """A customer's id and name.

    Attributes:
        customer_id: The bank's internal customer id.
        name: The customer's full name, to greet them by.
    """

    customer_id: str
    name: str


class AccountSummary(TypedDict):
    """One of a customer's deposit accounts.

    Attributes:
        account_id: The account id.
        nickname: The account's name, such as Everyday Checking.
        kind: checking, savings or money market.
        last_four: Last four digits of the account number.
        balance: Ledger balance.
        available_balance: Balance available to spend or move (ledger balance minus pending debits).
        currency: Currency code.
        status: active or frozen (a frozen account cannot send or receive money).
    """

    account_id: str
    nickname: str
    kind: str
    last_four: str
    balance: float
    available_balance: float
    currency: str
    status: str


class CardSummary(TypedDict):
    """A debit or credit card.

    Attributes:
        card_id: The card id.
        product_name: The card product, such as Visa Debit.
        kind: debit or credit.
        network: visa or mastercard.
        last_four: Last four digits of the card number.
        status: active, frozen or closed.
        expires: Expiry month (YYYY-MM).
        linked_account: Nickname of the account a debit card draws on, or "credit line".
    """

    card_id: str
    product_name: str
    kind: str
    network: str
    last_four: str
    status: str
    expires: str
    linked_account: str


class CustomerProfile(TypedDict):
    """A customer's profile with accounts, cards and transfer limits.

    Attributes:
        customer_id: The customer id.
        name: Full name.
        email: Email address on file.
        phone: Phone number on file.
        address: Mailing address.
        member_since: Date the customer joined (YYYY-MM-DD).
        currency: Currency of the amounts below.
        total_balance: Sum of the ledger balances of all accounts.
        daily_transfer_limit: Most the customer may send to payees per day.
        transferred_today: Already sent to payees today.
        remaining_transfer_limit: What can still be sent to payees today.
        accounts: The customer's accounts.
        cards: The customer's cards, including closed ones.
    """

    customer_id: str
    name: str
    email: str
    phone: str
    address: str
    member_since: str
    currency: str
    total_balance: float
    daily_transfer_limit: float
    transferred_today: float
    remaining_transfer_limit: float
    accounts: list[AccountSummary]
    cards: list[CardSummary]


class Transaction(TypedDict, total=False):
    """One entry of an account's history.

    Attributes:
        transaction_id: The transaction id.
        posted_on: Date it posted, or was authorised when pending (YYYY-MM-DD).
        merchant: Merchant or counterparty.
        category: Spending category.
        amount: Amount, always positive; see direction.
        currency: Currency code.
        direction: debit (money out) or credit (money in).
        channel: card, ach, check, internal or transfer.
        status: posted or pending.
        disputed: Whether a dispute is open on it.
        card_last_four: Last four digits of the card used, for card purchases.
    """

    transaction_id: str
    posted_on: str
    merchant: str
    category: str
    amount: float
    currency: str
    direction: str
    channel: str
    status: str
    disputed: bool
    card_last_four: str


class AccountActivity(TypedDict):
    """An account with its recent history.

    Attributes:
        account_id: The account id.
        nickname: The account's name.
        kind: checking, savings or money market.
        status: active or frozen.
        balance: Ledger balance.
        available_balance: Available balance.
        currency: Currency code.
        interest_rate: Annual percentage yield, in percent.
        opened_on: Date the account was opened.
        transaction_count: Number of transactions returned.
        transactions: Matching transactions, newest first.
    """

    account_id: str
    nickname: str
    kind: str
    status: str
    balance: float
    available_balance: float
    currency: str
    interest_rate: float
    opened_on: str
    transaction_count: int
    transactions: list[Transaction]


class PersonPayee(TypedDict):
    """A person the customer sends money to.

    Attributes:
        payee_id: The payee id.
        name: The person's name.
        nickname: The customer's label for them, such as landlord.
        bank_name: Their bank.
        account_last4: Last four digits of their account.
        added_on: Date the payee was saved.
    """

    payee_id: str
    name: str
    nickname: str
    bank_name: str
    account_last4: str
    added_on: str


class Biller(TypedDict):
    """A company the customer pays bills to.

    Attributes:
        biller_id: The biller id.
        name: The biller's name.
        category: What the bill is for, such as electricity.
        account_reference: The customer's (masked) account number with the biller.
        amount_due: Amount of the current bill.
        currency: Currency code.
        due_date: Due date of the current bill (YYYY-MM-DD).
    """

    biller_id: str
    name: str
    category: str
    account_reference: str
    amount_due: float
    currency: str
    due_date: str


class PayeeList(TypedDict):
    """A customer's saved payees and billers.

    Attributes:
        customer_id: The customer id.
        payee_count: Number of people and billers saved.
        payees: People the customer sends money to.
        billers: Companies the customer pays bills to.
        total_due: Sum of the amounts due across billers.
        currency: Currency code.
    """

    customer_id: str
    payee_count: int
    payees: list[PersonPayee]
    billers: list[Biller]
    total_due: float
    currency: str


class InternalTransfer(TypedDict):
    """A completed transfer between two of the customer's accounts.

    Attributes:
        confirmation_number: Confirmation number of the transfer.
        status: completed.
        amount: Amount moved.
        currency: Currency code.
        from_account_id: The account debited.
        from_nickname: Its nickname.
        from_balance: Its new ledger balance.
        to_account_id: The account credited.
        to_nickname: Its nickname.
        to_balance: Its new ledger balance.
        memo: The memo, may be empty.
        posted_on: Date of the transfer.
    """

    confirmation_number: str
    status: str
    amount: float
    currency: str
    from_account_id: AccountRef
    from_nickname: str
    from_balance: float
    to_account_id: AccountRef
    to_nickname: str
    to_balance: float
    memo: str
    posted_on: str


class PayeeTransfer(TypedDict):
    """Money sent to a saved person payee.

    Attributes:
        confirmation_number: Confirmation number of the transfer.
        status: sent.
        amount: Amount sent.
        currency: Currency code.
        account_id: The account debited.
        account_nickname: Its nickname.
        balance: Its new ledger balance.
        payee_id: The payee.
        payee_name: The payee's name.
        memo: The memo, may be empty.
        sent_on: Date sent.
        expected_arrival: Date the money should reach the payee's bank.
        remaining_transfer_limit: What can still be sent to payees today.
    """

    confirmation_number: str
    status: str
    amount: float
    currency: str
    account_id: str
    account_nickname: str
    balance: float
    payee_id: str
    payee_name: str
    memo: str
    sent_on: str
    expected_arrival: str
    remaining_transfer_limit: float


class BillPayment(TypedDict):
    """A bill payment.

    Attributes:
        confirmation_number: Confirmation number of the payment.
        status: paid.
        amount: Amount paid.
        currency: Currency code.
        account_id: The account debited.
        account_nickname: Its nickname.
        balance: Its new ledger balance.
        biller_id: The biller paid.
        biller_name: The biller's name.
        remaining_due: What is still due on the bill after this payment.
        paid_on: Date of the payment.
    """

    confirmation_number: str
    status: str
    amount: float
    currency: str
    account_id: str
    account_nickname: str
    balance: float
    biller_id: str
    biller_name: str
    remaining_due: float
    paid_on: str


class CardStatus(TypedDict):
    """A card after a status change.

    Attributes:
        card_id: The card id.
        product_name: The card product.
        last_four: Last four digits.
        status: The card's new status.
        previous_status: Its status before the change.
        updated_on: Date of the change.
    """

    card_id: str
    product_name: str
    last_four: str
    status: str
    previous_status: str
    updated_on: str


class ReplacementCard(TypedDict):
    """A replacement card on its way.

    Attributes:
        card_id: The new card's id.
        last_four: Last four digits of the new card.
        expires: Expiry month (YYYY-MM).
        status: The new card's status.
        ship_to: Mailing address it ships to.
        estimated_delivery: Expected delivery date.
    """

    card_id: str
    last_four: str
    expires: str
    status: str
    ship_to: str
    estimated_delivery: str


class LostCardReport(TypedDict):
    """A card reported lost or stolen.

    Attributes:
        card_id: The reported card's id.
        last_four: Its last four digits.
        status: Always closed.
        reported_as: lost or stolen.
        reported_on: Date of the report.
        replacement: The replacement card.
    """

    card_id: str
    last_four: str
    status: str
    reported_as: str
    reported_on: str
    replacement: ReplacementCard


class Dispute(TypedDict):
    """A transaction dispute.

    Attributes:
        dispute_id: The dispute's case number.
        transaction_id: The disputed transaction.
        merchant: Its merchant.
        amount: Disputed amount.
        currency: Currency code.
        reason: Why the customer disputes it.
        status: under_review, resolved_refunded or denied.
        opened_on: Date the dispute was opened.
        provisional_credit: Amount credited provisionally while the bank investigates.
        provisional_credit_by: Date the provisional credit will post by; empty once it is resolved.
        decision_expected_by: Date the investigation should conclude by; empty once it is resolved.
        resolution: How the dispute was resolved; empty while it is open.
        resolved_on: Date it was resolved; empty while it is open.
        account_nickname: The account the transaction was on.
    """

    dispute_id: str
    transaction_id: Annotated[str, Entity("disputed_transaction")]
    merchant: str
    amount: float
    currency: str
    reason: str
    status: str
    opened_on: str
    provisional_credit: float
    provisional_credit_by: str
    decision_expected_by: str
    resolution: str
    resolved_on: str
    account_nickname: str


# -- the environment -------------------------------------------------------------------------------
ACCOUNT_FIELDS = ("account_id", "nickname", "kind", "last_four", "balance", "available_balance", "currency", "status")
CARD_FIELDS = ("card_id", "product_name", "kind", "network", "last_four", "status", "expires", "linked_account")
PERSON_FIELDS = ("payee_id", "name", "nickname", "bank_name", "account_last4", "added_on")
BILLER_FIELDS = ("biller_id", "name", "category", "account_reference", "amount_due", "due_date")


class BankingEnv(Environment):
    """A retail bank's online-banking back office."""

    name = "banking"

    # -- helpers ---------------------------------------------------------------------------------
    def _today(self) -> date:
        return date.fromisoformat(self._today_iso())

    def _today_iso(self) -> str:
        return self.state.get("meta", "clock")["today"]

    def _customer(self, customer_id: str) -> dict:
        customer = self.state.get("customers", customer_id)
        if customer is None:
            raise ToolError("customer_not_found", f"No customer has id {customer_id}.")
        return customer

    def _account(self, account_id: str) -> dict:
        account = self.state.get("accounts", account_id)
        if account is None:
            raise ToolError("account_not_found", f"No account has id {account_id}.")
        return account

    def _card(self, card_id: str) -> dict:
        card = self.state.get("cards", card_id)
        if card is None:
            raise ToolError("card_not_found", f"No card has id {card_id}.")
        return card

    def _own_payee(self, payee_id: str, account: dict) -> dict:
        payee = self.state.get("payees", payee_id)
        if payee is None or payee["customer_id"] != account["customer_id"]:
            raise ToolError("payee_not_found", f"{payee_id} is not a saved payee of the account holder.")
        return payee

    def _own_biller(self, biller_id: str, account: dict) -> dict:
        biller = self.state.get("billers", biller_id)
        if biller is None or biller["customer_id"] != account["customer_id"]:
            raise ToolError("biller_not_found", f"{biller_id} is not a saved biller of the account holder.")
        return biller

    @staticmethod
    def _amount(amount: float) -> float:
        value = round(float(amount), 2)
        if value <= 0:
            raise ToolError("invalid_amount", "The amount must be greater than zero.")
        return value

    @staticmethod
    def _require_active(account: dict) -> None:
        if account["status"] == "frozen":
            raise ToolError("account_frozen", f"Account {account['nickname']} (****{account['last_four']}) is frozen; "
                                              "no money can move in or out until it is reviewed.")

    @staticmethod
    def _require_funds(account: dict, amount: float) -> None:
        if amount > account["available_balance"]:
            raise ToolError("insufficient_funds", f"{account['nickname']} has {account['available_balance']:.2f} "
                                                  f"{account['currency']} available, less than {amount:.2f}.")

    def _sent_today(self, customer_id: str, today: str) -> float:
        sent = self.state.find("transfers", customer_id=customer_id)
        return round(float(sum(t["amount"] for t in sent if t["date"] == today and t["kind"] == "payee")), 2)

    def _debit(self, account_id: str, amount: float) -> dict:
        account = self.state.edit("accounts", account_id)
        account["balance"] = round(account["balance"] - amount, 2)
        account["available_balance"] = round(account["available_balance"] - amount, 2)
        return account

    def _credit(self, account_id: str, amount: float) -> dict:
        account = self.state.edit("accounts", account_id)
        account["balance"] = round(account["balance"] + amount, 2)
        account["available_balance"] = round(account["available_balance"] + amount, 2)
        return account

    def _post(self, account_id: str, today: str, merchant: str, category: str, amount: float,
              direction: str, channel: str) -> None:
        transaction_id = f"TXN-{9 * 10**9 + self.state.next_id('transactions')}"
        self.state.insert("transactions", transaction_id, {
            "transaction_id": transaction_id, "account_id": account_id, "posted_on": today, "merchant": merchant,
            "category": category, "amount": amount, "direction": direction, "channel": channel,
            "status": "posted", "disputed": False,
        })

    # -- reads -----------------------------------------------------------------------------------
    @tool(errors=("customer_not_found", "invalid_contact"))
    def find_customer(self, email_or_phone: str) -> CustomerRef:
        """Find a customer's id from the email address or the phone number (any common US format) on their profile.

        Args:
            email_or_phone: The customer's email address (maria.chen12@example.com) or phone number ((503) 555-0142).
        """
        contact = email_or_phone.strip()
        if "@" in contact:
            customer = self.state.find_one("customers", email=contact.lower())
        else:
            digits = "".join(ch for ch in contact if ch.isdigit())
            if len(digits) == 10:
                digits = "1" + digits
            if len(digits) != 11 or not digits.startswith("1"):
                raise ToolError("invalid_contact", "Give an email address or a US phone number of 10 digits.")
            customer = self.state.find_one("customers", phone_digits=digits)
        if customer is None:
            raise ToolError("customer_not_found", "No customer has that email address or phone number.")
        return {"customer_id": customer["customer_id"], "name": f"{customer['first_name']} {customer['last_name']}"}

    @tool(errors=("customer_not_found",))
    def get_customer_profile(self, customer_id: str) -> CustomerProfile:
        """Get a customer's profile: contact details, accounts with balances, cards and daily transfer limit.

        Args:
            customer_id: The customer id, such as CUS-48213907.
        """
        customer = self._customer(customer_id)
        accounts = [{f: a[f] for f in ACCOUNT_FIELDS} for a in self.state.find("accounts", customer_id=customer_id)]
        cards = [{f: c[f] for f in CARD_FIELDS} for c in self.state.find("cards", customer_id=customer_id)]
        sent = self._sent_today(customer_id, self._today_iso())
        limit = customer["daily_transfer_limit"]
        return {
            "customer_id": customer_id, "name": f"{customer['first_name']} {customer['last_name']}",
            "email": customer["email"], "phone": customer["phone"], "address": customer["address"],
            "member_since": customer["member_since"], "currency": "USD",
            "total_balance": round(sum(a["balance"] for a in accounts), 2),
            "daily_transfer_limit": limit, "transferred_today": sent,
            "remaining_transfer_limit": round(max(limit - sent, 0.0), 2),
            "accounts": accounts, "cards": cards,
        }

    @tool(errors=("account_not_found",))
    def get_account_transactions(
        self, account_id: str, category: Optional[Category] = None, limit: int = 10
    ) -> AccountActivity:
        """Get an account's balance and its recent transactions (last 90 days), newest first.

        Args:
            account_id: The account id, such as ACC-4821937560.
            category: Only return transactions of this spending category.
            limit: Most transactions to return (1 to 50).
        """
        account = self._account(account_id)
        found = self.state.find("transactions", account_id=account_id)
        if category is not None:
            found = [t for t in found if t["category"] == category]
        found = sorted(found, key=lambda t: (t["posted_on"], t["transaction_id"]), reverse=True)
        found = found[: max(1, min(limit, MAX_TRANSACTIONS))]
        transactions = []
        for t in found:
            entry = {k: v for k, v in t.items() if k != "account_id" and k != "dispute_id"}
            entry["currency"] = account["currency"]
            transactions.append(entry)
        return {
            "account_id": account_id, "nickname": account["nickname"], "kind": account["kind"],
            "status": account["status"], "balance": account["balance"],
            "available_balance": account["available_balance"], "currency": account["currency"],
            "interest_rate": account["interest_rate"], "opened_on": account["opened_on"],
            "transaction_count": len(transactions), "transactions": transactions,
        }

    @tool(errors=("customer_not_found",))
    def list_payees(self, customer_id: str) -> PayeeList:
        """List a customer's saved payees (people they send money to) and billers (bills they pay, with amounts due).

        Args:
            customer_id: The customer id, such as CUS-48213907.
        """
        self._customer(customer_id)
        people = [{f: p[f] for f in PERSON_FIELDS} for p in self.state.find("payees", customer_id=customer_id)]
        billers = [{**{f: b[f] for f in BILLER_FIELDS}, "currency": "USD"}
                   for b in self.state.find("billers", customer_id=customer_id)]
        return {
            "customer_id": customer_id, "payee_count": len(people) + len(billers), "payees": people,
            "billers": billers, "total_due": round(sum(b["amount_due"] for b in billers), 2), "currency": "USD",
        }

    @tool(errors=("dispute_not_found",))
    def get_dispute_status(self, dispute_id: str) -> Dispute:
        """Get the status of a transaction dispute from its case number.

        Args:
            dispute_id: The dispute case number, such as DSP-2026-418230.
        """
        dispute = self.state.get("disputes", dispute_id.strip().upper())
        if dispute is None:
            raise ToolError("dispute_not_found", f"No dispute has case number {dispute_id}.")
        out = {k: v for k, v in dispute.items() if k != "account_id"}
        if dispute["status"] != "under_review":  # a closed case has no pending dates
            out["decision_expected_by"] = ""
            out["provisional_credit_by"] = ""
        out["account_nickname"] = self._account(dispute["account_id"])["nickname"]
        return out

    # -- writes ----------------------------------------------------------------------------------
    @tool(writes=True, errors=("account_not_found", "same_account", "not_own_account", "invalid_amount",
                               "account_frozen", "insufficient_funds"))
    def transfer_between_accounts(
        self, from_account_id: AccountRef, to_account_id: AccountRef, amount: float, memo: str = ""
    ) -> InternalTransfer:
        """Move money between two accounts of the same customer; it arrives immediately and has no daily limit.

        Args:
            from_account_id: The account to take the money from.
            to_account_id: The account to put the money into.
            amount: Amount in USD, such as 250.00.
            memo: Optional note shown on both accounts' history.
        """
        source, target = self._account(from_account_id), self._account(to_account_id)
        if from_account_id == to_account_id:
            raise ToolError("same_account", "The source and destination accounts are the same.")
        if source["customer_id"] != target["customer_id"]:
            raise ToolError("not_own_account", "Both accounts must belong to the same customer; "
                                               "use a payee transfer to send money to someone else.")
        amount = self._amount(amount)
        self._require_active(source)
        self._require_active(target)
        self._require_funds(source, amount)
        today = self._today()
        number = self.state.next_id("transfers")
        confirmation = f"TRF-{today:%Y%m%d}-{number:04d}"
        source, target = self._debit(from_account_id, amount), self._credit(to_account_id, amount)
        self._post(from_account_id, today.isoformat(), f"Transfer to {target['nickname']}", "transfer",
                   amount, "debit", "internal")
        self._post(to_account_id, today.isoformat(), f"Transfer from {source['nickname']}", "transfer",
                   amount, "credit", "internal")
        self.state.insert("transfers", confirmation, {
            "transfer_id": confirmation, "customer_id": source["customer_id"], "kind": "internal",
            "account_id": from_account_id, "to_account_id": to_account_id, "amount": amount, "currency": "USD",
            "date": today.isoformat(), "memo": memo,
        })
        return {
            "confirmation_number": confirmation, "status": "completed", "amount": amount,
            "currency": source["currency"], "from_account_id": from_account_id,
            "from_nickname": source["nickname"], "from_balance": source["balance"],
            "to_account_id": to_account_id, "to_nickname": target["nickname"], "to_balance": target["balance"],
            "memo": memo, "posted_on": today.isoformat(),
        }

    @tool(writes=True, errors=("account_not_found", "payee_not_found", "invalid_amount",
                               "account_frozen", "insufficient_funds", "daily_limit_exceeded"))
    def transfer_to_payee(self, account_id: str, payee_id: str, amount: float, memo: str = "") -> PayeeTransfer:
        """Send money from one of the customer's accounts to a saved payee (counts toward the daily transfer limit).

        Args:
            account_id: The account to send from.
            payee_id: The saved payee to send to, such as PYE-4821937.
            amount: Amount in USD, such as 120.00.
            memo: Optional note for the payee, such as "March rent".
        """
        account = self._account(account_id)
        payee = self._own_payee(payee_id, account)
        amount = self._amount(amount)
        self._require_active(account)
        self._require_funds(account, amount)
        customer = self._customer(account["customer_id"])
        today = self._today()
        remaining = round(customer["daily_transfer_limit"] - self._sent_today(customer["customer_id"],
                                                                              today.isoformat()), 2)
        if amount > remaining:
            raise ToolError("daily_limit_exceeded", f"That exceeds the daily transfer limit; "
                                                    f"{max(remaining, 0.0):.2f} USD can still be sent today.")
        number = self.state.next_id("transfers")
        confirmation = f"TRF-{today:%Y%m%d}-{number:04d}"
        account = self._debit(account_id, amount)
        self._post(account_id, today.isoformat(), f"Transfer to {payee['name']}", "transfer", amount, "debit",
                   "transfer")
        self.state.insert("transfers", confirmation, {
            "transfer_id": confirmation, "customer_id": customer["customer_id"], "kind": "payee",
            "account_id": account_id, "payee_id": payee_id, "amount": amount, "currency": "USD",
            "date": today.isoformat(), "memo": memo,
        })
        return {
            "confirmation_number": confirmation, "status": "sent", "amount": amount, "currency": account["currency"],
            "account_id": account_id, "account_nickname": account["nickname"], "balance": account["balance"],
            "payee_id": payee_id, "payee_name": payee["name"], "memo": memo, "sent_on": today.isoformat(),
            "expected_arrival": (today + timedelta(days=1)).isoformat(),
            "remaining_transfer_limit": round(remaining - amount, 2),
        }

    @tool(writes=True, errors=("account_not_found", "biller_not_found", "nothing_due",
                               "invalid_amount", "account_frozen", "insufficient_funds"))
    def pay_bill(self, account_id: str, biller_id: str, amount: Optional[float] = None) -> BillPayment:
        """Pay a saved biller from one of the customer's accounts; without an amount, the full amount due is paid.

        Args:
            account_id: The account to pay from.
            biller_id: The saved biller to pay, such as BLR-4821937.
            amount: Amount in USD; leave it out to pay the current bill in full.
        """
        account = self._account(account_id)
        current = self._own_biller(biller_id, account)
        if amount is None:
            if current["amount_due"] <= 0:
                raise ToolError("nothing_due", f"Nothing is currently due to {current['name']}.")
            amount = current["amount_due"]
        amount = self._amount(amount)
        self._require_active(account)
        self._require_funds(account, amount)
        today = self._today().isoformat()
        number = self.state.next_id("payments")
        confirmation = f"BP-{today.replace('-', '')}-{number:04d}"
        account = self._debit(account_id, amount)
        self._post(account_id, today, current["name"], "bill payment", amount, "debit", "ach")
        biller = self.state.edit("billers", biller_id)
        biller["amount_due"] = round(max(biller["amount_due"] - amount, 0.0), 2)
        biller["last_payment"] = {"confirmation_number": confirmation, "amount": amount, "paid_on": today}
        return {
            "confirmation_number": confirmation, "status": "paid", "amount": amount, "currency": account["currency"],
            "account_id": account_id, "account_nickname": account["nickname"], "balance": account["balance"],
            "biller_id": biller_id, "biller_name": biller["name"], "remaining_due": biller["amount_due"],
            "paid_on": today,
        }

    @tool(writes=True, errors=("card_not_found", "card_closed", "card_already_frozen"))
    def freeze_card(self, card_id: str) -> CardStatus:
        """Temporarily freeze a card so that new purchases and withdrawals are declined; it can be unfrozen later.

        Args:
            card_id: The card id, such as CRD-48213907.
        """
        current = self._card(card_id)
        if current["status"] == "closed":
            raise ToolError("card_closed", f"The card ending in {current['last_four']} is closed and cannot be frozen.")
        if current["status"] == "frozen":
            raise ToolError("card_already_frozen", f"The card ending in {current['last_four']} is already frozen.")
        card = self.state.edit("cards", card_id)
        card["status"] = "frozen"
        return {"card_id": card_id, "product_name": card["product_name"], "last_four": card["last_four"],
                "status": "frozen", "previous_status": current["status"], "updated_on": self._today().isoformat()}

    @tool(writes=True, errors=("card_not_found", "card_closed", "card_not_frozen"))
    def unfreeze_card(self, card_id: str) -> CardStatus:
        """Lift the freeze on a frozen card so it can be used again.

        Args:
            card_id: The card id, such as CRD-48213907.
        """
        current = self._card(card_id)
        if current["status"] == "closed":
            raise ToolError("card_closed", f"The card ending in {current['last_four']} is closed and cannot be unfrozen.")
        if current["status"] != "frozen":
            raise ToolError("card_not_frozen", f"The card ending in {current['last_four']} is not frozen.")
        card = self.state.edit("cards", card_id)
        card["status"] = "active"
        return {"card_id": card_id, "product_name": card["product_name"], "last_four": card["last_four"],
                "status": "active", "previous_status": "frozen", "updated_on": self._today().isoformat()}

    @tool(writes=True, errors=("card_not_found", "card_already_closed"))
    def report_lost_card(self, card_id: str, reason: Literal["lost", "stolen"]) -> LostCardReport:
        """Permanently close a lost or stolen card and order a replacement with a new number.

        Args:
            card_id: The card id, such as CRD-48213907.
            reason: Whether the card was lost or stolen.
        """
        current = self._card(card_id)
        if current["status"] == "closed":
            raise ToolError("card_already_closed", f"The card ending in {current['last_four']} is already closed.")
        customer = self._customer(current["customer_id"])
        today = self._today()
        number = self.state.next_id("cards")
        new_id = f"CRD-{9 * 10**7 + number}"
        last_four = f"{(int(current['last_four']) * 37 + number * 4129 + 1000) % 10000:04d}"
        if last_four == current["last_four"]:
            last_four = f"{(int(last_four) + 1) % 10000:04d}"
        expires = f"{today.year + 4}-{today.month:02d}"
        delivery = (today + timedelta(days=5)).isoformat()
        card = self.state.edit("cards", card_id)
        card.update(status="closed", reported_as=reason, replaced_by=new_id)
        self.state.insert("cards", new_id, {
            **{k: current[k] for k in ("customer_id", "kind", "product_name", "network", "linked_account")},
            "card_id": new_id, "last_four": last_four, "status": "active", "expires": expires,
        })
        return {
            "card_id": card_id, "last_four": current["last_four"], "status": "closed", "reported_as": reason,
            "reported_on": today.isoformat(),
            "replacement": {"card_id": new_id, "last_four": last_four, "expires": expires, "status": "active",
                            "ship_to": customer["address"], "estimated_delivery": delivery},
        }

    @tool(writes=True, errors=("transaction_not_found", "already_disputed", "transaction_pending", "not_a_charge",
                               "dispute_window_expired"))
    def dispute_transaction(self, transaction_id: str, reason: DisputeReason) -> Dispute:
        """Open a dispute on a posted charge from the last 60 days; a provisional credit follows while it is reviewed.

        Args:
            transaction_id: The transaction id, such as TXN-4821937560.
            reason: Why the customer disputes the charge.
        """
        current = self.state.get("transactions", transaction_id)
        if current is None:
            raise ToolError("transaction_not_found", f"No transaction has id {transaction_id}.")
        if current["disputed"]:
            raise ToolError("already_disputed", f"A dispute is already open on the {current['merchant']} transaction.")
        if current["status"] == "pending":
            raise ToolError("transaction_pending", "Pending transactions cannot be disputed until they post.")
        if current["direction"] != "debit" or current["channel"] in ("internal", "transfer"):
            raise ToolError("not_a_charge", f"The {current['merchant']} transaction is not a merchant charge; only "
                                            "card, ACH and check charges can be disputed.")
        today = self._today()
        age = (today - date.fromisoformat(current["posted_on"])).days
        if age > DISPUTE_WINDOW_DAYS:
            raise ToolError("dispute_window_expired", f"The charge posted {age} days ago; disputes must be opened "
                                                      f"within {DISPUTE_WINDOW_DAYS} days.")
        account = self._account(current["account_id"])
        number = self.state.next_id("disputes")
        dispute_id = f"DSP-{today.year}-{number:06d}"
        transaction = self.state.edit("transactions", transaction_id)
        transaction["disputed"] = True
        transaction["dispute_id"] = dispute_id
        record = {
            "dispute_id": dispute_id, "transaction_id": transaction_id, "merchant": current["merchant"],
            "amount": current["amount"], "currency": account["currency"], "reason": reason, "status": "under_review",
            "opened_on": today.isoformat(), "provisional_credit": current["amount"],
            "provisional_credit_by": (today + timedelta(days=10)).isoformat(),
            "decision_expected_by": (today + timedelta(days=45)).isoformat(),
            "resolution": "", "resolved_on": "",
        }
        self.state.insert("disputes", dispute_id, {**record, "account_id": current["account_id"]})
        return {**record, "account_nickname": account["nickname"]}
