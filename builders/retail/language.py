"""How customers of the store talk: intents per tool, references to entities, value samplers."""

from __future__ import annotations

import random
from typing import Any

from builders.retail.state import CITIES, STREETS
from covert.env import Intent, Language, Reference, State
from covert.env.policy import Identity


def _user(rng: random.Random, state: State) -> dict[str, Any]:
    return state.get("users", rng.choice(state.ids("users")))


def _status_in(*statuses: str):
    """Whether an order is in one of ``statuses`` (the state a tool's precondition asks of it)."""
    def test(state: State, order: dict[str, Any]) -> bool:
        return order["status"] in statuses
    return test


def _shipped(state: State, order: dict[str, Any]) -> bool:
    """An order with a shipment to track."""
    return bool(order.get("fulfillment"))


def _order_where(test):
    def sample(rng: random.Random, state: State) -> str:
        ids = [k for k, o in state.records("orders") if test(state, o)] or state.ids("orders")
        return rng.choice(ids)
    return sample


_PENDING = _status_in("pending")
_DELIVERED = _status_in("delivered")


def _name_zip(rng: random.Random, state: State) -> dict[str, str]:
    user = _user(rng, state)
    return {"first_name": user["first_name"], "last_name": user["last_name"], "zip": user["address"]["zip"]}


def _new_address(rng: random.Random, state: State) -> dict[str, str]:
    city, region, prefix = rng.choice(CITIES)
    return {"address1": f"{rng.randrange(10, 999)} {rng.choice(STREETS)}", "city": city, "state": region,
            "zip": f"{prefix}{rng.randrange(10, 99)}"}


ADDRESS_ASK = "{address1}, {city}, {state} {zip}"

IDENTITY = Identity(
    table="users", tools=("find_user_id_by_email", "find_user_id_by_name_zip"), output_field="user_id",
    owners={"orders": "user_id"}, self_params=("email",),
    requirement="Identify the customer before acting on their account.",
    signed_in="The customer is signed in to the store as {first_name} {last_name} ({email}), so they are already "
              "identified; act only on their own account and orders.",
)


