"""`rq --text`, `--export-graph`, `--graph` end to end: real git repos, real index, real processes."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from rq_engine.core.cancel import CancelToken
from rq_engine.text.graph import Edge, Graph, Node, file_id, stable_id
from rq_engine.text.graphjson import dump
from tests.conftest import Repo, Run

RQ = Callable[..., Run]

PAYMENTS = '''\
class RefundProcessor:
    """Turns refund requests into ledger entries."""

    def __init__(self, ledger):
        self.ledger = ledger

    def process_refund(self, request):
        return self.ledger.add(request)


def send_receipt(order):
    return order
'''

CART = """\
class ShoppingCart:
    def total_price(self):
        return 0

    def add_item(self, item):
        pass
"""


@pytest.fixture
def shop(make_repo: Callable[..., Repo], rq: RQ) -> Repo:
    repo = make_repo({"shop/payments.py": PAYMENTS, "shop/cart.py": CART}, name="shop")
    r = rq("--index", ".", cwd=repo.root)
    assert r.code == 0, r.err
    return repo


@pytest.mark.parametrize("ranker", ["text-ranker/full-scan-v1", "text-ranker/bm25-v1"])
def test_text_query_prints_symbol_lines_with_their_chain(shop: Repo, rq: RQ, ranker: str) -> None:
    r = rq("--text", "refund processor process", "--ranker", ranker, cwd=shop.root)
    assert r.code == 0, r.err
    first = r.out.splitlines()[0]
    assert first == (
        "shop/payments.py:7  method  RefundProcessor.process_refund"
        "  (in: payments.py > RefundProcessor)"
    )


def test_json_carries_the_profile_and_symbol_fields(shop: Repo, rq: RQ) -> None:
    for ranker in (None, "text-ranker/bm25-v1"):
        args = ["--text", "shopping cart total", "--json"] + (
            ["--ranker", ranker] if ranker else []
        )
        r = rq(*args, cwd=shop.root / "shop")
        assert r.code == 0, r.err
        doc = json.loads(r.out)
        assert doc["ranker"] == (ranker or "text-ranker/bm25-v1")
        assert doc["truncated"] is False
        top = doc["results"][0]
        assert top["path"] == "cart.py"  # relative to the working directory
        assert top["qualified"] == "ShoppingCart.total_price"
        assert top["line"] == 2 and top["kind"] == "method" and top["language"] == "python"
        assert top["id"].endswith("|shop/cart.py|method|ShoppingCart.total_price")
        assert [c["name"] for c in top["chain"]] == ["cart.py", "ShoppingCart"]
        assert top["repository"].startswith("local:")


def test_ndjson_lines_each_name_the_profile(shop: Repo, rq: RQ) -> None:
    r = rq("--text", "refund", "--ndjson", "--ranker", "text-ranker/bm25-v1", cwd=shop.root)
    assert r.code == 0, r.err
    lines = [json.loads(x) for x in r.out.splitlines()]
    assert lines and all(x["ranker"] == "text-ranker/bm25-v1" for x in lines)


def test_no_good_answer_prints_nothing_and_exits_1(shop: Repo, rq: RQ) -> None:
    r = rq("--text", "kubernetes pod scheduler", "--ranker", "text-ranker/bm25-v1", cwd=shop.root)
    assert (r.code, r.out) == (1, "")
    assert r.err.startswith("rq: no good answer")
    r = rq("--text", "kubernetes pod", "--json", "--ranker", "text-ranker/bm25-v1", cwd=shop.root)
    assert r.code == 1
    doc = json.loads(r.out)
    assert doc["results"] == [] and doc["ranker"] == "text-ranker/bm25-v1" and doc["no_answer"]


def test_explain_shows_terms_and_fields(shop: Repo, rq: RQ) -> None:
    r = rq(
        "--text", "refund processor", "--explain", "--ranker", "text-ranker/bm25-v1", cwd=shop.root
    )
    assert r.code == 0, r.err
    assert (
        "'refund'" in r.out and "idf" in r.out and "name 3x1" in r.out and "qualified 2x1" in r.out
    )


def test_export_then_graph_gives_the_same_answers(shop: Repo, rq: RQ, tmp_path: Path) -> None:
    out = tmp_path / "graph.json"
    r = rq("--export-graph", str(out), cwd=shop.root)
    assert r.code == 0, r.err
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["schema"] == "rq.graph/1" and data["identity"]["graph"]
    for ranker in ("text-ranker/full-scan-v1", "text-ranker/bm25-v1"):
        live = rq("--text", "cart add item", "--json", "--ranker", ranker, cwd=shop.root)
        from_file = rq(
            "--graph",
            str(out),
            "--text",
            "cart add item",
            "--json",
            "--ranker",
            ranker,
            cwd=shop.root,
        )
        assert live.code == from_file.code == 0
        got, want = json.loads(live.out), json.loads(from_file.out)
        # the live bm25-v1 answer is served by the persisted cache; the file's in memory
        assert got.pop("cache")["state"] == ("rebuilt" if "bm25" in ranker else "off")
        assert want.pop("cache")["state"] == "off"
        assert got == want
    # reordering the file's nodes changes nothing a user sees
    data["nodes"].reverse()
    data["edges"].reverse()
    shuffled = tmp_path / "shuffled.json"
    shuffled.write_text(json.dumps(data), encoding="utf-8")
    a = rq(
        "--graph", str(out), "--text", "cart add item", "--json", "--ranker", "text-ranker/bm25-v1"
    )
    b = rq(
        "--graph",
        str(shuffled),
        "--text",
        "cart add item",
        "--json",
        "--ranker",
        "text-ranker/bm25-v1",
    )
    assert a.out == b.out and a.code == b.code == 0
    s = rq("--graph", str(shuffled))
    assert (
        s.code == 0 and data["identity"]["graph"] in s.out and data["identity"]["lexical"] in s.out
    )


def _identities(rq: RQ, repo: Repo, tmp_path: Path, name: str) -> dict[str, str]:
    out = tmp_path / name
    r = rq("--export-graph", str(out), cwd=repo.root)
    assert r.code == 0, r.err
    ident: dict[str, str] = json.loads(out.read_text(encoding="utf-8"))["identity"]
    return ident


def test_body_edit_moves_graph_identity_only_and_rename_moves_both(
    shop: Repo, rq: RQ, tmp_path: Path
) -> None:
    before = _identities(rq, shop, tmp_path, "a.json")
    shop.write(
        "shop/payments.py",
        PAYMENTS.replace(
            "        self.ledger = ledger\n",
            "        self.ledger = ledger\n        assert ledger is not None\n\n",
        ),
    )
    assert rq("--index", ".", cwd=shop.root).code == 0
    edited = _identities(rq, shop, tmp_path, "b.json")
    assert edited["graph"] != before["graph"]
    assert edited["lexical"] == before["lexical"]
    shop.write("shop/payments.py", PAYMENTS.replace("send_receipt", "email_receipt"))
    assert rq("--index", ".", cwd=shop.root).code == 0
    renamed = _identities(rq, shop, tmp_path, "c.json")
    assert renamed["graph"] not in (before["graph"], edited["graph"])
    assert renamed["lexical"] != before["lexical"]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "not valid JSON"),
        (
            '{"schema": "rq.graph/2", "repository": "x", "nodes": [], "edges": []}',
            "is not 'rq.graph/1'",
        ),
        (
            '{"schema": "rq.graph/1", "repository": "x", "nodes": [], "edges": [{"kind": "contains", "from": "a", "to": "b"}]}',
            "dangling edge",
        ),
    ],
)
def test_bad_graph_is_exit_74_with_one_line(
    rq: RQ, tmp_path: Path, content: str, message: str
) -> None:
    p = tmp_path / "g.json"
    p.write_text(content, encoding="utf-8")
    r = rq("--graph", str(p), "--text", "anything")
    assert r.code == 74 and r.out == ""
    assert len(r.err.splitlines()) == 1 and r.err.startswith("rq: ") and message in r.err
    assert "Traceback" not in r.err


def test_duplicate_node_ids_refuse_to_load(rq: RQ, tmp_path: Path) -> None:
    fid = file_id("r", "a.py")
    nid = stable_id("r", "a.py", "function", "f")
    node = {"id": nid, "kind": "function", "name": "f", "qualified": "f", "path": "a.py", "line": 1}
    data = {
        "schema": "rq.graph/1",
        "repository": "r",
        "nodes": [
            {
                "id": fid,
                "kind": "file",
                "name": "a.py",
                "qualified": "a.py",
                "path": "a.py",
                "line": 1,
            },
            node,
            dict(node, line=5),
        ],
        "edges": [{"kind": "contains", "from": fid, "to": nid}],
    }
    p = tmp_path / "dup.json"
    p.write_text(json.dumps(data), encoding="utf-8")
    r = rq("--graph", str(p), "--text", "f")
    assert r.code == 74 and "duplicate node ID" in r.err and r.out == ""


def big_graph(path: Path, n: int) -> None:
    nodes = []
    edges = []
    for i in range(n):
        p = f"pkg/m{i % 200}.py"
        fid = file_id("r", p)
        if i < 200:
            nodes.append(Node(fid, "file", p.rsplit("/", 1)[1], p, p, 1, None, "python"))
        nid = stable_id("r", p, "function", f"widget_part_{i}")
        nodes.append(
            Node(nid, "function", f"widget_part_{i}", f"widget_part_{i}", p, 1 + i, 2 + i, "python")
        )
        edges.append(Edge(fid, nid))
    dump(Graph("r", nodes, edges), path)


def test_ceiling_cut_is_reported_never_empty(rq: RQ, tmp_path: Path) -> None:
    p = tmp_path / "big.json"
    big_graph(p, 20_500)
    ask = ("--graph", str(p), "--text", "widget part", "--ranker", "text-ranker/bm25-v1")
    r = rq(*ask, "--json", "--limit", "3")
    assert r.code == 0, r.err
    doc = json.loads(r.out)
    assert doc["truncated"] is True and len(doc["results"]) == 3
    h = rq(*ask, "--limit", "3")
    assert h.code == 0 and len(h.out.splitlines()) == 3 and "truncated" in h.err
    again = rq(*ask, "--json", "--limit", "3")
    assert again.out == r.out  # a new process, the same answer and truncation state


def test_usage_errors_exit_64(shop: Repo, rq: RQ) -> None:
    assert rq("--ranker", "text-ranker/bm25-v1", cwd=shop.root).code == 64
    assert rq("--text", "x", "--ranker", "nope", cwd=shop.root).code == 64
    assert rq("--text", "   ", cwd=shop.root).code == 64


def test_text_path_imports_no_ui_or_parser(shop: Repo, tmp_path: Path) -> None:
    code = (
        "import sys\n"
        "from rq_engine.main import main\n"
        "rc = main(['--text', 'refund processor', '--ranker', 'text-ranker/bm25-v1'])\n"
        "heavy = sorted(m for m in sys.modules if m.split('.')[0] in "
        "{'textual', 'rich', 'tree_sitter', 'tree_sitter_language_pack', 'mcp'})\n"
        "print('HEAVY', heavy, rc)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=shop.root, capture_output=True, text=True, check=True
    )
    assert "HEAVY [] 0" in out.stdout


def test_repeated_processes_print_identical_answers(shop: Repo, rq: RQ) -> None:
    for ranker in ("text-ranker/full-scan-v1", "text-ranker/bm25-v1"):
        args = ("--text", "cart item price", "--ranker", ranker, "--json", "--explain")
        a, b, c = (rq(*args, cwd=shop.root) for _ in range(3))
        assert a.code == b.code == c.code == 0
        # bm25-v1: built in full by the first process, an exact cache hit for the others
        first, second, third = (json.loads(x.out) for x in (a, b, c))
        states = [x.pop("cache")["state"] for x in (first, second, third)]
        bm25 = "bm25" in ranker
        assert states == (["rebuilt", "hit", "hit"] if bm25 else ["off"] * 3)
        assert first == second == third
        cached = [json.loads(x.out)["cache"] for x in (b, c)]
        for x in cached:
            x.pop("ms")  # (the one part that is a measurement)
        assert cached[0] == cached[1]  # two hits on one generation


def test_all_repos_ranks_every_indexed_repository(
    shop: Repo, make_repo: Callable[..., Repo], rq: RQ
) -> None:
    other = make_repo({"billing/invoice.py": "class InvoiceMailer:\n    pass\n"}, name="billing")
    assert rq("--index", ".", cwd=other.root).code == 0
    here = rq("--text", "invoice mailer", "--ranker", "text-ranker/bm25-v1", cwd=shop.root)
    assert here.code == 1  # scoped to the current repository by default
    r = rq(
        "--text",
        "invoice mailer",
        "--all-repos",
        "--json",
        "--ranker",
        "text-ranker/bm25-v1",
        cwd=shop.root,
    )
    assert r.code == 0, r.err
    top = json.loads(r.out)["results"][0]
    assert top["qualified"] == "InvoiceMailer" and top["path"] == "../billing/billing/invoice.py"
    assert top["repository"].endswith("/billing")


def test_a_full_build_is_handed_to_a_detached_builder(
    shop: Repo, rq: RQ, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first bm25-v1 query of a repository answers from memory at once and starts a
    detached builder; once it has published, queries are exact hits with the same answer."""
    import os
    import time

    monkeypatch.setenv("RQ_TEXT_CACHE_DETACH", "1")
    args = ("--text", "cart item price", "--ranker", "text-ranker/bm25-v1", "--json")
    first = rq(*args, cwd=shop.root)
    assert first.code == 0, first.err
    a = json.loads(first.out)
    assert a["cache"]["state"] == "memory"
    assert "background" in a["cache"]["note"]
    cache = Path(os.environ["RQ_CACHE"]) / "text"
    deadline = time.monotonic() + 120  # bounds a failure only: the loop waits on the file
    while not list(cache.glob("*/current")):
        assert time.monotonic() < deadline, "the detached builder published nothing"
        time.sleep(0.05)
    second = json.loads(rq(*args, cwd=shop.root).out)
    assert second["cache"]["state"] == "hit"
    assert [r["id"] for r in second["results"]] == [r["id"] for r in a["results"]]
    assert [r["score"] for r in second["results"]] == [r["score"] for r in a["results"]]


