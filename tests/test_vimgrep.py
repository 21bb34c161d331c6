"""Editor-ready output (--vimgrep, --print0) and the documented editor recipes, run for real.

The recipes are read out of README.md's and docs/EDITORS.md's ```bash blocks, then run
as written by bash, with `vim` a real, headless vim (`-Nu NONE -es`) that writes where
its cursor landed: a recipe edited in the docs alone is what this file tests.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import Repo, Run, have, rq_bin
from tests.tui.ptyproc import PtyProcess

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.skipif(not have("vim"), reason="vim is not installed")

PAY = (
    "import os\n"
    "\n"
    "\n"
    "class RefundProcessor:\n"
    "    def perform(self, order):\n"
    "        return order\n"
    "\n"
    "\n"
    "class Foo:\n"
    "\tdef  café(self):  # tab-indented, two spaces, a name past a non-ASCII letter\n"
    '        return "\x1b[2J"\n'
    "\n"
    "\n"
    "def process_order(order):\n"
    "    return order\n"
    "\n"
    "\n"
    "def process_refund(order):\n"
    "    return order\n"
)

# A vim that runs headless and reports "file:line:col" of its cursor once it has
# loaded what the recipe gave it (a -q errorfile, +N FILE).
HEADLESS_VIM = (
    'vim() { command vim -Nu NONE -i NONE -es "$@" '
    '-c \'call writefile([expand("%:p") . ":" . line(".") . ":" . col(".")], $RQ_VIM_OUT)\' '
    "-c 'qa!'; }\n"
)


@pytest.fixture
def pay(make_repo: Callable[..., Repo], rq: Callable[..., Run]) -> Repo:
    repo = make_repo({"pay.py": PAY})
    assert rq("--index", str(repo.root)).code == 0
    return repo


def recipes(doc: str) -> list[str]:
    """The vim command lines of a document's ```bash blocks, comments dropped."""
    text = (ROOT / doc).read_text(encoding="utf-8")
    out = []
    for body in re.findall(r"```bash\n(.*?)```", text, re.S):
        for line in body.splitlines():
            cmd = re.split(r"\s+#\s", line.strip(), maxsplit=1)[0].strip()
            if "vim " in cmd and "rq " in cmd:
                out.append(cmd)
    return out


def first_hit(rq: Callable[..., Run], query: str, cwd: Path) -> dict[str, object]:
    r = rq("-q", "--json", query, cwd=cwd)
    assert r.code == 0, r.err
    hit: dict[str, object] = json.loads(r.out)["results"][0]
    return hit


def byte_col(repo: Repo, hit: dict[str, object]) -> int:
    line = (repo.root / str(hit["path"])).read_bytes().splitlines()[int(str(hit["line"])) - 1]
    return line.index(str(hit["name"]).encode()) + 1


def test_one_shot_vimgrep_is_path_line_col_text(pay: Repo, rq: Callable[..., Run]) -> None:
    """Column = 1-based byte column of the name; text = the source line, tabs kept,
    control characters escaped (an ESC in the source cannot reach the terminal)."""
    r = rq("-q", "--vimgrep", "RefundProcessor", cwd=pay.root)
    assert r.code == 0 and r.out.splitlines()[0] == "pay.py:4:7:class RefundProcessor:"
    r = rq("-q", "--vimgrep", "café", cwd=pay.root)
    first = r.out.splitlines()[0]
    assert first.startswith("pay.py:10:7:\tdef  café(self):"), first
    r = rq("-q", "--vimgrep", "--limit", "50", "process", cwd=pay.root)
    assert "\x1b" not in r.out and all(
        re.match(r"^pay\.py:\d+:\d+:", ln) for ln in r.out.splitlines()
    )


def test_print0_ends_each_result_with_nul(pay: Repo, rq: Callable[..., Run]) -> None:
    plain = rq("-q", "--limit", "3", "process", cwd=pay.root)
    r = rq("-q", "--print0", "--limit", "3", "process", cwd=pay.root)
    assert r.code == 0 and r.out.count("\0") >= 2 and r.out.endswith("\0") and "\n" not in r.out
    assert r.out.split("\0")[:-1] == [ln.split("  ")[0] for ln in plain.out.splitlines()]
    both = rq("-q", "--print0", "--vimgrep", "RefundProcessor", cwd=pay.root)
    assert both.out.split("\0")[0] == "pay.py:4:7:class RefundProcessor:"


