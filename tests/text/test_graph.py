"""The rq.graph/1 realization: stable IDs, contains edges, identities, graph.json validation."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rq_engine.text import graph as G
from rq_engine.text import graphjson as GJ
from rq_engine.text.source import realize
from tests.text.conftest import FileSpec, fill_index

REPO = "github.com/acme/shop"

SHOP: list[FileSpec] = [
    (
        "shop/payments.py",
        "python",
        [
            ("RefundProcessor", "class", None, 3, 20),
            ("__init__", "method", "RefundProcessor", 4, 6),
            ("process", "method", "RefundProcessor", 8, 20),
            ("helper", "function", "RefundProcessor.process", 9, 10),
            ("helper", "function", None, 22, 23),
            ("helper", "function", None, 25, 26),  # a redefinition: the 2nd duplicate
        ],
    ),
    (
        "lib/shop/cart.rb",
        "ruby",
        [
            ("Shop", "module", None, 1, 30),
            ("Cart", "class", "Shop", 2, 29),
            ("total", "method", "Shop::Cart", 3, 5),
            ("Line", "class", "Shop::Cart", 7, 12),
        ],
    ),
    (
        "pkg/buf/writer.go",
        "go",
        [("Flush", "method", "Writer", 10, 14)],  # receiver type declared in another file
    ),
    ("empty.py", "python", []),
]


def build(tmp_path: Path, files: list[FileSpec] = SHOP) -> G.Graph:
    conn = fill_index(tmp_path / "index.db", REPO, files)
    try:
        return realize(conn, REPO)
    finally:
        conn.close()


def test_nodes_have_stable_ids_without_lines(tmp_path: Path) -> None:
    g = build(tmp_path)
    ids = set(g.by_id)
    assert f"{REPO}|shop/payments.py|file|" in ids
    assert f"{REPO}|shop/payments.py|class|RefundProcessor" in ids
    assert f"{REPO}|shop/payments.py|method|RefundProcessor.process" in ids
    assert f"{REPO}|shop/payments.py|function|RefundProcessor.process.helper" in ids
    assert f"{REPO}|shop/payments.py|function|helper" in ids
    assert f"{REPO}|shop/payments.py|function|helper~2" in ids
    assert f"{REPO}|lib/shop/cart.rb|method|Shop::Cart#total" in ids
    assert f"{REPO}|empty.py|file|" in ids
    assert len(ids) == 4 + 6 + 4 + 1


def test_contains_edges_follow_lexical_nesting(tmp_path: Path) -> None:
    g = build(tmp_path)

    def parent(kind: str, q: str, path: str) -> str:
        return g.parent[f"{REPO}|{path}|{kind}|{q}"]

    assert (
        parent("class", "RefundProcessor", "shop/payments.py") == f"{REPO}|shop/payments.py|file|"
    )
    assert parent("method", "RefundProcessor.process", "shop/payments.py").endswith(
        "|class|RefundProcessor"
    )
    assert parent("function", "RefundProcessor.process.helper", "shop/payments.py").endswith(
        "|method|RefundProcessor.process"
    )
    assert parent("method", "Shop::Cart#total", "lib/shop/cart.rb").endswith("|class|Shop::Cart")
    assert parent("class", "Shop::Cart::Line", "lib/shop/cart.rb").endswith("|class|Shop::Cart")
    # the Go method's receiver lives in another file: it hangs off its own file
    assert (
        parent("method", "Writer.Flush", "pkg/buf/writer.go") == f"{REPO}|pkg/buf/writer.go|file|"
    )
    chain = [n.name for n in g.chain(f"{REPO}|lib/shop/cart.rb|class|Shop::Cart::Line")]
    assert chain == ["cart.rb", "Shop", "Cart"]


def shifted(files: list[FileSpec], by: int) -> list[FileSpec]:
    """A body edit in payments.py: everything below line 5 moves down `by` lines."""
    out: list[FileSpec] = []
    for path, lang, syms in files:
        if path == "shop/payments.py":
            syms = [
                (n, k, p, line + by if line > 5 else line, (end or line) + by)
                for n, k, p, line, end in syms
            ]
        out.append((path, lang, syms))
    return out


def test_body_edit_changes_graph_identity_not_lexical(tmp_path: Path) -> None:
    a = build(tmp_path / "a")
    b = build(tmp_path / "b", shifted(SHOP, 3))
    assert set(a.by_id) == set(b.by_id)
    assert a.identity != b.identity
    assert a.lexical_identity == b.lexical_identity


def test_rename_changes_both_identities(tmp_path: Path) -> None:
    renamed = [
        (
            p,
            lang,
            [
                (
                    "RefundHandler" if n == "RefundProcessor" else n,
                    k,
                    (par or "").replace("RefundProcessor", "RefundHandler") or None,
                    line,
                    end,
                )
                for n, k, par, line, end in syms
            ],
        )
        for p, lang, syms in SHOP
    ]
    a = build(tmp_path / "a")
    b = build(tmp_path / "b", renamed)
    assert a.identity != b.identity
    assert a.lexical_identity != b.lexical_identity


def test_export_is_canonical_and_round_trips(tmp_path: Path) -> None:
    g = build(tmp_path)
    out = tmp_path / "graph.json"
    GJ.dump(g, out)
    first = out.read_bytes()
    data = json.loads(first)
    assert data["schema"] == "rq.graph/1"
    assert data["repository"] == REPO
    assert data["identity"] == {"graph": g.identity, "lexical": g.lexical_identity}
    assert [n["id"] for n in data["nodes"]] == sorted(n["id"] for n in data["nodes"])
    back = GJ.load(out)
    assert back.identity == g.identity and back.lexical_identity == g.lexical_identity
    GJ.dump(back, out)
    assert out.read_bytes() == first
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_reordered_nodes_and_edges_load_to_the_same_realization(tmp_path: Path) -> None:
    g = build(tmp_path)
    data = g.to_json()
    data["nodes"].reverse()
    data["edges"] = data["edges"][1::2] + data["edges"][::2]
    back = GJ.from_json(data)
    assert back.identity == g.identity
    assert [n.id for n in back.nodes] == [n.id for n in g.nodes]


def _broken(tmp_path: Path, mutate) -> Path:  # type: ignore[no-untyped-def]
    g = build(tmp_path)
    data = g.to_json()
    mutate(data)
    p = tmp_path / "bad.json"
    p.write_text(json.dumps(data), encoding="utf-8")
    return p


def _dup(d: dict) -> None:  # type: ignore[type-arg]
    d["nodes"].append(dict(d["nodes"][3]))
    del d["identity"]


def _dangling(d: dict) -> None:  # type: ignore[type-arg]
    d["edges"].append({"kind": "contains", "from": d["nodes"][0]["id"], "to": "nowhere"})
    del d["identity"]


def _line(d: dict) -> None:  # type: ignore[type-arg]
    d["nodes"][2]["line"] = 0
    del d["identity"]


def _long(d: dict) -> None:  # type: ignore[type-arg]
    d["nodes"][2]["name"] = "x" * (G.MAX_TEXT_CHARS + 1)
    del d["identity"]


def _schema(d: dict) -> None:  # type: ignore[type-arg]
    d["schema"] = "compass.graph/1"


def _edited(d: dict) -> None:  # type: ignore[type-arg]
    d["nodes"][2]["line"] += 1  # identity block left stale


def _orphan(d: dict) -> None:  # type: ignore[type-arg]
    victim = next(n["id"] for n in d["nodes"] if n["kind"] != "file")
    d["edges"] = [e for e in d["edges"] if e["to"] != victim]
    del d["identity"]


def _two_parents(d: dict) -> None:  # type: ignore[type-arg]
    files = [n["id"] for n in d["nodes"] if n["kind"] == "file" and n["path"] == "shop/payments.py"]
    d["edges"].append(
        {
            "kind": "contains",
            "from": files[0],
            "to": f"{REPO}|shop/payments.py|method|RefundProcessor.process",
        }
    )
    del d["identity"]


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (_dup, "duplicate node ID"),
        (_dangling, "dangling edge"),
        (_line, "line must be"),
        (_long, "longer than"),
        (_schema, "is not 'rq.graph/1'"),
        (_edited, "does not match the content"),
        (_orphan, "contained by no node"),
        (_two_parents, "two containers"),
    ],
)
def test_bad_graphs_are_errors(tmp_path: Path, mutate, message: str) -> None:  # type: ignore[no-untyped-def]
    p = _broken(tmp_path, mutate)
    with pytest.raises(G.GraphError) as e:
        GJ.load(p)
    assert message in e.value.message
    assert int(e.value.code) == 74


def test_not_json_is_an_error(tmp_path: Path) -> None:
    p = tmp_path / "g.json"
    p.write_text("{nope", encoding="utf-8")
    with pytest.raises(G.GraphError, match="not valid JSON"):
        GJ.load(p)
    with pytest.raises(G.GraphError):
        GJ.load(tmp_path / "missing.json")


def test_id_components_are_escaped() -> None:
    assert G.stable_id("r", "a|b.py", "function", "f~1") == "r|a%7Cb.py|function|f%7E1"
    assert G.stable_id("r", "a.py", "function", "f", 3) == "r|a.py|function|f~3"


def test_export_respects_the_umask(tmp_path: Path) -> None:
    import os

    g = build(tmp_path)
    old = os.umask(0o022)
    try:
        GJ.dump(g, tmp_path / "g.json")
    finally:
        os.umask(old)
    assert (tmp_path / "g.json").stat().st_mode & 0o777 == 0o644
