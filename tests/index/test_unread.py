"""Files rq has no plugin for are reported, never silent: `rq --index`, `rq --status` and a
miss say how many files of which language were not read (real rq processes, real git repos)."""

from __future__ import annotations

import json
from collections.abc import Callable

from rq_engine.lang import unread
from tests.conftest import Repo, Run

KOTLIN_AND_SWIFT = {
    "app/Main.kt": "fun main() {}\n",
    "app/Util.kt": "fun util() {}\n",
    "app/Build.kts": "plugins {}\n",
    "ios/View.swift": "func view() {}\n",
    "README.md": "# docs are not source\n",
    ".bashrc": "a dotfile is not a Shell source\n",
}


def test_index_and_status_name_each_language_not_read(
    make_repo: Callable[..., Repo], rq: Callable[..., Run]
) -> None:
    repo = make_repo({**KOTLIN_AND_SWIFT, "tool.py": "def tool():\n    pass\n"})
    r = rq("--index", str(repo.root))
    assert r.code == 0 and r.out == ""
    assert "rq: 3 Kotlin, 1 Swift files not read (no plugin for them)" in r.err.splitlines()

    r = rq("--status")
    assert r.code == 0
    assert "  3 Kotlin, 1 Swift files not read" in r.out.splitlines()


def test_a_repository_of_only_readable_files_says_nothing_more(
    make_repo: Callable[..., Repo], rq: Callable[..., Run]
) -> None:
    repo = make_repo({"tool.py": "def tool():\n    pass\n", "README.md": "x\n"})
    r = rq("--index", str(repo.root))
    assert r.code == 0 and "not read" not in r.err
    assert "not read" not in rq("--status").out
    r = rq("-q", "nothing_like_it", cwd=repo.root)
    assert (r.code, r.out, r.err) == (1, "", "")  # a definitive miss, as before


def test_a_query_where_nothing_is_readable_says_so_and_exits_3(
    make_repo: Callable[..., Repo], rq: Callable[..., Run]
) -> None:
    repo = make_repo(KOTLIN_AND_SWIFT)
    assert rq("--index", str(repo.root)).code == 0
    r = rq("-q", "main", cwd=repo.root)
    assert r.code == 3 and r.out == ""
    assert r.err.splitlines() == [
        "rq: no match for 'main': nothing here rq reads "
        "(3 Kotlin, 1 Swift files not read: rq has no plugin for them)"
    ]
    r = rq("-q", "main", "--json", cwd=repo.root)
    assert r.code == 3
    doc = json.loads(r.out)
    assert doc["results"] == [] and doc["coverage"] == "complete"
    assert doc["not_read"] == {"Kotlin": 3, "Swift": 1}
    assert doc["nothing_readable"] is True


def test_never_indexed_repository_of_nothing_readable_is_not_a_bare_miss(
    make_repo: Callable[..., Repo], rq: Callable[..., Run]
) -> None:
    # the query itself indexes the repository (it was never indexed) and then says why
    repo = make_repo({"Main.kt": "fun main() {}\n"})
    r = rq("-q", "main", cwd=repo.root)
    assert r.code == 3, r
    assert "nothing here rq reads (1 Kotlin file not read" in r.err


def test_an_empty_of_source_repository_is_nothing_readable_too(
    make_repo: Callable[..., Repo], rq: Callable[..., Run]
) -> None:
    repo = make_repo({"README.md": "x\n", "data.csv": "a,b\n"})
    assert rq("--index", str(repo.root)).code == 0
    r = rq("-q", "main", cwd=repo.root)
    assert r.code == 3
    assert "nothing here rq reads (no source file of a language rq reads)" in r.err


def test_a_miss_beside_unread_files_names_them_and_stays_exit_1(
    make_repo: Callable[..., Repo], rq: Callable[..., Run]
) -> None:
    repo = make_repo({**KOTLIN_AND_SWIFT, "tool.py": "def tool():\n    pass\n"})
    assert rq("--index", str(repo.root)).code == 0
    r = rq("-q", "main", cwd=repo.root)
    assert r.code == 1 and r.out == ""
    assert r.err.splitlines() == [
        "rq: no match for 'main' in the files rq reads; 3 Kotlin, 1 Swift files not read"
    ]
    doc = json.loads(rq("-q", "main", "--json", cwd=repo.root).out)
    assert doc["not_read"] == {"Kotlin": 3, "Swift": 1} and "nothing_readable" not in doc
    # a hit is unchanged: no note, no field
    r = rq("-q", "tool", cwd=repo.root)
    assert r.code == 0 and r.err == "" and r.out.startswith("tool.py:1")
    assert "not_read" not in json.loads(rq("-q", "tool", "--json", cwd=repo.root).out)


