"""A tiny lending library, registered with covert from its own package (entry point covert.environments)."""

from __future__ import annotations

import random
from typing import Any, TypedDict

from covert.env import Builder, Environment, Intent, Language, Reference, State, ToolError, tool

TITLES = ("Dune", "Emma", "Ulysses", "Beloved", "Hamlet", "Walden", "Middlemarch", "Persuasion", "Kindred", "Ivanhoe")


class Book(TypedDict):
    """One book of the library.

    Attributes:
        book_id: The book's id.
        title: The title.
        copies: Copies on the shelf.
    """

    book_id: str
    title: str
    copies: int


class Loan(TypedDict):
    """A loan just made.

    Attributes:
        book_id: The book lent.
        copies: Copies left on the shelf.
    """

    book_id: str
    copies: int


class LibraryEnv(Environment):
    """The library's tools."""

    name = "tinylibrary"

    @tool(errors=("book_not_found",))
    def get_book(self, book_id: str) -> Book:
        """Get a book's title and the copies on the shelf.

        Args:
            book_id: The book's id, such as B104.
        """
        book = self.state.get("books", book_id)
        if book is None:
            raise ToolError("book_not_found", f"No book has id {book_id}.")
        return {"book_id": book_id, "title": book["title"], "copies": book["copies"]}

    @tool(writes=True, errors=("book_not_found", "no_copies_left"))
    def lend_book(self, book_id: str) -> Loan:
        """Lend one copy of a book.

        Args:
            book_id: The book's id, such as B104.
        """
        if self.state.get("books", book_id) is None:
            raise ToolError("book_not_found", f"No book has id {book_id}.")
        book = self.state.edit("books", book_id)
        if book["copies"] < 1:
            raise ToolError("no_copies_left", f"Every copy of {book_id} is out.")
        book["copies"] -= 1
        return {"book_id": book_id, "copies": book["copies"]}


def make_state(rng: random.Random, scale: int) -> dict[str, Any]:
    """Seeded books: ids, titles and copies."""
    books = {f"B{100 + i}": {"book_id": f"B{100 + i}", "title": title, "copies": rng.randint(1, 4)}
             for i, title in enumerate(rng.sample(TITLES, min(len(TITLES), 4 + 2 * scale)))}
    return {"tables": {"books": books}, "counters": {}}


def _book(rng: random.Random, state: State) -> str:
    return rng.choice(state.ids("books"))


LANGUAGE = Language(
    scope="books and loans of a lending library",
    intents={
        "get_book": (Intent(ask=("how many copies of {book_id} are on the shelf?", "look up {book_id}"),
                            answer=("{title} has {copies} copies on the shelf.",)),),
        "lend_book": (Intent(ask=("lend me {book_id}", "I'd like to borrow {book_id}"),
                             answer=("Done: {copies} copies are left.",)),),
    },
    references={"book_id": Reference(noun="book", plural="books", by_id=("book {value}",),
                                     by_field={"title": ("the book titled {value}",)})},
    entity_tables={"book_id": "books"},
    values={"book_id": _book},
)

BUILDER = Builder(name="tinylibrary", version="1.0.0", description="A lending library: look up and lend books.",
                  environment=LibraryEnv, make_state=make_state, language=LANGUAGE,
                  system_prompt="You are the librarian's assistant. Look books up before lending them.",
                  license="MIT", sources=("Written for covert's plugin test; all values are synthetic.",))
