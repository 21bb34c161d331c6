"""The quick status's pathspec (index/pathspec.py): narrowed to the source files git
tracks and, when it tracks one, the `.gitignore` files; recorded per git state."""

from __future__ import annotations

from rq_engine.index import pathspec
from rq_engine.store.db import connect


def listing(*paths: str) -> bytes:
    return b"".join(p.encode() + b"\0" for p in paths)


LOCALE = tuple(f"locale/{c}/messages.po" for c in "abcdefgh")


def test_a_listing_of_mostly_other_files_is_narrowed_to_sources_and_gitignores() -> None:
    out = listing("app/models.py", "legacy/Old.PY", "web/app.js", "docs/.gitignore", *LOCALE)
    assert pathspec.of_listing(out) == ("*.PY", "*.gitignore", "*.js", "*.py")
    out = listing("app/models.py", ".gitignore", *LOCALE)
    assert pathspec.of_listing(out) == ("*.gitignore", "*.py")


def test_without_a_tracked_gitignore_only_the_sources() -> None:
    assert pathspec.of_listing(listing("app/models.py", *LOCALE)) == ("*.py",)


def test_a_listing_of_mostly_sources_is_not_narrowed() -> None:
    assert pathspec.of_listing(listing("a.go", "b.go", "c.go", ".gitignore")) == (".",)


def test_a_listing_without_sources_asks_about_its_gitignores_only() -> None:
    assert pathspec.of_listing(listing("README", "docs/a.txt", ".gitignore")) == ("*.gitignore",)
    assert pathspec.of_listing(listing("README", "docs/a.txt")) == ()


def test_a_record_is_trusted_at_its_stamp_only() -> None:
    conn = connect()
    try:
        pathspec.record(conn, "/r", "abc:1", ("*.gitignore", "*.py"))
        assert pathspec.recorded(conn, "/r", "abc:1") == ("*.gitignore", "*.py")
        assert pathspec.recorded(conn, "/r", "abc:2") is None
    finally:
        conn.close()


def test_an_older_rqs_record_is_not_read() -> None:
    # (it was made without the .gitignore files: listed again, under the new key)
    conn = connect()
    try:
        conn.execute(
            "INSERT INTO meta(key, value) VALUES (?, ?)",
            (pathspec.OLD_PATHSPEC + "/r", "abc:1\n*.py"),
        )
        assert pathspec.recorded(conn, "/r", "abc:1") is None
    finally:
        conn.close()
