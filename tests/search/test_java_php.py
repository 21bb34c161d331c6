"""Java and PHP through the real indexer and Searcher: constructors, packages, namespaces."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

import pytest

from rq_engine.index.indexer import index_under
from rq_engine.search.pipeline import Searcher
from rq_engine.store.db import connect
from tests.conftest import Repo

JOINER = """\
package java.util;

public final class StringJoiner {
    private final String prefix;

    public StringJoiner(CharSequence delimiter) {
        this(delimiter, "", "");
    }

    public StringJoiner(CharSequence delimiter, CharSequence prefix, CharSequence suffix) {
        this.prefix = prefix.toString();
    }

    public StringJoiner add(CharSequence newElement) {
        return this;
    }
}

class Helper {
    Helper() {}
}
"""

NO_CTOR = """\
package java.util;

public class Objects {
    public static boolean isNull(Object obj) {
        return obj == null;
    }
}
"""

KERNEL = """\
<?php

namespace App\\Http;

class Kernel
{
    public function __construct(Application $app) {}

    public function handle($request) {}
}
"""

CONSOLE_KERNEL = """\
<?php

namespace App\\Console;

class Kernel
{
    public function handle($input, $output = null) {}
}
"""


@pytest.fixture
def store(make_repo: Callable[..., Repo]) -> tuple[sqlite3.Connection, Repo]:
    repo = make_repo(
        {
            "src/java/util/StringJoiner.java": JOINER,
            "src/java/util/Objects.java": NO_CTOR,
            "app/Http/Kernel.php": KERNEL,
            "app/Console/Kernel.php": CONSOLE_KERNEL,
        }
    )
    conn = connect()
    index_under(conn, repo.root)
    return conn, repo


def top(s: Searcher, q: str) -> list[tuple[str, int, str]]:
    hits = list(s.search(q, limit=10))[-1].hits
    return [(h.path, h.line, h.qualified) for h in hits]


def test_java_constructor_is_named_after_its_class(store: tuple[sqlite3.Connection, Repo]) -> None:
    conn, repo = store
    s = Searcher(conn, repo.root)
    want = {
        ("src/java/util/StringJoiner.java", 6, "java.util.StringJoiner.StringJoiner"),
        ("src/java/util/StringJoiner.java", 10, "java.util.StringJoiner.StringJoiner"),
    }
    for q in ("StringJoiner::new", "StringJoiner.new", "stringjoiner.new"):
        assert set(top(s, q)) == want, q
    # as javadoc lists a constructor; the class follows (its file names the scope)
    assert set(top(s, "StringJoiner.StringJoiner")[:2]) == want
    # a class without a constructor answers for itself; another class's is no answer
    assert top(s, "Objects::new") == [("src/java/util/Objects.java", 3, "java.util.Objects")]
    assert top(s, "Helper.new") == [
        ("src/java/util/StringJoiner.java", 20, "java.util.Helper.Helper")
    ]


def test_java_package_scopes_top_level_types(store: tuple[sqlite3.Connection, Repo]) -> None:
    conn, repo = store
    s = Searcher(conn, repo.root)
    assert top(s, "java.util.StringJoiner")[0][2] == "java.util.StringJoiner"
    assert top(s, "util.Objects.isNull")[0][2] == "java.util.Objects.isNull"


def test_php_namespaces_and_constructors(store: tuple[sqlite3.Connection, Repo]) -> None:
    conn, repo = store
    s = Searcher(conn, repo.root)
    assert top(s, "App\\Http\\Kernel")[0] == ("app/Http/Kernel.php", 5, "App\\Http\\Kernel")
    assert top(s, "\\App\\Console\\Kernel")[0] == (
        "app/Console/Kernel.php",
        5,
        "App\\Console\\Kernel",
    )
    assert top(s, "Http\\Kernel::handle")[0] == (
        "app/Http/Kernel.php",
        9,
        "App\\Http\\Kernel::handle",
    )
    ctor = [("app/Http/Kernel.php", 7, "App\\Http\\Kernel::__construct")]
    assert top(s, "Kernel::new") == ctor
    assert top(s, "Kernel::__construct") == ctor
