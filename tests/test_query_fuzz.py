"""A fuzz of query strings through the CLI's own entry point: any text a user can type
(or paste) gives a defined exit code and never an exception.

In-process (`rq_engine.main.main`, the function the `rq` script runs) so that
hundreds of generated queries cost seconds; tests/test_hardening_input.py runs the
known-hostile shapes as real processes.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from rq_engine.main import main
from tests.conftest import Repo

SRC = {
    "app/models.py": "class OrderRepository:\n    def find_by_id(self, order_id):\n        pass\n",
    "lib/util.rb": "module Util\n  class Slug\n    def make(text)\n    end\n  end\nend\n",
    "src/Main.java": "package acme;\n\npublic class Main {\n    public Main() {}\n}\n",
}

# What a query is made of: letters, the scope separators, glob/FTS/LIKE syntax,
# whitespace, controls, non-ASCII, and lone surrogates (bytes that were not UTF-8).
ALPHABET = st.one_of(
    st.sampled_from(list("aAbBzZ_-.:#/\\*?[]\"'%^() \t\n\x1b\x00éß中😀")),
    st.characters(codec="utf-8"),
    st.characters(min_codepoint=0xDC80, max_codepoint=0xDCFF),
)
NAMES = ["OrderRepository", "find_by_id", "Util::Slug#make", "Main.new", "acme.Main", "slug"]
# Random text, and real names with random text around or inside them (typos, pastes).
QUERIES = st.one_of(
    st.text(ALPHABET, min_size=0, max_size=80),
    st.builds(
        lambda a, name, cut, b: a + name[:cut] + b + name[cut:],
        st.text(ALPHABET, max_size=3),
        st.sampled_from(NAMES),
        st.integers(0, 16),
        st.text(ALPHABET, max_size=2),
    ),
)


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> Repo:
    from tests.conftest import git

    root = tmp_path_factory.mktemp("fuzz") / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    repo = Repo(root)
    for rel, text in SRC.items():
        repo.write(rel, text)
    repo.commit("init")
    return repo


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(query=QUERIES, form=st.sampled_from(["-q", "--json", "--ndjson", "--text"]))
# The last code point, and the one before the surrogates, as a query's first letter:
# the letter after it bounds a range scan (once a ValueError, once an encoding error)
@example(query="\U0010ffff0", form="-q")
@example(query="\U0010ffffabcdef", form="-q")
@example(query="\ud7ffabcd", form="-q")
def test_any_query_text_gives_a_defined_exit(
    indexed: Repo,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    query: str,
    form: str,
) -> None:
    monkeypatch.chdir(indexed.root)
    argv = ["--text", query] if form == "--text" else ([form] if form != "-q" else ["-q"])
    if form != "--text":
        argv += ["-q", "--", query] if form != "-q" else ["--", query]
    code = main(argv)
    out, err = capsys.readouterr()
    assert code in (0, 1, 2, 64), (query, code, err)
    assert "Traceback" not in err
    assert len([ln for ln in err.splitlines() if ln]) <= 1, err
    if code == 64:
        assert err.startswith("rq: ")
    if form == "-q" and code == 0:
        # one line per result, nothing a name could inject
        assert "\x1b" not in out and all(":" in ln for ln in out.splitlines())
