"""rq_engine/lang/_bodies.py: which Java, PHP and Go bodies are left out of the parse.

Extraction cannot show most of these rules (a body's inside yields no symbol either
way; their effect is the parse time), so the spans are checked directly, and then
that every fixture extracts the same with and without them.
"""

from __future__ import annotations

import pytest

from rq_engine.lang import _bodies, registry
from tests.conftest import corpus
from tests.lang.golden_tables import FIXTURES


def _cut(spans: list[tuple[int, int, int, int]], src: bytes) -> list[bytes]:
    return [src[a:b] for a, _, b, _ in spans]


def test_java_method_bodies_follow_the_layout_only_where_it_is_the_nesting() -> None:
    method = b"class A {\n    int f() {\n        return 1;\n    }\n}\n"
    assert _cut(_bodies.java(method), method) == [b"        return 1;\n"]
    throws = b"class A {\n    void f() throws IOException {\n        g();\n    }\n}\n"
    assert _cut(_bodies.java(throws), throws) == [b"        g();\n"]
    # the rows are the file's own
    (span,) = _bodies.java(method)
    assert span[1] == 2 and span[3] == 3
    # a record's header ends in `)` too, and its body holds members
    record = b"record P(int x) {\n    int y() {\n        return x;\n    }\n}\n"
    assert _cut(_bodies.java(record), record) == [b"        return x;\n"]
    # a `}` a column off (JDK's BigInteger) makes the layout a lie: parsed
    lie = b"class A {\n    void f() {\n         x();\n     }\n\n     void g() {\n         y();\n     }\n}\n"
    assert [s for s in _cut(_bodies.java(lie), lie) if b"x();" in s] == []
    # a text block, comments that end in `) {`, an empty body
    block = b'class A {\n    String f() {\n        return """\n{\n""";\n    }\n}\n'
    assert _bodies.java(block) == []
    assert _bodies.java(b"    // see f() {\n        x;\n    }\n") == []
    assert _bodies.java(b"class A {\n    void f() {\n    }\n}\n") == []


def test_php_function_bodies_only_after_a_function_head() -> None:
    psr = (
        b"<?php\nclass A\n{\n    public function f($x): ?int\n    {\n        return 1;\n    }\n}\n"
    )
    assert _cut(_bodies.php(psr), psr) == [b"        return 1;\n"]
    same = b"<?php\nfunction g() {\n    return 2;\n}\n"
    assert _cut(_bodies.php(same), same) == [b"    return 2;\n"]
    # a file-level `if` holds definitions (Laravel's helpers): never left out
    helpers = (
        b"<?php\nif (! function_exists('h')) {\n    function h() {\n        return 3;\n    }\n}\n"
    )
    assert _cut(_bodies.php(helpers), helpers) == [b"        return 3;\n"]
    # a heredoc or `?>` inside: parsed
    heredoc = b"<?php\nfunction k() {\n    $s = <<<EOT\n{\nEOT;\n}\n"
    assert _bodies.php(heredoc) == []
    html = b"<?php\nfunction t() {\n    ?>\n    <b>{x}</b>\n    <?php\n}\n"
    assert _bodies.php(html) == []


def test_go_bodies_only_of_column_0_funcs_closed_at_column_0() -> None:
    src = b"package p\n\nfunc f(a int) int {\n\tx := a\n\treturn x\n}\n"
    assert _cut(_bodies.go(src), src) == [b"\tx := a\n\treturn x\n"]
    method = b"func (r *R) Read(p []byte) (int, error) {\n\treturn 0, nil\n}\n"
    assert _cut(_bodies.go(method), method) == [b"\treturn 0, nil\n"]
    raw = b"func f() string {\n\treturn `\n}\n`\n}\n"  # a raw string holding a `}` line
    assert _bodies.go(raw) == []
    comment = b"func f() {\n\t/*\n}\n*/\n\tg()\n}\n"
    assert _bodies.go(comment) == []
    literal = b"var f = func() {\n\tg()\n}\n"  # a func literal: not a declaration's head
    assert _bodies.go(literal) == []
    assert _bodies.go(b"func f() {\n}\n") == []  # nothing to leave out


@pytest.mark.parametrize(
    "lang,fixture", [("java", "sample.java"), ("php", "sample.php"), ("go", "sample.go")]
)
def test_fixtures_extract_the_same_without_the_bodies(
    lang: str, fixture: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    src = (FIXTURES / lang / fixture).read_bytes()
    plugin = registry.plugin(lang)
    assert getattr(_bodies, lang)(src), "the fixture should have a body to leave out"

    def rows() -> list[tuple[object, ...]]:
        return [
            (s.name, s.kind, s.line, s.end_line, s.parent, s.visibility)
            for s in plugin.extract(src)
        ]

    skipped = rows()
    monkeypatch.setattr(_bodies, lang, lambda source: [])
    assert rows() == skipped


@pytest.mark.corpus
def test_go_std_net_extracts_the_same_without_the_bodies(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every file of Go's net and net/http: the same symbols, lines and parents with
    the bodies left out as with the whole parse, and most files had some to leave out."""
    root = corpus("gostd") / "src" / "net"
    files = sorted(root.glob("*.go")) + sorted((root / "http").glob("*.go"))
    assert len(files) > 150
    plugin = registry.plugin("go")
    sources = [p.read_bytes() for p in files]
    assert sum(1 for src in sources if _bodies.go(src)) > len(files) // 2
    skipped = [plugin.extract(src) for src in sources]
    monkeypatch.setattr(_bodies, "go", lambda source: [])
    assert [plugin.extract(src) for src in sources] == skipped
