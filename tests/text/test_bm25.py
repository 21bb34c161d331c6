"""bm25-v1 arithmetic against an independent reference, ceilings, truncation, rerank, reuse."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rq_engine.text import lexical
from rq_engine.text.bm25 import PROFILE, Bm25Profile
from rq_engine.text.graph import Edge, Graph, Node, file_id, stable_id
from rq_engine.text.memory import Bm25Index
from rq_engine.text.query import TextQuery
from rq_engine.text.service import BM25, FULL_SCAN, Realization, TextService

R = "local:/t"


def g_of(spec: list[tuple[str, str, str, str | None]]) -> Graph:
    """Nodes from (path, kind, name, parent name or None); parents must precede children."""
    nodes: dict[str, Node] = {}
    edges: list[Edge] = []
    line = 1
    by_name: dict[tuple[str, str], str] = {}
    for path, kind, name, parent in spec:
        fid = file_id(R, path)
        if fid not in nodes:
            nodes[fid] = Node(fid, "file", path.rsplit("/", 1)[-1], path, path, 1, None, "python")
        q = f"{parent}.{name}" if parent else name
        nid = stable_id(R, path, kind, q)
        nodes[nid] = Node(nid, kind, name, q, path, line, line + 1, "python")
        by_name[(path, q)] = nid
        edges.append(Edge(by_name[(path, parent)] if parent else fid, nid))
        line += 3
    return Graph(R, nodes.values(), edges)


CORPUS = g_of(
    [
        ("django/core/paginator.py", "class", "Paginator", None),
        ("django/core/paginator.py", "method", "page", "Paginator"),
        ("django/core/paginator.py", "method", "get_page", "Paginator"),
        ("django/core/paginator.py", "class", "Page", None),
        ("django/core/mail/__init__.py", "function", "send_mail", None),
        ("django/contrib/auth/forms.py", "class", "PasswordResetForm", None),
        ("django/contrib/auth/forms.py", "method", "send_mail", "PasswordResetForm"),
        ("tests/pagination/tests.py", "class", "PaginationTests", None),
        ("tests/pagination/tests.py", "method", "test_paginator_page", "PaginationTests"),
        ("django/db/models/query.py", "class", "QuerySet", None),
        ("django/db/models/query.py", "method", "select_related", "QuerySet"),
        ("django/db/models/sql/query.py", "class", "Query", None),
    ]
)


def _reference_tokens(doc: lexical.LexicalDocument, profile: Bm25Profile) -> list[str]:
    """A document as plain BM25 sees it: every field's terms repeated `weight` times."""
    toks: list[str] = []
    for f, w in profile.weights:
        toks.extend(lexical.analyze_field(f, doc.field(f)) * w)
    return toks


def _reference_length(doc: lexical.LexicalDocument, profile: Bm25Profile) -> int:
    lengths = doc.lengths()
    return sum(w * lengths[f] for f, w in profile.weights)


QUERIES = [
    "paginator page",
    "send mail",
    "method paginator page",
    "queryset select related",
    "query",
    "page",
    "django",
    "function send mail tests",
]


@pytest.mark.parametrize("text", QUERIES)
def test_scores_match_rank_bm25_to_1e_9(text: str) -> None:
    rank_bm25 = pytest.importorskip("rank_bm25")

    class LuceneIdf(rank_bm25.BM25Okapi):  # type: ignore[misc,name-defined]
        # rank_bm25's Okapi idf floors negative values at eps*mean; bm25-v1 uses the
        # non-negative ln(1 + (N - df + .5)/(df + .5)). Written out here, independently.
        def _calc_idf(self, nd: dict[str, int]) -> None:
            for word, freq in nd.items():
                self.idf[word] = math.log(1 + (self.corpus_size - freq + 0.5) / (freq + 0.5))

    docs = CORPUS.documents()
    index = Bm25Index(docs)
    ref = LuceneIdf([_reference_tokens(d, PROFILE) for d in docs], k1=PROFILE.k1, b=PROFILE.b)
    # bm25-v1's length counts words, not compounds or kind aliases: give the
    # reference those lengths and let it recompute its own average.
    ref.doc_len = [_reference_length(d, PROFILE) for d in docs]
    ref.avgdl = sum(ref.doc_len) / len(ref.doc_len)
    terms = list(TextQuery.parse(text).cover)
    expected = ref.get_scores(terms)
    got = index.score_terms(terms)
    for d, e in zip(docs, expected, strict=True):
        assert got.get(d.id, 0.0) == pytest.approx(float(e), abs=1e-9, rel=0)
    assert index.avgdl == pytest.approx(ref.avgdl, abs=1e-12)


