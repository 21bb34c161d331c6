"""`rq -q` end to end: the real rq process against real git repositories."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from tests.conftest import Repo, Run

SRC = {
    "app/models.py": "class Order:\n    def total(self):\n        return 1\n\n\ndef make_order():\n    pass\n",
    "app/views.py": "def order_view(request):\n    pass\n",
    "tests/test_models.py": "class Order:\n    pass\n",
}


def indexed(make_repo: Callable[..., Repo], rq: Callable[..., Run]) -> Repo:
    repo = make_repo(SRC)
    r = rq("--index", str(repo.root))
    assert r.code == 0, r.err
    return repo


def test_plain_output_ranked_path_line_kind_name(
    make_repo: Callable[..., Repo], rq: Callable[..., Run]
) -> None:
    repo = indexed(make_repo, rq)
    r = rq("-q", "Order", cwd=repo.root)
    assert r.code == 0
    assert r.err == ""
    # exact matches first (the canonical one before the test copy), then prefixes
    assert r.out.splitlines() == [
        "app/models.py:1  class  Order",
        "tests/test_models.py:1  class  Order",
        "app/views.py:1  function  order_view",
    ]


def test_paths_are_relative_to_the_working_directory(
    make_repo: Callable[..., Repo], rq: Callable[..., Run]
) -> None:
    repo = indexed(make_repo, rq)
    r = rq("-q", "Order.total", cwd=repo.root / "tests")
    assert r.out.splitlines() == ["../app/models.py:2  method  Order.total"]


def test_fuzzy_typo_and_separators(make_repo: Callable[..., Repo], rq: Callable[..., Run]) -> None:
    repo = indexed(make_repo, rq)
    assert rq("-q", "--limit", "1", "mkordr", cwd=repo.root).out.startswith("app/models.py:6 ")
    assert rq("-q", "--limit", "1", "makeorder", cwd=repo.root).out.startswith("app/models.py:6 ")
    assert rq("-q", "--limit", "1", "oredr_view", cwd=repo.root).out.startswith("app/views.py:1 ")


def test_json_and_ndjson(make_repo: Callable[..., Repo], rq: Callable[..., Run]) -> None:
    repo = indexed(make_repo, rq)
    doc = json.loads(rq("-q", "--json", "Order", cwd=repo.root).out)
    assert (doc["query"], doc["coverage"]) == ("Order", "complete")
    arr = doc["results"]
    assert [o["path"] for o in arr] == ["app/models.py", "tests/test_models.py", "app/views.py"]
    first = arr[0]
    assert first["line"] == 1 and first["end_line"] == 3
    assert first["name"] == "Order" and first["qualified"] == "Order"
    assert first["kind"] == "class" and first["language"] == "python"
    assert first["repository"] == f"local:{repo.root.resolve()}"
    assert isinstance(first["score"], float) and "explain" not in first
    lines = rq("-q", "--ndjson", "--explain", "--limit", "1", "Order", cwd=repo.root).out
    objs = [json.loads(x) for x in lines.splitlines()]
    assert len(objs) == 1 and objs[0]["coverage"] == "complete"
    feats = {p["feature"] for p in objs[0]["explain"]}
    assert {"exact", "case", "kind"} <= feats


def test_explain_for_humans(make_repo: Callable[..., Repo], rq: Callable[..., Run]) -> None:
    repo = indexed(make_repo, rq)
    out = rq("-q", "--explain", "--limit", "2", "Order", cwd=repo.root).out.splitlines()
    assert out[0] == "app/models.py:1  class  Order"
    assert any(line.split()[:2] == ["path_test", "-60.0"] for line in out)
    assert any(line.split()[0] == "total" for line in out)


def test_limit(make_repo: Callable[..., Repo], rq: Callable[..., Run]) -> None:
    repo = indexed(make_repo, rq)
    assert len(rq("-q", "--limit", "1", "Order", cwd=repo.root).out.splitlines()) == 1


def test_definitive_miss_exits_1_with_nothing_printed(
    make_repo: Callable[..., Repo], rq: Callable[..., Run]
) -> None:
    repo = indexed(make_repo, rq)
    r = rq("-q", "Zebra", cwd=repo.root)
    assert (r.code, r.out, r.err) == (1, "", "")
    assert rq("-q", "--ndjson", "Zebra", cwd=repo.root).out == ""
    j = rq("-q", "--json", "Zebra", cwd=repo.root)
    assert (j.code, json.loads(j.out)) == (
        1,
        {"query": "Zebra", "coverage": "complete", "results": []},
    )


def test_a_sentence_that_names_nothing_points_to_the_text_search(
    make_repo: Callable[..., Repo], rq: Callable[..., Run]
) -> None:
    repo = indexed(make_repo, rq)
    r = rq("-q", "where is the zebra fed", cwd=repo.root)
    assert (r.code, r.out) == (1, "")
    assert r.err == (
        "rq: no definition named 'where is the zebra fed';"
        " rq --text 'where is the zebra fed' searches the code for these words\n"
    )
    # a name's words, or a machine's output: a miss stays silent
    assert rq("-q", "zebra stripe", cwd=repo.root).err == ""
    assert rq("-q", "--json", "where is the zebra fed", cwd=repo.root).err == ""


def test_usage_errors_exit_64_with_one_line(
    make_repo: Callable[..., Repo], rq: Callable[..., Run]
) -> None:
    repo = indexed(make_repo, rq)
    for args in (("-q", "--limit", "0", "x"), ("-q", "--json", "--ndjson", "x"), ("-q",)):
        r = rq(*args, cwd=repo.root)
        assert r.code == 64, args
        assert r.out == ""
        assert len(r.err.splitlines()) == 1 and r.err.startswith("rq: "), r.err


def test_unindexed_git_repo_is_indexed_first(
    make_repo: Callable[..., Repo], rq: Callable[..., Run]
) -> None:
    repo = make_repo(SRC)
    r = rq("-q", "make_order", cwd=repo.root)
    assert r.code == 0, r.err
    assert r.out.startswith("app/models.py:6  function  make_order")
    # then a miss there is definitive
    assert rq("-q", "Zebra", cwd=repo.root).code == 1


def test_an_untracked_plain_directory_is_scanned_live(
    tmp_path_factory: pytest.TempPathFactory, rq: Callable[..., Run]
) -> None:
    d = tmp_path_factory.mktemp("plain")
    (d / "a.py").write_text("def hello():\n    pass\n")
    r = rq("-q", "hello", cwd=d)
    assert (r.code, r.out) == (0, "a.py:1  function  hello\n")
    # every file was scanned: a miss is definitive, and nothing was indexed
    assert rq("-q", "Zebra", cwd=d).code == 1
    assert "no repositories indexed" in rq("--status").out or "0 repositories" in rq("--status").out


def test_piped_rq_query_behaves_as_rq_q(
    make_repo: Callable[..., Repo], rq: Callable[..., Run]
) -> None:
    repo = indexed(make_repo, rq)
    a = rq("Order", cwd=repo.root)  # stdout is a pipe here
    b = rq("-q", "Order", cwd=repo.root)
    assert (a.code, a.out) == (b.code, b.out)


def test_no_colour_off_a_terminal(make_repo: Callable[..., Repo], rq: Callable[..., Run]) -> None:
    repo = indexed(make_repo, rq)
    assert "\x1b[" not in rq("-q", "Order", cwd=repo.root).out


def test_other_repositories_only_with_all_repos(
    make_repo: Callable[..., Repo], rq: Callable[..., Run]
) -> None:
    a = indexed(make_repo, rq)
    b = make_repo({"lib.py": "class Invoice:\n    pass\n"}, name="other")
    assert rq("--index", str(b.root)).code == 0
    assert rq("-q", "Invoice", cwd=a.root).code == 1
    r = rq("-q", "--all-repos", "Invoice", cwd=a.root)
    assert r.code == 0 and r.out.startswith("../other/lib.py:1  class  Invoice")


def _on_a_terminal(args: list[str], cwd: object, env: dict[str, str]) -> str:
    """Run rq with stdout on a pseudo-terminal (stdin too, so `rq -q` is explicit)."""
    import os
    import pty
    import subprocess

    from tests.conftest import read_pty, rq_bin

    master, slave = pty.openpty()
    p = subprocess.Popen([*rq_bin(), *args], cwd=cwd, stdout=slave, stderr=subprocess.PIPE, env=env)
    os.close(slave)
    out = read_pty(master)
    p.wait(timeout=60)
    os.close(master)
    return out


def test_colour_only_on_a_terminal_without_no_color(
    make_repo: Callable[..., Repo], rq: Callable[..., Run]
) -> None:
    import os

    repo = indexed(make_repo, rq)
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    coloured = _on_a_terminal(["-q", "Order"], repo.root, env)
    assert "\x1b[" in coloured and "app/models.py:1" in coloured
    plain = _on_a_terminal(["-q", "Order"], repo.root, {**env, "NO_COLOR": "1"})
    assert "\x1b[" not in plain and "app/models.py:1  class  Order" in plain


def test_miss_on_an_incomplete_index_exits_2_with_a_note(
    make_repo: Callable[..., Repo], rq: Callable[..., Run]
) -> None:
    repo = make_repo(SRC)
    seed = rq("--index", str(repo.root), "--path", "app")  # a seed: coverage stays warming
    assert seed.code == 0 and "warming" in seed.err
    miss = rq("-q", "--no-wait", "Zebra", cwd=repo.root)
    assert miss.code == 2 and miss.out == ""
    assert len(miss.err.splitlines()) == 1 and "warming" in miss.err
    assert miss.err.startswith("rq: ")
    # (that answer then handed the rest to the warmer, here in-process: RQ_WARM_DETACH=0)
    assert rq("-q", "Zebra", cwd=repo.root).code == 1
    hit = rq("-q", "--no-wait", "Order", cwd=repo.root)
    assert hit.code == 0 and hit.out.startswith("app/models.py:1")


MEMBERS = {
    "net/request.go": (
        "package http\n\ntype Request struct {\n\tMethod string\n\tURL, Proto string\n}\n\n"
        "type methodType struct{}\n"
    ),
    "include/sched.h": "struct task_struct {\n\tint pid;\n\tint (*open)(void);\n};\n",
    "util/HashMap.java": (
        "package util;\n\npublic class HashMap {\n    transient Node[] table;\n"
        "    static int tableSizeFor(int c) { return c; }\n}\n"
    ),
    "adt/SmallVector.h": (
        "namespace llvm {\nclass SmallVectorBase {\nprotected:\n  unsigned Size = 0;\n"
        "public:\n  unsigned size() const { return Size; }\n};\n}\n"
    ),
    "src/sync.rs": "pub enum TryRecvError {\n    Empty,\n}\n\npub struct Runtime {\n    handle: u8,\n}\n",
}


def test_a_types_members_are_definitions_in_go_c_java_cpp_and_rust(
    make_repo: Callable[..., Repo], rq: Callable[..., Run]
) -> None:
    # each answered another definition, or "no match", when rq read no members there
    repo = make_repo(MEMBERS)
    assert rq("--index", str(repo.root)).code == 0
    want = {
        "Request.Method": "net/request.go:4  field  Request.Method",
        "Request.Proto": "net/request.go:5  field  Request.Proto",
        "task_struct.pid": "include/sched.h:2  field  task_struct::pid",
        "task_struct.open": "include/sched.h:3  field  task_struct::open",
        "HashMap.table": "util/HashMap.java:4  field  util.HashMap.table",
        "SmallVectorBase.Size": "adt/SmallVector.h:4  field  llvm::SmallVectorBase::Size",
        "TryRecvError::Empty": "src/sync.rs:2  constant  TryRecvError::Empty",
        "Runtime::handle": "src/sync.rs:6  field  Runtime::handle",
    }
    for query, line in want.items():
        r = rq("-q", "--limit", "1", query, cwd=repo.root)
        assert (r.code, r.out.strip()) == (0, line), query
    # a field ranks below the method of its name (`kind`: a member is reached through it)
    r = rq("-q", "--limit", "2", "size", cwd=repo.root)
    assert [ln.split()[1] for ln in r.out.splitlines()] == ["method", "field"]
