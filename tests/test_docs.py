"""What the README and the user guide promise, run as written against a real `rq`.

The commands are read out of the documents' shell blocks, not copied here: a flag
renamed in the code or the docs alone fails this file. The guide's "What to type"
table is run row by row against a repository with each kind of definition.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import Repo, Run, rq_bin
from tests.tui.ptyproc import PtyProcess

ROOT = Path(__file__).resolve().parent.parent
DOCS = {name: ROOT / name for name in ("README.md", "docs/guide.md", "docs/cli.md")}

# A repository laid out as the guide's examples say (`rq -q refundproc` answers
# shop/payments/refunds.py:12), with a definition for every row of its table.
FILES = {
    "shop/payments/refunds.py": "\n".join(
        [
            '"""Refunds: money going back to the customer.',
            "",
            "A refund is issued against a settled order, in full or in part. The",
            "processor below talks to the payment gateway.",
            '"""',
            "",
            "from __future__ import annotations",
            "",
            "GATEWAY_TIMEOUT = 30",
            "",
            "",
            "class RefundProcessor:",
            "    def __init__(self, gateway):",
            "        self.gateway = gateway",
            "",
            "    def perform(self, order):",
            "        return self.gateway.refund(order)",
            "",
            "",
            "class Foo:",
            "    def __init__(self):",
            "        self.n = 0",
            "",
            "    def baz(self):",
            "        return self.n",
            "",
        ]
    ),
    "app/models/foo.rb": "module Foo\n  class Bar\n    def baz\n    end\n  end\nend\n",
    "pkg/func.go": "package pkg\n\nfunc Func() int {\n\treturn 1\n}\n",
    "engine/src/lib.rs": "pub struct Foo;\n\nimpl Foo {\n    pub fn new() -> Foo {\n        Foo\n    }\n}\n",
    "src/java/util/HashMap.java": "package java.util;\n\npublic class HashMap {\n}\n",
    "app/Http/Kernel.php": (
        "<?php\nnamespace App\\Http;\n\nclass Kernel\n{\n"
        "    public function handle($request)\n    {\n    }\n}\n"
    ),
    "templates/missing.py": (
        "class TemplateDoesNotExist(Exception):\n"
        '    """The template does not exist in any of the configured directories."""\n'
    ),
}


@pytest.fixture
def shop(make_repo: Callable[..., Repo], rq: Callable[..., Run]) -> Repo:
    repo = make_repo(FILES, name="shop")
    assert rq("--index", str(repo.root)).code == 0
    return repo


def shell_lines(doc: str) -> list[str]:
    """The `rq …` command lines of a document's ```sh blocks, comments dropped."""
    text = DOCS[doc].read_text(encoding="utf-8")
    out = []
    for body in re.findall(r"```sh\n(.*?)```", text, re.S):
        for line in body.splitlines():
            cmd = re.split(r"\s+#\s", line.strip(), maxsplit=1)[0].strip()
            if cmd.startswith("rq ") or cmd == "rq":
                out.append(cmd)
    return out


def is_picker(argv: list[str]) -> bool:
    """No one-shot or command flag: on a terminal, the picker opens."""
    commands = {"-q", "--json", "--ndjson", "--text", "--index", "--status", "--usage", "--drop"}
    commands.add("--mcp")  # a server on stdio: run with stdin closed, it answers EOF and exits 0
    return not commands.intersection(argv) and "--tmux" not in argv


def test_the_documents_show_commands() -> None:
    # (a guard for the extraction below: a doc reformatted away from ```sh must not
    # silently leave this file testing nothing)
    assert len(shell_lines("README.md")) >= 10
    assert len(shell_lines("docs/guide.md")) >= 2


