"""Retail tools: customers, orders, returns and the product catalogue."""

from __future__ import annotations

from typing import Literal, Optional, TypedDict

from covert.env import Environment, ToolError, tool
from covert.language.values import join_phrases

STORE_CURRENCY = "USD"  # the currency of the catalogue's prices (orders carry theirs)


class UserRef(TypedDict):
    """A customer's id and name.

    Attributes:
        user_id: The customer's user id.
        name: The customer's full name, to greet them by.
    """

    user_id: str
    name: str


class Address(TypedDict):
    """A postal address.

    Attributes:
        address1: Street and number.
        address2: Apartment or suite, may be empty.
        city: City.
        state: State code.
        zip: ZIP code.
        country: Country.
    """

    address1: str
    address2: str
    city: str
    state: str
    zip: str
    country: str


class PaymentMethod(TypedDict, total=False):
    """A saved payment method.

    Attributes:
        payment_method_id: Id of the payment method.
        kind: credit_card, gift_card or paypal.
        brand: Card brand, for cards.
        last_four: Last four digits, for cards.
        balance: Remaining balance in USD, for gift cards.
    """

    payment_method_id: str
    kind: str
    brand: str
    last_four: str
    balance: float


class OrderSummary(TypedDict):
    """One order in a customer's history.

    Attributes:
        order_id: The order id.
        status: pending, processed, delivered, cancelled or returned.
        placed_at: Date the order was placed (YYYY-MM-DD).
        total: Order total.
        currency: Currency code of the total.
        item_names: Names of the ordered products, each once ("Desk Lamp, Kettle and Mug").
    """

    order_id: str
    status: str
    placed_at: str
    total: float
    currency: str
    item_names: str


class UserDetails(TypedDict):
    """A customer profile.

    Attributes:
        user_id: The customer's user id.
        name: Full name.
        email: Email address.
        address: Default shipping address.
        payment_methods: Saved payment methods.
        orders: The customer's orders, newest first.
        member_since: Date the account was opened.
    """

    user_id: str
    name: str
    email: str
    address: Address
    payment_methods: list[PaymentMethod]
    orders: list[OrderSummary]
    member_since: str


class OrderItem(TypedDict):
    """A line of an order.

    Attributes:
        item_id: Id of the exact product variant.
        product_id: Id of the product.
        name: Product name.
        options: The variant's options.
        price: Price paid in USD.
    """

    item_id: str
    product_id: str
    name: str
    options: str
    price: float


class OrderDetails(TypedDict):
    """A full order.

    Attributes:
        order_id: The order id.
        user_id: The customer who placed it.
        status: pending, processed, delivered, cancelled or returned.
        items: Ordered items.
        total: Order total.
        currency: Currency code.
        placed_at: Date placed (YYYY-MM-DD).
        payment_method_id: The payment method charged.
        shipping_address: Where it ships.
    """

    order_id: str
    user_id: str
    status: str
    items: list[OrderItem]
    total: float
    currency: str
    placed_at: str
    payment_method_id: str
    shipping_address: Address


class Refund(TypedDict):
    """A refund.

    Attributes:
        amount: Amount refunded.
        currency: Currency code.
        payment_method_id: Where the money goes.
    """

    amount: float
    currency: str
    payment_method_id: str


class CancelResult(TypedDict):
    """A cancelled order.

    Attributes:
        order_id: The order id.
        status: Always cancelled.
        reason: The cancellation reason.
        refund: The refund issued.
    """

    order_id: str
    status: str
    reason: str
    refund: Refund


class ReturnResult(TypedDict):
    """A return request.

    Attributes:
        return_id: Id of the return.
        order_id: The order id.
        status: The order's new status.
        returned_items: Names of the returned items.
        refund: The refund issued.
    """

    return_id: str
    order_id: str
    status: str
    returned_items: list[str]
    refund: Refund


class AddressResult(TypedDict):
    """An updated address.

    Attributes:
        order_id: The order id, when an order's address changed.
        user_id: The user id, when a profile address changed.
        shipping_address: The new address.
    """

    order_id: str
    user_id: str
    shipping_address: Address


class ProductSummary(TypedDict):
    """A product in the catalogue.

    Attributes:
        product_id: The product id.
        name: Product name.
        category: Category.
        lowest_price: Cheapest variant price in USD.
    """

    product_id: str
    name: str
    category: str
    lowest_price: float


class ProductList(TypedDict):
    """Catalogue listing.

    Attributes:
        count: Number of matching products.
        products: The matching products.
        currency: Currency code of the prices.
    """

    count: int
    products: list[ProductSummary]
    currency: str


class Variant(TypedDict):
    """A product variant.

    Attributes:
        item_id: Id of the variant.
        options: Its options.
        price: Price in USD.
        available: Whether it is in stock.
    """

    item_id: str
    options: str
    price: float
    available: bool


class ProductDetails(TypedDict):
    """A product with its variants.

    Attributes:
        product_id: The product id.
        name: Product name.
        category: Category.
        variants: All variants.
        currency: Currency code of the prices.
    """

    product_id: str
    name: str
    category: str
    variants: list[Variant]
    currency: str


