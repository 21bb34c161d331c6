"""A query that names a package and then a definition in it, run together
(`bufscanner` → bufio's Scanner): the package may be a directory or a file, two
letters long (`io`, `os`), and the name two letters (`sql.DB`). One real git
repository, indexed by the real `rq --index`, answered by the QueryService every
face calls."""

from __future__ import annotations

from rq_engine.core.scoring import WEIGHTS
from rq_engine.search.types import Hit
from tests.search.served import Ask, ask_fixture

CORPUS = {
    "bufio/scan.go": "package bufio\n\ntype Scanner struct{}\n\nfunc ScanLines() {}\n",
    "io/io.go": "package io\n\nfunc Copy() {}\n\nfunc CopyN() {}\n\nfunc ReadAll() {}\n",
    "io/ioutil/ioutil.go": "package ioutil\n\nfunc ReadAll() {}\n",
    "os/proc.go": "package os\n\nfunc Exit(code int) {}\n",
    "database/sql/sql.go": "package sql\n\ntype DB struct{}\n\ntype DBStats struct{}\n\n"
    "type Tx struct{}\n",
    "database/sql/driver/driver.go": "package driver\n\ntype Tx struct{}\n",
    "lib/shutil.py": "def copy(src, dst):\n    pass\n\n\ndef copytree(src, dst):\n    pass\n",
    "lib/copying.py": "def copy_all():\n    pass\n",
}


ask = ask_fixture("packages", CORPUS, 10)


def first(hits: list[Hit]) -> str:
    assert hits, "no match"
    return f"{hits[0].path} {hits[0].name}"


def test_a_directory_names_the_package(ask: Ask) -> None:
    assert first(ask("bufscanner")) == "bufio/scan.go Scanner"


def test_a_two_letter_package(ask: Ask) -> None:
    assert first(ask("iocopy")) == "io/io.go Copy"
    assert first(ask("osexit")) == "os/proc.go Exit"
    # both packages start with `io`: the one the query spells whole comes first
    assert [h.path for h in ask("ioreadall")[:2]] == ["io/io.go", "io/ioutil/ioutil.go"]


def test_a_two_letter_name_is_the_whole_name(ask: Ask) -> None:
    hits = ask("sqldb")
    assert first(hits) == "database/sql/sql.go DB"
    assert dict(hits[0].score.parts)["via_package"] == WEIGHTS["via_package"]


def test_a_file_names_the_module(ask: Ask) -> None:
    hits = ask("shutilcopy")
    assert first(hits) == "lib/shutil.py copy"
    assert [h.name for h in hits[:2]] == ["copy", "copytree"]


def test_the_file_s_own_directory_before_one_above_it(ask: Ask) -> None:
    hits = [h for h in ask("sqltx") if h.name == "Tx"]
    assert [h.path for h in hits] == ["database/sql/sql.go", "database/sql/driver/driver.go"]
    own, above = (dict(h.score.parts)["via_package"] for h in hits)
    assert own == WEIGHTS["via_package"]
    assert above == WEIGHTS["via_package"] + WEIGHTS["via_package_level"]