LANGUAGE = Language(
    scope="orders, returns, deliveries and account details at our online store",
    intents={
        "find_user_id_by_email": (
            Intent(ask=("can you look up my account? I'm {email}", "look me up, I'm {email}", "what do you have on file for {email}?", "find my account: {email}"),
                   answer=("Thanks, {name}, I found your account.",
                           "I have your account up, {name}.",
                           "Your account is under {name}."),
                   context=("this is {email}", "my account email is {email}", "I shop with you as {email}", "my orders go to {email}", "I'm under {email}", "{email} is the email I order with", "I signed up with {email}", "my login is {email}", "I order as {email}", "you'll have me as {email}", "my orders are under {email}", "I buy from you as {email}", "my store login is {email}", "the account's {email}", "account: {email}")),
        ),
        # a lookup on the way only: all it returns besides the internal id is the name the user just gave,
        # so as a request of its own its answer could tell them nothing (the row would be trivial)
        "find_user_id_by_name_zip": (
            Intent(ask=(), answer=(),
                   context=("I'm {first_name} {last_name} and my ZIP code is {zip}",
                            "my name is {first_name} {last_name}, ZIP {zip}", "{first_name} {last_name} here, ZIP code {zip}", "this is {first_name} {last_name} in {zip}", "I'm {first_name} {last_name}, zip {zip}", "the account is {first_name} {last_name}, ZIP {zip}")),
        ),
        "get_user_details": (
            Intent(ask=("which payment methods do I have on file?", "what cards and payment options are saved on my account?", "which ways of paying are saved on my account?", "what's on my account?"),
                   answer=("You have {payment_methods:n:payment method} on file: {payment_methods:list:kind@status}.",
                           "On file for {name}: {payment_methods:list:kind@status}.",
                           "Your saved payment methods are {payment_methods:list:kind@status}.")),
            Intent(ask=("what address do you have for me?", "what's my shipping address on file?", "where do you ship my stuff by default?", "what address are my orders going to?"),
                   answer=("The address on your account is {address.address1}, {address.city}, {address.state} {address.zip}.",
                           "We ship to {address.address1}, {address.city}, {address.state} {address.zip} by default.",
                           "Your default address: {address.address1}, {address.city} {address.zip}.")),
        ),
        "get_order_details": (
            Intent(ask=("what's the status of {order_id}?", "is {order_id} still processing?", "can you tell me where {order_id} stands?",
                        "has {order_id} gone through yet?", "any news on {order_id}?", "what's happening with {order_id}?", "did {order_id} go out yet?", "has {order_id} been processed yet? I ordered a while ago", "check {order_id} for me", "was {order_id} shipped or is it still pending?"),
                   answer=("{?status~processed,delivered,cancelled,returned}Order {order_id} is currently {status:status}.",
                           "{?status=processed,delivered,cancelled,returned}Order {order_id} has been {status:status}.",
                           "{order_id} ({items:list:name}) is {status:status}.",
                           "Your order {order_id}, placed on {placed_at:date}, is {status:status}."),
                   context=("it's about {order_id}", "I'm writing about {order_id}", "my order number is {order_id}", "I placed {order_id}")),
            Intent(ask=("how much did I pay for {order_id}?", "how much did {order_id} cost me?", "what was the total on {order_id}?", "I'm checking my statement; how much did {order_id} come to?", "how much did I spend on {order_id}?", "how much was {order_id}?"),
                   answer=("Order {order_id} came to {total:money}.",
                           "You paid {total:money} for {order_id}.",
                           "The total on {order_id} was {total:money} for {items:list:name|price@money}.")),
        ),
        "track_order": (
            Intent(ask=("when will {order_id} arrive?", "when should {order_id} get to me?", "is {order_id} out for delivery yet?", "where is {order_id}? I'd like the tracking number",
                        "can I get tracking info for {order_id}?", "I'm waiting in for {order_id}; when's it getting here?", "tracking number for {order_id}?"),
                   answer=("{?status=delivered}Order {order_id} was delivered by {carrier}; the tracking number is {tracking_number}.",
                           "{?status~delivered}Order {order_id} is with {carrier} (tracking {tracking_number}) and should arrive by {estimated_delivery:date}.",
                           "{?status~delivered}{carrier} has {order_id}; expect it by {estimated_delivery:date}, tracking number {tracking_number}."),
                   context=("{order_id} has shipped already",)),
        ),
        "list_products": (
            Intent(ask=("what {category} products do you sell?", "which {category} products do you have?", "list your {category} products", "can you show me your {category} range?",
                        "what products do you sell?", "can you show me everything you carry?", "I'm shopping for a gift; show me your {category} products"),
                   answer=("We carry {products:n:product}: {products:list:name|lowest_price@money}.",
                           "That range has {products:list:name|lowest_price@money}.",
                           "You can choose from {products:list:name}.",
                           "{?products=}We carry {count:n:product} in that range at the moment."),
                   context=("I was browsing your {category} products",)),
        ),
        "get_product_details": (
            Intent(ask=("what options does {product_id} come in?", "what are the options for {product_id}?", "what versions of {product_id} do you make?", "which variants of {product_id} are there?"),
                   answer=("The {name} comes in {variants:list:options|price@money}.",
                           "Options for the {name}: {variants:list:options|price@money}.",
                           "We have the {name} in {variants:n:version}: {variants:list:options}.")),
            # in stock means available: only the variants the output marks available are named
            Intent(ask=("which versions of {product_id} are in stock?", "which {product_id} options can I order today?", "is {product_id} in stock? Which versions?", "which options of {product_id} can I buy right now?",
                        "what versions of {product_id} are available at the moment?"),
                   answer=("In stock right now: {variants:list:options|price@money?available}.",
                           "You can get the {name} in {variants:list:options?available} at the moment.",
                           "These {name} versions are available: {variants:list:options|price@money?available}.")),
        ),
        "cancel_pending_order": (
            Intent(ask=("please cancel {order_id}, reason: {reason}", "I changed my mind: cancel {order_id}, {reason}", "I want to cancel {order_id} — {reason}",
                        "I'd like my money back for {order_id} before it ships; {reason}", "cancel {order_id}: {reason}", "stop {order_id} before it goes out — {reason}"),
                   answer=("Order {order_id} is cancelled, and {refund.amount:money} will be refunded to your original payment method.",
                           "I cancelled {order_id}; a refund of {refund.amount:money} is on its way.",
                           "{order_id} won't ship now. You'll get {refund.amount:money} back.")),
        ),
        "return_delivered_order_items": (
            Intent(ask=("I want to return {item_ids} from {order_id} and get the refund on {payment_method_id}", "send back {item_ids} from {order_id}; put the refund on {payment_method_id}",
                        "I'd like to send back {item_ids} from {order_id}; please refund {payment_method_id}", "return {item_ids} from {order_id}, refund to {payment_method_id}"),
                   answer=("Return {return_id} is open for order {order_id}; {refund.amount:money} goes back to the payment method you chose.",
                           "Your return of {returned_items} from {order_id} is set up as {return_id}, for a refund of {refund.amount:money}.",
                           "I've started return {return_id} ({returned_items}); you'll be refunded {refund.amount:money}.")),
        ),
        "modify_pending_order_address": (
            Intent(ask=("please ship {order_id} to " + ADDRESS_ASK + " instead",
                        "send {order_id} to " + ADDRESS_ASK + ", not my old address",
                        "change the delivery address on {order_id} to " + ADDRESS_ASK,
                        "I've moved — can {order_id} go to " + ADDRESS_ASK + "?"),
                   answer=("Order {order_id} will now ship to {shipping_address.address1}, {shipping_address.city}.",
                           "I updated {order_id}: it goes to {shipping_address.address1}, {shipping_address.city}, {shipping_address.state} {shipping_address.zip}.",
                           "{order_id} now ships to {shipping_address.address1} in {shipping_address.city}.")),
        ),
        "modify_user_address": (
            Intent(ask=("please update my address to " + ADDRESS_ASK,
                        "my new address is " + ADDRESS_ASK + "; update my profile",
                        "change my default address to " + ADDRESS_ASK,
                        "I moved to " + ADDRESS_ASK + "; can you change it on my profile?"),
                   answer=("Your profile address is now {shipping_address.address1}, {shipping_address.city}.",
                           "I changed your default address to {shipping_address.address1}, {shipping_address.city}, {shipping_address.state} {shipping_address.zip}.",
                           "Your account now has {shipping_address.address1}, {shipping_address.city} as its address.")),
        ),
    },
    references={
        "user_id": Reference(noun="account", plural="accounts", by_id=("account {value}",), user_knows_id=False),
        "order_id": Reference(
            noun="order", plural="orders", by_id=("order {value}", "my order {value}", "order number {value}", "{value}"),
            by_field={"item_names": ("my order with the {value}", "the order that had the {value}"),
                      "placed_at": ("the order I placed on {value}",)},
            superlative={"total": ("my most expensive order", "my cheapest order")},
        ),
        "item_id": Reference(noun="item", plural="items", user_knows_id=False,
                             by_field={"name": ("the {value}",), "options": ("the {value} version",)},
                             superlative={"price": ("the priciest item", "the cheapest item")}),
        "payment_method_id": Reference(noun="payment method", plural="payment methods", user_knows_id=False,
                                       by_field={"kind": ("my {value}",)}),
        "product_id": Reference(noun="product", plural="products", user_knows_id=False,
                                by_field={"name": ("the {value}",)},
                                superlative={"lowest_price": ("your most expensive product", "your cheapest product")}),
    },
    entity_tables={"user_id": "users", "order_id": "orders", "product_id": "products"},
    values={
        "email": lambda rng, state: _user(rng, state)["email"],
        "find_user_id_by_name_zip": _name_zip,
        "modify_pending_order_address": _new_address,
        "modify_user_address": _new_address,
        "cancel_pending_order.order_id": _order_where(_PENDING),
        "modify_pending_order_address.order_id": _order_where(_PENDING),
        "track_order.order_id": _order_where(_shipped),
        "return_delivered_order_items.order_id": _order_where(_DELIVERED),
    },
    eligible={
        "cancel_pending_order.order_id": _PENDING,
        "modify_pending_order_address.order_id": _PENDING,
        "track_order.order_id": _shipped,
        "return_delivered_order_items.order_id": _DELIVERED,
    },
    field_nouns={"total": "order total", "lowest_price": "starting price", "price": "price", "balance": "balance"},
    out_of_scope=(
        "Can you recommend a good novel for a long flight?",
        "What's the weather going to be like in Lisbon this weekend?",
        "Can you help me write a cover letter for a marketing job?",
        "How do I convert 350 degrees Fahrenheit to Celsius?",
        "Who won the football match last night?",
        "Can you book me a table for two at an Italian restaurant tonight?",
        "What's a good stretching routine for lower back pain?",
        "Translate 'where is the train station' into Japanese, please.",
        # near the domain: requests the tools look like they could serve, but do not
        "Can you drop the price of the {products.name}? It's cheaper at another store.",
        "I saw the {products.name} for less elsewhere. Will you price-match it?",
        "Could you give me a discount code for my next order?",
        "Can you swap an item in my order {orders.order_id} for a different color?",
        "Can you add another item to my pending order?",
        "Can you upgrade my order {orders.order_id} to express shipping?",
        "Can you leave a review of the {products.name} for me?",
        "Can you gift-wrap my order before it ships?",
        "Can you split my order {orders.order_id} into two shipments?",
        "Can you hold a {products.name} for me until payday?",
        "Please sign me up for your newsletter.",
        "Can you change the card I paid with on order {orders.order_id}?",
        "Where's your nearest physical store?",
        "Can you change the price of the {products.name} in your catalog?",
        "Can you add a new product to your store? I'd love a blue version of the {products.name}.",
        "Can you apply my friend's employee discount to my order?",
    ),
    identity=IDENTITY,
)
