"""Python attributes set on `self` are members a developer jumps to (`HttpRequest.META`,
`Field.null`): before they were read, the scoped query answered another class's
member of a similar name. One real git repository, indexed by the real `rq --index`,
answered by the QueryService every face calls."""

from __future__ import annotations

from tests.search.served import Ask, ask_fixture, top

CORPUS = {
    "http/request.py": (
        "class HttpRequest:\n"
        "    def __init__(self):\n"
        "        self.GET = {}\n"
        "        self.META = {}\n"
        "        self._stream = None\n"
        "        self.path, self.method = '', None\n"
        "\n"
        "    def read(self):\n"
        "        self.META = dict(self.META)\n"
        "        self.body = b''\n"
        "        return self.body\n"
    ),
    "models/redirect.py": (
        "class Redirect:\n    class Meta:\n        ordering = ['old_path']\n\n"
        "    def get(self):\n        return None\n"
    ),
}

ask = ask_fixture("attrs", CORPUS, 5)


def test_an_attribute_set_in_init_answers_its_scoped_name(ask: Ask) -> None:
    assert top(ask, "HttpRequest.META") == ("http/request.py", 4, "field")
    assert top(ask, "HttpRequest.GET") == ("http/request.py", 3, "field")


def test_an_attribute_first_set_outside_init_is_declared_where_it_is_first_set(
    ask: Ask,
) -> None:
    assert top(ask, "HttpRequest.body") == ("http/request.py", 10, "field")


def test_each_attribute_of_a_tuple_assignment_is_declared(ask: Ask) -> None:
    for query in ("HttpRequest.path", "HttpRequest.method"):
        assert top(ask, query) == ("http/request.py", 6, "field")


def test_a_private_attribute_is_not_a_definition(ask: Ask) -> None:
    assert all(h.name != "_stream" for h in ask("_stream"))