def test_formula_written_out() -> None:
    """One document, one term, by hand: idf * tf(k1+1) / (tf + k1(1 - b + b dl/avgdl))."""
    docs = CORPUS.documents()
    index = Bm25Index(docs)
    d = next(x for x in docs if x.qualified == "Paginator.page")
    toks = _reference_tokens(d, PROFILE)
    all_toks = [_reference_tokens(x, PROFILE) for x in docs]
    n = len(docs)
    avgdl = sum(_reference_length(x, PROFILE) for x in docs) / n
    dl = _reference_length(d, PROFILE)
    df = sum(1 for t in all_toks if "page" in t)
    tf = toks.count("page")
    idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
    want = (
        idf * tf * (PROFILE.k1 + 1) / (tf + PROFILE.k1 * (1 - PROFILE.b + PROFILE.b * dl / avgdl))
    )
    assert index.score_terms(["page"])[d.id] == pytest.approx(want, abs=1e-12)


def test_ranking_prefers_the_node_covering_every_word() -> None:
    svc = TextService()
    real = Realization(CORPUS, {})
    a = svc.query(real, "method paginator page", BM25)
    assert a.hits[0][0].qualified == "Paginator.page"
    a = svc.query(real, "queryset select related", BM25)
    assert a.hits[0][0].qualified == "QuerySet.select_related"
    a = svc.query(real, "function send mail", BM25)
    assert a.hits[0][0].path == "django/core/mail/__init__.py"


def test_no_answer_when_the_query_is_mostly_unknown() -> None:
    svc = TextService()
    a = svc.query(Realization(CORPUS, {}), "kubernetes pod paginator", BM25)
    assert a.hits == [] and a.ranking.no_answer and "covers" in a.ranking.no_answer


def test_reordered_nodes_rank_identically() -> None:
    data = CORPUS.to_json()
    data["nodes"].reverse()
    data["edges"].reverse()
    from rq_engine.text.graphjson import from_json

    other = from_json(data)
    for text in QUERIES:
        for prof in (BM25, FULL_SCAN):
            a = TextService(keep=0).query(Realization(CORPUS, {}), text, prof, limit=None)
            b = TextService(keep=0).query(Realization(other, {}), text, prof, limit=None)
            assert [(r.id, r.score) for r in a.ranking.results] == [
                (r.id, r.score) for r in b.ranking.results
            ]
            assert a.ranking.truncated == b.ranking.truncated


def wide_graph(n: int) -> Graph:
    """n functions sharing the word `common`, a few with rarer words."""
    spec = [(f"pkg/m{i % 50}.py", "function", f"common_thing_{i}", None) for i in range(n)]
    spec.append(("pkg/special.py", "function", "common_rare", None))
    spec.append(("pkg/z.py", "function", "CommonThing", None))  # exact match of "common thing"
    return g_of(spec)


def test_ceiling_truncates_explicitly_and_keeps_protected_candidates() -> None:
    g = wide_graph(300)
    small = Bm25Profile(ceiling=50, min_coverage=0.0)
    idx = Bm25Index(g.documents(), small)
    r = idx.search(g, TextQuery.parse("common thing"))
    assert r.truncated is True
    assert 50 <= r.candidates <= 50 + 3
    ids = [x.id for x in r.results]
    assert stable_id(R, "pkg/z.py", "function", "CommonThing") in ids  # exact match kept
    r_all = Bm25Index(g.documents(), Bm25Profile(ceiling=10_000, min_coverage=0.0)).search(
        g, TextQuery.parse("common thing")
    )
    assert r_all.truncated is False
    assert len(r_all.results) == 302
    # the rarest term admits first; best candidate per term survives the cut
    r2 = idx.search(g, TextQuery.parse("rare common"))
    assert r2.results[0].id == stable_id(R, "pkg/special.py", "function", "common_rare")


def test_rerank_reads_the_current_edges_and_reuses_postings() -> None:
    base = [
        ("a.py", "class", "AlphaOne", None),
        ("a.py", "class", "AlphaTwo", None),
        ("a.py", "function", "delta_helper", None),
    ]
    g1 = g_of(base)
    two = stable_id(R, "a.py", "class", "AlphaTwo")
    helper = stable_id(R, "a.py", "function", "delta_helper")
    # same nodes, one edge moved: AlphaTwo now contains delta_helper
    g2 = Graph(R, g1.nodes, [e for e in g1.edges if e.dst != helper] + [Edge(two, helper)])
    assert g1.lexical_identity == g2.lexical_identity and g1.identity != g2.identity
    svc = TextService(keep=2)
    a1 = svc.query(Realization(g1, {}), "alpha delta", BM25, explain=True)
    a2 = svc.query(Realization(g2, {}), "alpha delta", BM25, explain=True)
    assert svc.built == 1  # the edge-only change reused the postings
    assert two not in [r.id for r in a1.ranking.results]
    top = a2.ranking.results[0]
    assert top.id == two and top.structure > 0
    assert top.explain is not None and top.explain.structure[0].child == helper
    assert top.explain.structure[0].units == ("delta",)


def test_explain_parts_sum_to_the_score() -> None:
    a = TextService().query(Realization(CORPUS, {}), "method paginator page", BM25, explain=True)
    for r in a.ranking.results:
        assert r.explain is not None
        lex = math.fsum(t.contribution for t in r.explain.terms)
        assert lex == pytest.approx(r.lexical, abs=1e-9)
        for t in r.explain.terms:
            assert math.fsum(f.contribution for f in t.fields) == pytest.approx(t.contribution)
        add = sum(f.value for f in r.explain.features if f.op == "+")
        factor = math.prod(f.value for f in r.explain.features if f.op == "x")
        assert r.score == pytest.approx((r.lexical + r.structure + add) * factor)


