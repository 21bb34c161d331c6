"""Golden-table helpers for the language plugin tests (fixtures/<lang>/<name>.<ext> + .expected.tsv)."""

from __future__ import annotations

import random
from pathlib import Path

from rq_engine.core.model import Symbol
from rq_engine.lang import registry
from rq_engine.lang.base import LanguagePlugin

FIXTURES = Path(__file__).resolve().parent / "fixtures"


def rows(symbols: list[Symbol]) -> list[str]:
    """One tab-separated row per symbol: name kind parent line end_line visibility."""
    return [
        "\t".join(
            (
                s.name,
                s.kind.value,
                s.parent or "-",
                str(s.line),
                str(s.end_line),
                s.visibility.value,
            )
        )
        for s in symbols
    ]


def expected(path: Path) -> list[str]:
    table = path.with_name(path.name.split(".")[0] + ".expected.tsv")
    lines = table.read_text(encoding="utf-8").splitlines()
    return [line for line in lines if line and not line.startswith("#")]


def line_table(symbols: list[Symbol]) -> list[str]:
    """One tab-separated row per symbol: line end_line kind visibility parent name."""
    return [
        f"{s.line}\t{s.end_line}\t{s.kind.value}\t{s.visibility.value}\t{s.parent or '-'}\t{s.name}"
        for s in symbols
    ]


def expected_lines(path: Path) -> list[str]:
    """The rows of a `<fixture>.expected` table, comments and blank lines left out."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return [ln for ln in lines if ln and not ln.startswith("#")]


def check_golden(language: str, fixture: str) -> None:
    path = FIXTURES / language / fixture
    symbols = registry.plugin(language).extract(path.read_bytes())
    assert rows(symbols) == expected(path)
    assert {s.language for s in symbols} == {language}
    lines = [s.line for s in symbols]
    assert lines == sorted(lines), "symbols come in source order"
    assert all(s.line <= s.end_line for s in symbols)


def garbage_inputs(fixture: Path) -> list[bytes]:
    """Truncations of a real fixture, random bytes, NULs, invalid UTF-8 and deep nesting."""
    src = fixture.read_bytes()
    rng = random.Random(20261130)
    cases = [src[:cut] for cut in range(0, len(src), 23)]
    cases += [src[cut:] for cut in range(0, len(src), 97)]
    cases += [bytes(rng.randrange(256) for _ in range(rng.randrange(1, 400))) for _ in range(40)]
    cases += [
        b"",
        b"\x00" * 64,
        b"\xff\xfe" + src,
        src.replace(b"e", b"\xe9"),
        b"(" * 5000,
        b"{" * 5000,
    ]
    shuffled = bytearray(src)
    rng.shuffle(shuffled)
    cases.append(bytes(shuffled))
    return cases


def check_never_raises(plugin: LanguagePlugin, fixture: Path) -> None:
    for case in garbage_inputs(fixture):
        for s in plugin.extract(case):
            assert isinstance(s.name, str) and s.name
            assert 1 <= s.line <= s.end_line


def check_registry_agrees(plugin: LanguagePlugin) -> None:
    """The registry's answers for the plugin's language are its spec's."""
    assert type(registry.plugin(plugin.name)) is type(plugin)
    assert registry.constructor_names().get(plugin.name) == plugin.spec.constructor_name
    assert registry.scope_separators()[plugin.name] == plugin.spec.scope_separator
    for ext in plugin.spec.extensions:
        assert registry.language_for_path(f"dir/file{ext}") == plugin.name


def ctags_recall(root: Path, language: str, ctags_language: str, kinds: set[str]) -> float:
    """Share of universal-ctags (file, name) definitions of `kinds` the plugin also emits."""
    import json
    import os
    import subprocess

    files = []
    for d, dirs, names in os.walk(root):
        dirs[:] = [x for x in dirs if x != ".git"]
        for n in names:
            rel = os.path.relpath(os.path.join(d, n), root)
            if registry.language_for_path(rel) == language:
                files.append(rel)
    out = subprocess.run(
        [
            "ctags",
            f"--language-force={ctags_language}",
            "--output-format=json",
            "-L",
            "-",
            "-f",
            "-",
        ],
        cwd=root,
        input="\n".join(files),
        capture_output=True,
        text=True,
        errors="replace",
        check=True,
    ).stdout
    theirs = set()
    for line in out.splitlines():
        tag = json.loads(line)
        if tag.get("kind") in kinds:
            theirs.add((tag["path"], tag["name"]))
    plugin = registry.plugin(language)
    ours = {(rel, s.name) for rel in files for s in plugin.extract((root / rel).read_bytes())}
    assert theirs, "ctags found nothing: the comparison would be vacuous"
    return len(theirs & ours) / len(theirs)
