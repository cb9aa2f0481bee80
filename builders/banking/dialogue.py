"""How the assistant restates banking changes before making them (see covert.language.phrasing)."""

ACTIONS = {
    "transfer_between_accounts": ("move {amount} USD from {from_account_id} to {to_account_id} (memo: {memo})",
                                  "move {amount} USD from {from_account_id} to {to_account_id}"),
    "transfer_to_payee": ("send {amount} USD from {account_id} to {payee_id} (memo: {memo})",
                          "send {amount} USD from {account_id} to {payee_id}"),
    "pay_bill": ("pay {amount} USD to {biller_id} from {account_id}", "pay {biller_id} from {account_id}"),
    "freeze_card": ("freeze {card_id}",),
    "unfreeze_card": ("unfreeze {card_id}",),
    "report_lost_card": ("report {card_id} as {reason}, which closes it and orders a replacement",),
    "dispute_transaction": ("dispute {transaction_id} (reason: {reason})",),
}