def test_output_forms_do_not_mix_with_json(pay: Repo, rq: Callable[..., Run]) -> None:
    for argv in (("--vimgrep", "--json"), ("--print0", "--ndjson"), ("--vimgrep", "--explain")):
        r = rq("-q", *argv, "Foo", cwd=pay.root)
        assert r.code == 64 and r.out == "" and r.err.startswith("rq: --"), (argv, r.err)


def test_vimgrep_one_shot_stays_off_argparse(pay: Repo) -> None:
    """`rq -q --vimgrep` is read by the fast parser: argparse (~4.5 ms) is not imported."""
    probe = (
        "import sys\nfrom rq_engine.main import main\ncode = main(sys.argv[1:])\n"
        "print('ARGPARSE' if 'argparse' in sys.modules else 'FAST', code)\n"
    )
    p = subprocess.run(
        [sys.executable, "-c", probe, "-q", "--vimgrep", "--print0", "Foo"],
        cwd=pay.root,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert p.stdout.endswith("FAST 0\n"), (p.stdout, p.stderr)


def run_recipe(cmd: str, cwd: Path, out: Path, picker: bool) -> None:
    """Run one documented command line in bash (rq on PATH, vim headless); on a pty with
    Enter pressed once the picker shows its results, when the recipe opens the picker."""
    env = {
        **os.environ,
        "PATH": f"{Path(rq_bin()[0]).parent}{os.pathsep}{os.environ['PATH']}",
        "RQ_VIM_OUT": str(out),
    }
    script = HEADLESS_VIM + cmd + "\n"
    if not picker:
        p = subprocess.run(
            ["bash", "-c", script], cwd=cwd, env=env, capture_output=True, text=True, timeout=60
        )
        assert p.returncode == 0, (cmd, p.stderr)
        return
    proc = PtyProcess(["bash", "-c", script], cwd=cwd, env=env)
    try:
        proc.expect("complete")  # the status line: the index state, after the first batch
        proc.expect("pay.py:")  # a result row
        proc.send("\r")
        assert proc.wait() == 0, (cmd, proc.text[-2000:])
    finally:
        proc.close()


@pytest.mark.parametrize("doc", ["README.md", "docs/EDITORS.md"])
def test_every_documented_vim_recipe_lands_on_the_definition(
    doc: str, pay: Repo, rq: Callable[..., Run], tmp_path: Path
) -> None:
    cmds = recipes(doc)
    assert len(cmds) >= 2, "the editor recipes moved out of ```bash blocks"
    for cmd in cmds:
        assert "$(rq --print)" not in cmd.replace(" ", "")  # opens a buffer named path:line
        argv = shlex.split(re.search(r"rq [^)]*", cmd).group(0))  # type: ignore[union-attr]
        query = argv[-1]
        want = first_hit(rq, query, pay.root)
        out = tmp_path / "cursor"
        out.unlink(missing_ok=True)
        run_recipe(cmd, pay.root, out, picker="-q" not in argv)
        path, line, col = out.read_text().strip().rsplit(":", 2)
        assert (path, int(line)) == (str(pay.root / str(want["path"])), want["line"]), cmd
        if "--vimgrep" in argv:  # a quickfix entry carries the column too
            assert int(col) == byte_col(pay, want), cmd


def test_the_readme_no_longer_shows_vim_print() -> None:
    for doc in ("README.md", "docs/cli.md", "docs/EDITORS.md", "docs/guide.md"):
        text = (ROOT / doc).read_text(encoding="utf-8")
        assert "vim $(rq --print" not in text.replace("`vim $(rq --print)` does **not**", ""), doc


@pytest.mark.parametrize(
    ("flags", "expected"),
    [
        (("--print", "--vimgrep"), "pay.py:4:7:class RefundProcessor:\n"),
        (("--print", "--print0"), "pay.py:4\0"),
        (("--print", "--print0", "--vimgrep"), "pay.py:4:7:class RefundProcessor:\0"),
    ],
    ids=["vimgrep", "print0", "both"],
)
def test_the_picker_prints_its_pick_in_the_asked_form(
    flags: tuple[str, ...], expected: str, pay: Repo
) -> None:
    proc = PtyProcess(
        [*rq_bin(), *flags, "RefundProcessor"], cwd=pay.root, env=dict(os.environ), stdout_pipe=True
    )
    try:
        proc.expect("complete")
        proc.expect("pay.py:4")
        proc.send("\r")
        assert proc.wait() == 0
    finally:
        proc.close()
    assert proc.stdout == expected