class Tracking(TypedDict):
    """Shipment tracking.

    Attributes:
        order_id: The order id.
        status: Order status.
        carrier: Shipping carrier.
        tracking_number: Carrier tracking number.
        estimated_delivery: Expected delivery date.
    """

    order_id: str
    status: str
    carrier: str
    tracking_number: str
    estimated_delivery: str


Category = Literal["kitchen", "home", "sports", "electronics", "travel", "office"]


class RetailEnv(Environment):
    """An online store's back office."""

    name = "retail"

    # -- helpers ---------------------------------------------------------------------------------
    def _user(self, user_id: str) -> dict:
        user = self.state.get("users", user_id)
        if user is None:
            raise ToolError("user_not_found", f"No customer has user id {user_id}.")
        return user

    def _order(self, order_id: str) -> dict:
        order = self.state.get("orders", order_id)
        if order is None:
            raise ToolError("order_not_found", f"No order has id {order_id}.")
        return order

    def _method(self, user: dict, payment_method_id: str) -> dict:
        for method in user["payment_methods"]:
            if method["payment_method_id"] == payment_method_id:
                return method
        raise ToolError("payment_method_not_found", f"{payment_method_id} is not a payment method of this customer.")

    # -- reads -----------------------------------------------------------------------------------
    @tool(errors=("user_not_found",))
    def find_user_id_by_email(self, email: str) -> UserRef:
        """Find a customer's user id from their email address.

        Args:
            email: The customer's email address, such as maria.chen12@example.com.
        """
        user = self.state.find_one("users", email=email.strip().lower())
        if user is None:
            raise ToolError("user_not_found", "No customer has that email address.")
        return {"user_id": user["user_id"], "name": f"{user['first_name']} {user['last_name']}"}

    @tool(errors=("user_not_found",))
    def find_user_id_by_name_zip(self, first_name: str, last_name: str, zip: str) -> UserRef:
        """Find a customer's user id from their full name and ZIP code.

        Args:
            first_name: The customer's first name.
            last_name: The customer's last name.
            zip: The ZIP code of the customer's address.
        """
        for user in self.state.find("users", first_name=first_name.strip().title()):
            if user["last_name"].lower() == last_name.strip().lower() and user["address"]["zip"] == zip.strip():
                return {"user_id": user["user_id"], "name": f"{user['first_name']} {user['last_name']}"}
        raise ToolError("user_not_found", "No customer matches that name and ZIP code.")

    @tool(errors=("user_not_found",))
    def get_user_details(self, user_id: str) -> UserDetails:
        """Get a customer's profile, saved payment methods and order history.

        Args:
            user_id: The customer's user id, such as maria_chen_4127.
        """
        user = self._user(user_id)
        orders = []
        for order_id in reversed(user["orders"]):
            order = self.state.get("orders", order_id)
            if order is not None:
                orders.append({
                    "order_id": order_id, "status": order["status"], "placed_at": order["placed_at"],
                    "total": order["total"], "currency": order["currency"],
                    "item_names": join_phrases(list(dict.fromkeys(i["name"] for i in order["items"]))),
                })
        return {
            "user_id": user_id, "name": f"{user['first_name']} {user['last_name']}", "email": user["email"],
            "address": dict(user["address"]), "payment_methods": [dict(m) for m in user["payment_methods"]],
            "orders": orders, "member_since": user["member_since"],
        }

    @tool(errors=("order_not_found",))
    def get_order_details(self, order_id: str) -> OrderDetails:
        """Get the full details of an order: status, items, total, payment and shipping address.

        Args:
            order_id: The order id, such as #W8812345.
        """
        order = self._order(order_id)
        out = {k: v for k, v in order.items() if k != "fulfillment"}
        out["items"] = [dict(i) for i in order["items"]]
        out["shipping_address"] = dict(order["shipping_address"])
        return out

    @tool(errors=("order_not_found", "order_not_shipped"))
    def track_order(self, order_id: str) -> Tracking:
        """Get the carrier, tracking number and expected delivery date of a shipped order.

        Args:
            order_id: The order id, such as #W8812345.
        """
        order = self._order(order_id)
        if not order.get("fulfillment"):
            raise ToolError("order_not_shipped", f"Order {order_id} has not shipped yet (status {order['status']}).")
        return {"order_id": order_id, "status": order["status"], **order["fulfillment"]}

    @tool()
    def list_products(self, category: Optional[Category] = None) -> ProductList:
        """List the products in the catalogue, optionally only one category.

        Args:
            category: Only list products of this category.
        """
        products = []
        for product_id, product in self.state.records("products"):
            if category is not None and product["category"] != category:
                continue
            prices = [v["price"] for v in product["variants"].values()]
            products.append({"product_id": product_id, "name": product["name"],
                             "category": product["category"], "lowest_price": min(prices)})
        return {"count": len(products), "products": products, "currency": STORE_CURRENCY}

    @tool(errors=("product_not_found",))
    def get_product_details(self, product_id: str) -> ProductDetails:
        """Get a product's variants with their options, prices and stock.

        Args:
            product_id: The product id.
        """
        product = self.state.get("products", product_id)
        if product is None:
            raise ToolError("product_not_found", f"No product has id {product_id}.")
        return {"product_id": product_id, "name": product["name"], "category": product["category"],
                "variants": [dict(v) for v in product["variants"].values()], "currency": STORE_CURRENCY}

    # -- writes ----------------------------------------------------------------------------------
    @tool(writes=True, errors=("order_not_found", "order_not_pending"))
    def cancel_pending_order(
        self, order_id: str, reason: Literal["no longer needed", "ordered by mistake"]
    ) -> CancelResult:
        """Cancel an order that has not been processed yet and refund it to the original payment method.

        Args:
            order_id: The order id, such as #W8812345.
            reason: Why the customer cancels.
        """
        if self._order(order_id)["status"] != "pending":
            raise ToolError("order_not_pending", f"Only pending orders can be cancelled; {order_id} is {self._order(order_id)['status']}.")
        order = self.state.edit("orders", order_id)
        order["status"] = "cancelled"
        order["cancel_reason"] = reason
        refund = {"amount": order["total"], "currency": order["currency"], "payment_method_id": order["payment_method_id"]}
        return {"order_id": order_id, "status": "cancelled", "reason": reason, "refund": refund}

    @tool(writes=True, errors=("order_not_found", "order_not_delivered", "item_not_in_order",
                               "payment_method_not_found", "no_items"))
    def return_delivered_order_items(self, order_id: str, item_ids: list[str], payment_method_id: str) -> ReturnResult:
        """Return items of a delivered order and refund them to a payment method of the customer.

        Args:
            order_id: The order id, such as #W8812345.
            item_ids: Ids of the items to return.
            payment_method_id: The payment method that receives the refund.
        """
        current = self._order(order_id)
        if current["status"] != "delivered":
            raise ToolError("order_not_delivered", f"Only delivered orders can be returned; {order_id} is {current['status']}.")
        if not item_ids:
            raise ToolError("no_items", "Name at least one item to return.")
        by_id = {i["item_id"]: i for i in current["items"]}
        missing = [i for i in item_ids if i not in by_id]
        if missing:
            raise ToolError("item_not_in_order", f"Item {missing[0]} is not part of order {order_id}.")
        self._method(self._user(current["user_id"]), payment_method_id)
        order = self.state.edit("orders", order_id)
        order["status"] = "returned"
        number = self.state.next_id("returns")
        return_id = f"RT-{order_id[2:]}-{number:03d}"
        order["return"] = {"return_id": return_id, "item_ids": list(item_ids), "payment_method_id": payment_method_id}
        amount = round(sum(by_id[i]["price"] for i in item_ids), 2)
        return {"return_id": return_id, "order_id": order_id, "status": "returned",
                "returned_items": [by_id[i]["name"] for i in item_ids],
                "refund": {"amount": amount, "currency": current["currency"], "payment_method_id": payment_method_id}}

    @tool(writes=True, errors=("order_not_found", "order_not_pending", "invalid_zip"))
    def modify_pending_order_address(
        self, order_id: str, address1: str, city: str, state: str, zip: str, address2: str = "", country: str = "USA"
    ) -> AddressResult:
        """Change the shipping address of an order that has not shipped yet.

        Args:
            order_id: The order id, such as #W8812345.
            address1: Street and number.
            city: City.
            state: Two-letter state code.
            zip: Five-digit ZIP code.
            address2: Apartment or suite.
            country: Country.
        """
        if self._order(order_id)["status"] != "pending":
            raise ToolError("order_not_pending", f"Only pending orders can change address; {order_id} is {self._order(order_id)['status']}.")
        if not (len(zip) == 5 and zip.isdigit()):
            raise ToolError("invalid_zip", "A ZIP code has five digits.")
        order = self.state.edit("orders", order_id)
        order["shipping_address"] = {"address1": address1, "address2": address2, "city": city, "state": state,
                                     "zip": zip, "country": country}
        return {"order_id": order_id, "user_id": order["user_id"], "shipping_address": dict(order["shipping_address"])}

    @tool(writes=True, errors=("user_not_found", "invalid_zip"))
    def modify_user_address(
        self, user_id: str, address1: str, city: str, state: str, zip: str, address2: str = "", country: str = "USA"
    ) -> AddressResult:
        """Change the default address on a customer's profile.

        Args:
            user_id: The customer's user id.
            address1: Street and number.
            city: City.
            state: Two-letter state code.
            zip: Five-digit ZIP code.
            address2: Apartment or suite.
            country: Country.
        """
        self._user(user_id)
        if not (len(zip) == 5 and zip.isdigit()):
            raise ToolError("invalid_zip", "A ZIP code has five digits.")
        user = self.state.edit("users", user_id)
        user["address"] = {"address1": address1, "address2": address2, "city": city, "state": state,
                           "zip": zip, "country": country}
        return {"order_id": "", "user_id": user_id, "shipping_address": dict(user["address"])}
