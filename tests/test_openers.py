"""`rq -o/--open`, `--show` and `--web`: the best match opened, printed or linked,
through real `rq` processes on real git repositories."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import Repo, Run
from tests.test_cli_args import argparse_reads, fast_path
from tests.test_hot_path import HEAVY, PROBE

FILES = {
    "pkg/shapes.py": (
        "import math\n"
        "\n"
        "\n"
        "class Circle:\n"
        "    def area(self):\n"
        "        return math.pi\n"
        "\n"
        "\n"
        "def unrelated():\n"
        "    pass\n"
    ),
    "pkg/circle_util.py": "def circle_helper():\n    pass\n",
}


@pytest.fixture
def shapes(make_repo: Callable[..., Repo], rq: Callable[..., Run]) -> Repo:
    repo = make_repo(FILES, remote="git@github.com:Org/Shapes.git")
    assert rq("--index", str(repo.root)).code == 0
    return repo


def fake_editor(tmp_path: Path, name: str, code: int = 7) -> tuple[Path, Path]:
    """An executable called `name` that records its argv and cwd, then exits `code`."""
    record = tmp_path / f"{name}.json"
    exe = tmp_path / "bin" / name
    exe.parent.mkdir(exist_ok=True)
    exe.write_text(
        f"#!{sys.executable}\nimport json, os, sys\n"
        f"json.dump({{'argv': sys.argv[1:], 'cwd': os.getcwd()}}, open({str(record)!r}, 'w'))\n"
        f"sys.exit({code})\n"
    )
    exe.chmod(0o755)
    return exe, record


@pytest.mark.parametrize(
    ("name", "var", "expected"),
    [
        ("hx", "EDITOR", ["{path}:4"]),  # colon family
        ("nvim", "VISUAL", ["+4", "{path}"]),  # plus-line family
        ("code", "EDITOR", ["--goto", "{path}:4"]),
    ],
)
def test_open_hands_the_best_match_to_the_editor_with_its_line_syntax(
    shapes: Repo,
    rq: Callable[..., Run],
    tmp_path: Path,
    name: str,
    var: str,
    expected: list[str],
) -> None:
    exe, record = fake_editor(tmp_path, name)
    r = rq("-o", "Circle", cwd=shapes.root / "pkg", env={var: str(exe)})
    assert r.code == 7, r.err  # the editor's exit code
    assert r.out == ""
    got = json.loads(record.read_text())
    path = f"{shapes.root}/pkg/shapes.py"
    assert got["argv"] == [a.format(path=path) for a in expected]
    assert got["cwd"] == str(shapes.root / "pkg")  # where rq was started, as the picker


def test_open_on_a_miss_is_the_miss_of_q_and_starts_no_editor(
    shapes: Repo, rq: Callable[..., Run], tmp_path: Path
) -> None:
    exe, record = fake_editor(tmp_path, "hx")
    q = rq("-q", "Zzyzx", cwd=shapes.root)
    r = rq("--open", "Zzyzx", cwd=shapes.root, env={"EDITOR": str(exe)})
    assert (r.code, r.out, r.err) == (q.code, q.out, q.err) == (1, "", "")
    assert not record.exists()


def test_open_with_an_editor_that_cannot_start_is_one_line_and_74(
    shapes: Repo, rq: Callable[..., Run]
) -> None:
    r = rq("-o", "Circle", cwd=shapes.root, env={"EDITOR": "no-such-editor-rq"})
    assert r.code == 74
    assert r.err.count("\n") == 1 and "no-such-editor-rq" in r.err and r.out == ""


def test_show_prints_the_span_under_a_header_and_follows_an_edit(
    shapes: Repo, rq: Callable[..., Run]
) -> None:
    r = rq("--show", "Circle", cwd=shapes.root)
    assert r.code == 0, r.err
    assert r.out == (
        "pkg/shapes.py:4\nclass Circle:\n    def area(self):\n        return math.pi\n"
    )
    assert r.err == ""
    # The file changed since it was indexed: the revalidated location, re-read.
    shapes.write("pkg/shapes.py", "# new\n# lines\n" + FILES["pkg/shapes.py"])
    r = rq("--show", "Circle", cwd=shapes.root)
    assert r.code == 0, r.err
    assert r.out.splitlines()[:2] == ["pkg/shapes.py:6", "class Circle:"]


def test_show_escapes_control_characters_and_is_bounded(
    make_repo: Callable[..., Repo], rq: Callable[..., Run]
) -> None:
    body = "".join(f"    x{i} = {i}\n" for i in range(250))
    repo = make_repo({"big.py": "def big():\n    s = '\x1b[2J\tz'\n" + body})
    r = rq("--show", "big", cwd=repo.root)
    assert r.code == 0, r.err
    lines = r.out.splitlines()
    assert lines[0] == "big.py:1" and len(lines) == 1 + 200
    assert lines[2] == "    s = '\\x1b[2J\tz'"  # ESC shown, tab kept
    assert "\x1b" not in r.out
    assert r.err == "rq: showing 200 of 252 lines (big.py:1-252; rq --open shows them all)\n"


def test_show_on_a_miss_is_the_miss_of_q(shapes: Repo, rq: Callable[..., Run]) -> None:
    q = rq("-q", "Zzyzx", cwd=shapes.root)
    r = rq("--show", "Zzyzx", cwd=shapes.root)
    assert (r.code, r.out, r.err) == (q.code, q.out, q.err)


@pytest.mark.parametrize(
    ("remote", "url"),
    [
        (
            "git@github.com:Org/Shapes.git",
            "https://github.com/Org/Shapes/blob/{sha}/pkg/my%20shapes.py#L4-L6",
        ),
        (
            "https://gitlab.com/grp/sub/Shapes.git",
            "https://gitlab.com/grp/sub/Shapes/-/blob/{sha}/pkg/my%20shapes.py#L4-6",
        ),
        (
            "ssh://git@bitbucket.org/org/shapes.git",
            "https://bitbucket.org/org/shapes/src/{sha}/pkg/my%20shapes.py#lines-4:6",
        ),
        (
            "https://codeberg.org/org/shapes",
            "https://codeberg.org/org/shapes/src/commit/{sha}/pkg/my%20shapes.py#L4-L6",
        ),
        (
            "git@gitlab.example.com:team/shapes.git",  # self-hosted, named after its forge
            "https://gitlab.example.com/team/shapes/-/blob/{sha}/pkg/my%20shapes.py#L4-6",
        ),
    ],
)
def test_web_prints_the_forge_url_at_head(
    make_repo: Callable[..., Repo], rq: Callable[..., Run], remote: str, url: str
) -> None:
    repo = make_repo({"pkg/my shapes.py": FILES["pkg/shapes.py"]}, remote=remote)
    sha = repo.git("rev-parse", "HEAD").strip()
    r = rq("--web", "Circle", cwd=repo.root)
    assert (r.code, r.err) == (0, ""), r.err
    assert r.out == url.format(sha=sha) + "\n"


def test_web_reads_a_packed_ref_and_a_detached_head(
    make_repo: Callable[..., Repo], rq: Callable[..., Run]
) -> None:
    repo = make_repo(FILES, remote="https://github.com/Org/Shapes")
    first = repo.git("rev-parse", "HEAD").strip()
    repo.git("pack-refs", "--all")  # refs/heads/main now lives in packed-refs only
    assert not (repo.root / ".git" / "refs" / "heads" / "main").exists()
    r = rq("--web", "circle_helper", cwd=repo.root)
    assert r.out == f"https://github.com/Org/Shapes/blob/{first}/pkg/circle_util.py#L1-L2\n"
    repo.commit("second")
    second = repo.git("rev-parse", "HEAD").strip()
    repo.git("checkout", "-q", "--detach", first)
    r = rq("--web", "circle_helper", cwd=repo.root)
    assert first in r.out and second != first


@pytest.mark.parametrize(
    ("remote", "said"),
    [
        (None, "no origin remote"),
        ("/srv/git/shapes.git", "is a local path"),
        ("git@git.example.org:team/shapes.git", "'git.example.org'"),
    ],
)
def test_web_where_no_forge_applies_is_one_line_and_64(
    make_repo: Callable[..., Repo], rq: Callable[..., Run], remote: str | None, said: str
) -> None:
    repo = make_repo(FILES, remote=remote)
    r = rq("--web", "Circle", cwd=repo.root)
    assert r.code == 64 and r.out == ""
    assert r.err.startswith("rq: ") and r.err.count("\n") == 1 and said in r.err


@pytest.mark.parametrize(
    "argv",
    [
        ["--open", "x", "--json"],
        ["-o", "--show", "x"],
        ["--web", "--limit", "3", "x"],
        ["--show", "--index", "x"],
        ["--show", "--print", "x"],
    ],
    ids=" ".join,
)
def test_openers_exclude_list_forms_and_other_commands(
    rq: Callable[..., Run], tmp_path: Path, argv: list[str]
) -> None:
    r = rq(*argv, cwd=tmp_path)
    assert r.code == 64 and r.err.count("\n") == 1 and "exclusive" in r.err


OPENERS = [
    ["-o", "Foo"],
    ["--open", "Foo"],
    ["--show", "-C", "/tmp", "Foo"],
    ["Foo", "--web"],
    ["--web", "--all-repos", "--no-wait", "Foo"],
]


@pytest.mark.parametrize("argv", OPENERS, ids=" ".join)
def test_the_fast_path_reads_openers_as_argparse_does(argv: list[str]) -> None:
    fast = fast_path(argv, OPENERS)
    assert fast is not None, "the fast path handed an opener to argparse"
    full = argparse_reads(argv)
    assert set(fast) - set(full) == {"wait_ms"}  # derived by parse() on either path
    assert {k: v for k, v in fast.items() if k in full} == full


def test_show_and_web_on_a_hit_import_nothing_heavy(shapes: Repo, rq: Callable[..., Run]) -> None:
    for flag in ("--show", "--web", "-o"):
        p = subprocess.run(
            [sys.executable, "-c", PROBE, flag, "Circle"],
            cwd=shapes.root,
            capture_output=True,
            text=True,
            timeout=60,
            env={**os.environ, "EDITOR": "true"},
        )
        assert p.returncode == 0, p.stderr
        report = json.loads(p.stdout)
        assert report["code"] == 0, report["out"]
        loaded = [m for m in report["modules"] if m.split(".")[0] in HEAVY]
        assert loaded == [] and "argparse" not in report["modules"], (flag, loaded)