@pytest.mark.parametrize("doc", ["README.md", "docs/guide.md"])
def test_every_one_shot_command_shown_runs(doc: str, shop: Repo, rq: Callable[..., Run]) -> None:
    """Each command runs with the documented flags: no usage error, no traceback, an
    exit code the docs define (0 results, 1 no match, 2 warming)."""
    ran = 0
    for cmd in shell_lines(doc):
        argv = shlex.split(cmd)[1:]
        if is_picker(argv) or "--tmux" in argv or "--drop" in argv:
            continue  # below: the picker on a terminal, the popup, forgetting
        r = rq(*argv, cwd=shop.root)
        assert r.code in (0, 1, 2), (cmd, r.code, r.err)
        assert "Traceback" not in r.err, (cmd, r.err)
        ran += 1
    assert ran >= 2


def test_the_guide_one_shot_answer_is_what_it_says(shop: Repo, rq: Callable[..., Run]) -> None:
    text = DOCS["docs/guide.md"].read_text(encoding="utf-8")
    m = re.search(r"^rq -q refundproc\s+# one-shot: (.+)$", text, re.M)
    assert m, "the guide's one-shot example moved"
    r = rq("-q", "refundproc", cwd=shop.root)
    assert r.code == 0
    assert r.out.splitlines()[0] == m.group(1)


def test_readme_drop_forgets_the_repository(shop: Repo, rq: Callable[..., Run]) -> None:
    assert "rq --drop ." in shell_lines("README.md")
    r = rq("--drop", ".", cwd=shop.root)
    assert r.code == 0 and "dropped" in r.err
    status = rq("--status", cwd=shop.root)
    assert str(shop.root) not in status.out


def test_drop_without_a_directory_means_here(shop: Repo, rq: Callable[..., Run]) -> None:
    assert rq("--drop", cwd=shop.root).code == 0
    again = rq("--drop", cwd=shop.root)
    assert again.code == 1 and "not indexed" in again.err


@pytest.mark.parametrize("doc", ["README.md", "docs/guide.md"])
def test_every_picker_command_shown_opens_and_quits(
    doc: str, shop: Repo, isolated_home: Path
) -> None:
    """On a terminal the documented picker commands draw the picker; Esc quits with 130
    and prints nothing (the guide's key table)."""
    import os

    seen = 0
    for cmd in shell_lines(doc):
        argv = shlex.split(cmd)[1:]
        if not is_picker(argv):
            continue
        # --print draws on the terminal and prints the pick on stdout (captured here)
        piped = "--print" in argv
        proc = PtyProcess(
            [*rq_bin(), *argv], cwd=shop.root, env=dict(os.environ), stdout_pipe=piped
        )
        try:
            proc.expect("complete")  # the status line: the index state
            proc.send("\x1b")
            assert proc.wait() == 130, cmd
        finally:
            proc.close()
        assert proc.stdout == "", cmd
        seen += 1
    assert seen >= 1


def test_the_tmux_popup_outside_tmux_says_so(shop: Repo, rq: Callable[..., Run]) -> None:
    r = rq("--tmux", cwd=shop.root, env={"TMUX": ""})
    assert r.code == 64
    assert r.err.strip() == "rq: --tmux needs a tmux session"


def what_to_type() -> list[tuple[str, str]]:
    """(query, what the guide says rq finds) for every query in the table."""
    text = DOCS["docs/guide.md"].read_text(encoding="utf-8")
    table = text.split("## What to type", 1)[1].split("\n\n", 2)[1]
    rows = []
    for line in table.splitlines()[2:]:
        cells = [c.strip() for c in line.strip("|").split("|")]
        for q in re.findall(r"`([^`]+)`", cells[0]):
            rows.append((q, cells[1]))
    return rows


def leaf(query: str) -> str:
    return re.split(r"::|#|\.|\\", query)[-1]


Hits = list[dict[str, object]]