def test_an_overlay_past_its_bound_is_folded_into_a_new_base_in_the_background(
    shop: Repo, rq: RQ, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An edit is served at once from a small overlay over the base; once overlays hold
    more rows than RQ_TEXT_CACHE_COMPACT_AT, a detached builder folds them into a new
    base, and queries are exact hits on it with the same answer."""
    import os
    import time

    args = ("--text", "cart item price", "--ranker", "text-ranker/bm25-v1", "--json")
    monkeypatch.setenv("RQ_TEXT_CACHE_DETACH", "0")
    assert json.loads(rq(*args, cwd=shop.root).out)["cache"]["state"] == "rebuilt"
    cart = shop.root / "shop/cart.py"
    cart.write_text(cart.read_text() + "\n\ndef cart_item_price_total(cart):\n    return 0\n")
    monkeypatch.setenv("RQ_TEXT_CACHE_DETACH", "1")
    monkeypatch.setenv("RQ_TEXT_CACHE_COMPACT_AT", "1")
    monkeypatch.setenv("RQ_WARM_RECHECK_MS", "0")
    first = json.loads(rq(*args, cwd=shop.root).out)
    assert first["cache"]["state"] == "delta", first["cache"]
    assert first["cache"]["generation"].startswith("d-")
    assert "cart_item_price_total" in {r["name"] for r in first["results"]}
    cache = Path(os.environ["RQ_CACHE"]) / "text"
    (current,) = cache.glob("*/current")
    deadline = time.monotonic() + 120  # bounds a failure only: the loop waits on the file
    while not current.read_text().startswith("g-"):
        assert time.monotonic() < deadline, "the detached builder published no new base"
        time.sleep(0.05)
    second = json.loads(rq(*args, cwd=shop.root).out)
    assert second["cache"]["state"] == "hit"
    assert second["cache"]["generation"] == current.read_text().strip()
    for k in ("results", "candidates"):
        assert second[k] == first[k]


def test_dropping_a_repository_removes_its_text_cache(shop: Repo, rq: RQ) -> None:
    import os

    r = rq("--text", "cart item price", "--ranker", "text-ranker/bm25-v1", cwd=shop.root)
    assert r.code == 0, r.err
    cache = Path(os.environ["RQ_CACHE"]) / "text"
    assert list(cache.glob("*/g-*.db"))
    d = rq("--drop", str(shop.root), cwd=shop.root)
    assert d.code == 0, d.err
    assert not list(cache.glob("*/g-*.db"))


class _CancelAt(CancelToken):
    """A token that a later query cancels at its `n`-th check (a keystroke landing at a
    known point of the work, not at a moment a clock happens to hit)."""

    def __init__(self, n: int) -> None:
        super().__init__()
        self.left = n

    def check(self) -> None:
        self.left -= 1
        if self.left <= 0:
            self.cancel()
        super().check()


@pytest.mark.parametrize("ranker", ["text-ranker/bm25-v1", "text-ranker/full-scan-v1"])
@pytest.mark.parametrize("at", [1, 2, 3])
def test_a_cancelled_text_query_stops_and_the_next_one_answers(
    shop: Repo, ranker: str, at: int
) -> None:
    """The one text query service takes the caller's token (the picker's next key, an MCP
    client giving a call up): cancelled before it starts, after the cache is chosen, or
    inside the ranking, it raises Cancelled — never a stale answer — and the next query
    answers whole from the same cache."""
    from rq_engine.core.cancel import Cancelled
    from rq_engine.text.service import query_live

    words = "refund processor process"
    with pytest.raises(Cancelled):
        query_live(shop.root, words, profile=ranker, limit=20, cancel=_CancelAt(at))
    again = query_live(shop.root, words, profile=ranker, limit=20, cancel=CancelToken())
    plain = query_live(shop.root, words, profile=ranker, limit=20)
    assert [r.id for r in again.ranking.results] == [r.id for r in plain.ranking.results]
    assert again.ranking.results and again.hits == plain.hits


def test_a_php_namespace_is_spelled_scope_by_scope(make_repo: Callable[..., Repo], rq: RQ) -> None:
    """The exact-spelling prior reads a qualified name's trailing scopes at the scope
    separators the symbol scorer knows (core/query), PHP's `\\` among them:
    `support collection` spells Illuminate\\Support\\Collection, which then ranks
    above a class whose own name merely holds both words."""
    repo = make_repo(
        {
            "src/Collection.php": "<?php\nnamespace Illuminate\\Support;\n\nclass Collection\n{\n}\n",
            "src/View.php": "<?php\nnamespace App;\n\nclass SupportCollectionView {}\n",
        }
    )
    run = rq("--explain", "--text", "support collection", cwd=repo.root)
    assert run.code == 0, run.err
    top = [line for line in run.out.splitlines() if not line.startswith(("#", " "))][0]
    assert top.startswith("src/Collection.php:4"), run.out
    assert "qualified name 'Illuminate\\\\Support\\\\Collection' spells" in run.out
