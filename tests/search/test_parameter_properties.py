"""Constructor parameters that declare a property (TypeScript's `private readonly http`,
PHP 8's promoted `private Router $router`) are members a developer jumps to: before
they were read, `Client.http` answered "no match". One real git repository, indexed
by the real `rq --index`, answered by the QueryService every face calls."""

from __future__ import annotations

from tests.search.served import Ask, ask_fixture, top

CORPUS = {
    "web/client.ts": (
        "export class Client {\n"
        "  constructor(\n"
        "    private readonly http: Http,\n"
        "    public baseUrl: string,\n"
        "    retries: number,\n"
        "  ) {}\n"
        "}\n"
    ),
    "app/Kernel.php": (
        "<?php\nnamespace App;\n\nclass Kernel\n{\n"
        "    public function __construct(private Router $router, $plain)\n    {\n    }\n}\n"
    ),
}

ask = ask_fixture("params", CORPUS, 5)


def test_a_typescript_parameter_property_is_a_field_of_its_class(ask: Ask) -> None:
    assert top(ask, "Client.http") == ("web/client.ts", 3, "field")
    assert ask("Client.baseUrl")[0].line == 4


def test_a_php_promoted_parameter_is_a_property_of_its_class(ask: Ask) -> None:
    assert top(ask, "Kernel::router") == ("app/Kernel.php", 6, "field")


def test_a_plain_parameter_declares_nothing(ask: Ask) -> None:
    assert all(h.name not in ("retries", "plain") for h in ask("retries") + ask("plain"))