# What each "rq finds" cell means, as a check of the ranked results of its query.
FINDS: dict[str, Callable[[str, Hits], bool]] = {
    "the class": lambda q, hs: hs[0]["qualified"] == "RefundProcessor",
    "`RefundProcessor`": lambda q, hs: hs[0]["qualified"] == "RefundProcessor",
    # beside a class spelled `RefundProcessor`, the function comes right behind it
    "`refund_processor`": lambda q, hs: (
        [h["name"] for h in hs[:2]] == ["RefundProcessor", "refund_processor"]
    ),
    # words typed apart: either spelling, exact, neither paying for its joiners
    "`refund_processor`, `RefundProcessor`": lambda q, hs: (
        {h["name"] for h in hs[:2]} == {"refund_processor", "RefundProcessor"}
        and all(h["score"] >= 2000 for h in hs[:2])
    ),
    "`render_to_string`, `ListenAndServe`": lambda q, hs: (
        hs[0]["name"] == {"renderstring": "render_to_string", "listenserve": "ListenAndServe"}[q]
    ),
    # the leaf, in the scope the query names (`pkg.Func`: Func in package pkg)
    "`baz` inside `Bar` inside `Foo`": lambda q, hs: (
        hs[0]["name"] == leaf(q)
        and hs[0]["path"]
        == {
            "Foo::Bar#baz": "app/models/foo.rb",
            "Foo.baz": "shop/payments/refunds.py",
            "pkg.Func": "pkg/func.go",
        }[q]
    ),
    "a Java type in its package, a PHP member in its namespace": lambda q, hs: (
        hs[0]["name"] == leaf(q)
        and hs[0]["path"]
        == {"java.util.HashMap": "src/java/util/HashMap.java"}.get(q, "app/Http/Kernel.php")
    ),
    "Foo's constructor (or Foo itself)": lambda q, hs: (
        hs[0]["name"] in ("Foo", "new", "__init__", "initialize")
        and str(hs[0]["qualified"]).startswith("Foo")
    ),
}


def test_the_guide_what_to_type_table(
    shop: Repo, make_repo: Callable[..., Repo], rq: Callable[..., Run]
) -> None:
    rows = what_to_type()
    assert len(rows) >= 12
    # the joiners row speaks of a function beside a class of the same letters: the
    # other rows' abbreviations (`refproc`) would rightly find that function too
    legacy = make_repo(
        {
            **FILES,
            "shop/payments/legacy.py": "def refund_processor(order):\n    return order\n",
            "shop/templates.py": "def render_to_string(name):\n    return name\n",
            "pkg/serve.go": "package pkg\n\nfunc ListenAndServe() {\n}\n",
        },
        name="legacy",
    )
    for query, finds in rows:
        assert finds in FINDS, f"a new row in the guide's table: {finds!r} (teach this test)"
        where = legacy if "_" in finds else shop  # (a snake_case name: legacy's files)
        r = rq("-q", "--json", query, cwd=where.root)
        assert r.code == 0, (query, r.err)
        hits = json.loads(r.out)["results"]
        assert FINDS[finds](query, hits), (query, finds, [h["qualified"] for h in hits[:3]])


def help_flags(rq: Callable[..., Run]) -> set[str]:
    r = rq("--help")
    assert r.code == 0
    text = re.sub(r"-\n\s+", "-", r.out)  # a flag the help wrapped after its hyphen
    return set(re.findall(r"(?<![\w-])(--[a-z][a-z-]+|-[a-zA-Z])\b", text)) - {"-h", "--help"}


def test_cli_reference_names_every_flag_of_help(rq: Callable[..., Run]) -> None:
    """docs/cli.md and `rq --help` name the same flags: one cannot grow alone."""
    text = DOCS["docs/cli.md"].read_text()
    shown = " ".join(re.findall(r"```\n(.*?)```", text, re.S) + re.findall(r"`([^`\n]+)`", text))
    documented = set(re.findall(r"(?<![\w-])(--[a-z][a-z-]+|-[a-zA-Z])\b", shown))
    flags = help_flags(rq)
    assert flags - documented == set(), "flags in --help that docs/cli.md does not describe"
    assert documented - flags == set(), "flags in docs/cli.md that rq lacks"