def test_full_scan_scans_everything_and_never_truncates() -> None:
    a = TextService().query(Realization(CORPUS, {}), "paginator page", FULL_SCAN, limit=None)
    assert a.ranking.truncated is False
    assert a.ranking.profile == "text-ranker/full-scan-v1"
    assert a.ranking.results[0].coverage == 1.0
    assert {n.qualified for n, _ in a.hits} >= {
        "Paginator",
        "Page",
        "PaginationTests.test_paginator_page",
    }


words = st.sampled_from(["alpha", "beta", "gamma", "Delta", "eps_ilon", "zetaEta", "theta9"])


@settings(max_examples=40, deadline=None)
@given(
    names=st.lists(st.tuples(words, words), min_size=1, max_size=12),
    query=st.lists(words, min_size=1, max_size=4),
)
def test_scores_are_order_independent_and_nonnegative(
    names: list[tuple[str, str]], query: list[str]
) -> None:
    spec = [(f"p{i}.py", "function", f"{a}_{b}", None) for i, (a, b) in enumerate(names)]
    g = g_of(spec)
    docs = g.documents()
    terms = list(TextQuery.parse(" ".join(query)).cover)
    s1 = Bm25Index(docs).score_terms(terms)
    s2 = Bm25Index(list(reversed(docs))).score_terms(terms)
    assert s1 == s2
    assert all(v >= 0 for v in s1.values())


def _top(g: Graph, text: str) -> list[str]:
    a = TextService(keep=0).query(Realization(g, {}), text, BM25, limit=None, explain=True)
    return [n.path + ":" + n.qualified for n, _ in a.hits]


def test_compiled_and_declaration_twins_rank_after_their_source() -> None:
    g = g_of(
        [
            ("package/dist/Layer.js", "function", "mergeAll", None),
            ("package/dist/Layer.d.ts", "constant", "mergeAll", None),
            ("package/src/Layer.ts", "function", "mergeAll", None),
            ("lib/x.pyi", "function", "merge_all", None),
            ("lib/x.py", "function", "merge_all", None),
        ]
    )
    assert _top(g, "layer merge all")[0] == "package/src/Layer.ts:mergeAll"
    assert _top(g, "x merge all")[0] == "lib/x.py:merge_all"
    # without a source twin a JavaScript definition is an ordinary answer
    solo = g_of([("dist/only.js", "function", "mergeAll", None)])
    assert _top(solo, "merge all") == ["dist/only.js:mergeAll"]


def test_test_code_yields_unless_the_query_asks_for_tests() -> None:
    g = g_of(
        [
            ("tests/signal_ctrl_c.rs", "function", "ctrl_c", None),
            ("src/signal/ctrl_c.rs", "function", "ctrl_c", None),
        ]
    )
    assert _top(g, "signal ctrl c")[0] == "src/signal/ctrl_c.rs:ctrl_c"
    assert _top(g, "signal ctrl c tests")[0] == "tests/signal_ctrl_c.rs:ctrl_c"


def test_a_kind_word_prefers_that_kind_but_not_over_a_name() -> None:
    g = g_of(
        [
            ("lib/assoc/builder/has_many.rb", "class", "HasMany", None),
            ("lib/assoc.rb", "module", "ClassMethods", None),
            ("lib/assoc.rb", "method", "has_many", "ClassMethods"),
        ]
    )
    assert _top(g, "method has many")[0] == "lib/assoc.rb:ClassMethods.has_many"
    assert _top(g, "class methods")[0] == "lib/assoc.rb:ClassMethods"


def test_exact_spelling_breaks_ties_towards_the_name_as_typed() -> None:
    g = g_of(
        [
            ("subprocess.py", "class", "Popen", None),
            ("subprocess.py", "method", "_communicate", "Popen"),
            ("subprocess.py", "method", "communicate", "Popen"),
        ]
    )
    assert _top(g, "subprocess popen communicate")[0] == "subprocess.py:Popen.communicate"


def test_a_cut_that_loses_no_acceptable_answer_is_not_truncation() -> None:
    """Past the ceiling, documents met only through a common kind word cannot reach
    the coverage threshold: refusing them is no truncation."""
    spec = [(f"m{i % 20}.py", "function", f"thing{i}", None) for i in range(200)]
    spec.append(("rare.py", "function", "zebra_handler", None))
    g = g_of(spec)
    idx = Bm25Index(g.documents(), Bm25Profile(ceiling=50))
    r = idx.search(g, TextQuery.parse("function zebra handler"))
    assert r.truncated is False
    assert [x.id for x in r.results] == [stable_id(R, "rare.py", "function", "zebra_handler")]
    loose = Bm25Index(g.documents(), Bm25Profile(ceiling=50, min_coverage=0.0))
    assert loose.search(g, TextQuery.parse("function zebra handler")).truncated is True