def test_a_readable_file_added_or_removed_decides_the_next_miss_without_reindexing(
    make_repo: Callable[..., Repo], rq: Callable[..., Run]
) -> None:
    """No `rq --index` between the steps: each query catches the index up itself."""
    repo = make_repo({"game.lua": "function lua_fn()\n  return 1\nend\n"})
    assert rq("-q", "lua_fn", cwd=repo.root).code == 3
    repo.write("tool.py", "def py_fn():\n    pass\n")
    repo.commit()
    assert rq("-q", "py_fn", cwd=repo.root).out.startswith("tool.py:1")
    r = rq("-q", "lua_fn", cwd=repo.root)
    assert (r.code, r.err.splitlines()) == (
        1,
        ["rq: no match for 'lua_fn' in the files rq reads; 1 Lua file not read"],
    )
    repo.git("rm", "-q", "tool.py")
    repo.commit()
    r = rq("-q", "lua_fn", cwd=repo.root)
    assert r.code == 3 and "nothing here rq reads (1 Lua file not read" in r.err, r


def test_tally_follows_the_tree(make_repo: Callable[..., Repo], rq: Callable[..., Run]) -> None:
    repo = make_repo({**KOTLIN_AND_SWIFT, "tool.py": "def tool():\n    pass\n"})
    assert rq("--index", str(repo.root)).code == 0
    (repo.root / "ios/View.swift").unlink()
    repo.write("lib.lua", "local x = 1\n")
    repo.commit()
    r = rq("--index", str(repo.root))
    assert "rq: 3 Kotlin, 1 Lua files not read (no plugin for them)" in r.err.splitlines()
    assert "  3 Kotlin, 1 Lua files not read" in rq("--status").out.splitlines()


def test_languages_are_known_by_extension_only() -> None:
    assert unread.language_name("a/b/Main.kt") == "Kotlin"
    assert unread.language_name("x.R") == "R"  # extensions compare case-insensitively
    assert unread.language_name("deploy.sh") == "Shell"
    assert unread.language_name("a/.zsh") is None  # a dotfile has no extension
    assert unread.language_name("a.py") is None  # read by a plugin: not counted here
    assert unread.language_name("notes.txt") is None
    assert unread.decode(unread.encode({"Kotlin": 12, "Swift": 3})) == {"Kotlin": 12, "Swift": 3}
    assert unread.decode("garbage,:,Kotlin:x") == {}
    assert unread.summary({"Swift": 3, "Kotlin": 12}) == "12 Kotlin, 3 Swift files not read"
    assert unread.summary({"Lua": 1}) == "1 Lua file not read"


# --- rq --text keeps the same promise -------------------------------------------------


def test_a_text_query_where_nothing_is_readable_says_so_and_exits_3(
    make_repo: Callable[..., Repo], rq: Callable[..., Run]
) -> None:
    repo = make_repo({"game.lua": "function lua_fn()\n  return 1\nend\n"})
    assert rq("--index", str(repo.root)).code == 0
    r = rq("--text", "lua fn", cwd=repo.root)
    assert (r.code, r.out) == (3, "")
    assert r.err.splitlines() == [
        "rq: no match for 'lua fn': nothing here rq reads "
        "(1 Lua file not read: rq has no plugin for them)"
    ]
    # --json carries the facts `rq -q --json` carries
    doc = json.loads(rq("--text", "lua fn", "--json", cwd=repo.root).out)
    want = json.loads(rq("-q", "lua_fn", "--json", cwd=repo.root).out)
    assert doc["results"] == [] and doc["nothing_readable"] is True
    assert doc["not_read"] == want["not_read"] == {"Lua": 1}


def test_a_text_miss_beside_unread_files_names_them_and_stays_exit_1(
    make_repo: Callable[..., Repo], rq: Callable[..., Run]
) -> None:
    repo = make_repo({**KOTLIN_AND_SWIFT, "tool.py": "def tool():\n    pass\n"})
    assert rq("--index", str(repo.root)).code == 0
    r = rq("--text", "zebra nowhere", cwd=repo.root)
    assert (r.code, r.out) == (1, "")
    assert r.err.splitlines() == [
        "rq: no good answer for 'zebra nowhere' in the files rq reads: no node accounts for"
        " 75% of the query (best covers 0%); 3 Kotlin, 1 Swift files not read"
    ]
    doc = json.loads(rq("--text", "zebra nowhere", "--json", cwd=repo.root).out)
    assert doc["not_read"] == {"Kotlin": 3, "Swift": 1} and "nothing_readable" not in doc
    # a hit is unchanged: no note, no field
    r = rq("--text", "tool", cwd=repo.root)
    assert r.code == 0 and r.err == "" and r.out.startswith("tool.py:1")
    assert "not_read" not in json.loads(rq("--text", "tool", "--json", cwd=repo.root).out)