def test_help_and_cli_reference_agree_on_exit_codes(rq: Callable[..., Run]) -> None:
    text = DOCS["docs/cli.md"].read_text()
    table = text.split("## Exit codes", 1)[1]
    documented = [int(c) for c in re.findall(r"^\| (\d+) \|", table, re.M)]
    said = rq("--help").out.split("Exit codes:", 1)[1]
    in_help = [int(c) for c in re.findall(r"\b(\d+) [a-zI]", said)]
    assert documented == in_help == [0, 1, 2, 3, 64, 74, 130]


def test_the_default_limit_is_twenty(
    make_repo: Callable[..., Repo], rq: Callable[..., Run]
) -> None:
    assert re.search(r"\(default 20\)", rq("--help").out)
    repo = make_repo({"m.py": "".join(f"def handler_{i:02d}():\n    pass\n" for i in range(30))})
    r = rq("-q", "handler", cwd=repo.root)
    assert r.code == 0 and len(r.out.splitlines()) == 20
    assert len(rq("-q", "--limit", "25", "handler", cwd=repo.root).out.splitlines()) == 25


def test_a_reader_that_leaves_early_is_not_an_error(
    make_repo: Callable[..., Repo], rq: Callable[..., Run]
) -> None:
    """`rq Foo | head -1`: the pipe closes under rq; it exits 0 without a traceback."""
    import subprocess

    repo = make_repo({"m.py": "".join(f"def handler_{i:03d}():\n    pass\n" for i in range(400))})
    assert rq("--index", str(repo.root)).code == 0
    p = subprocess.run(
        f'{shlex.join(rq_bin())} --limit 400 handler | head -1; echo "rq=${{PIPESTATUS[0]}}"',
        shell=True,
        executable="/bin/bash",
        cwd=repo.root,
        capture_output=True,
        text=True,
        timeout=60,
    )
    lines = p.stdout.splitlines()
    assert lines[0].startswith("m.py:") and lines[-1] == "rq=0", p.stdout
    assert "Traceback" not in p.stderr and "Broken pipe" not in p.stderr, p.stderr


def test_run_as_if_started_in_another_directory(
    shop: Repo, rq: Callable[..., Run], tmp_path: Path
) -> None:
    r = rq("-C", str(shop.root), "-q", "RefundProcessor", cwd=tmp_path)
    assert r.code == 0 and r.out.startswith("shop/payments/refunds.py:12")
    bad = rq("-C", str(tmp_path / "nowhere"), "-q", "RefundProcessor", cwd=tmp_path)
    assert bad.code == 64 and bad.err.startswith("rq: -C ") and len(bad.err.splitlines()) == 1


def test_text_on_a_repository_not_indexed_yet_exits_2_and_warms_it(
    make_repo: Callable[..., Repo], rq: Callable[..., Run], tmp_path: Path
) -> None:
    """Exit 2 is "no match yet": `rq --text --no-wait` in a never-indexed work tree says
    so, and leaves the warming behind it (RQ_WARM_DETACH=0 here: done before exit)."""
    repo = make_repo({"a.py": 'class RefundProcessor:\n    """refund the money"""\n'})
    first = rq("--text", "refund processor", "--no-wait", cwd=repo.root)
    assert first.code == 2 and first.err == f"rq: {repo.root} is not indexed yet\n"
    again = rq("--text", "refund processor", "--no-wait", cwd=repo.root)
    assert again.code == 0 and again.out.startswith("a.py:1  class  RefundProcessor")
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "b.py").write_text("def f():\n    pass\n")
    r = rq("--text", "f", cwd=plain)
    assert r.code == 2 and r.err == f"rq: {plain} is not indexed yet (run rq --index {plain})\n"
