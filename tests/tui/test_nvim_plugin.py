"""The Neovim plugin (editors/nvim), run for real: a headless nvim, the real rq, a real repo.

Each test starts `nvim --headless -u NONE -i NONE` with the plugin on the runtimepath
(`-u NONE` loads no plugin, so plugin/rq.lua is sourced by name), runs a command and
writes where the cursor landed (`file:line:col`) and the quickfix list to a file.
`:Rq` runs too: a headless nvim still gives a terminal job a pty, so the picker draws
there and the test types into it.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import Repo, Run, have, rq_bin

ROOT = Path(__file__).resolve().parents[2]
PLUGIN = ROOT / "editors" / "nvim"


def _nvim_version() -> tuple[int, int]:
    if not have("nvim"):
        return (0, 0)
    out = subprocess.run(["nvim", "--version"], capture_output=True, text=True).stdout
    m = re.search(r"NVIM v(\d+)\.(\d+)", out)
    return (int(m[1]), int(m[2])) if m else (0, 0)


pytestmark = [
    pytest.mark.skipif(not have("nvim"), reason="nvim (Neovim) is not installed"),
    pytest.mark.skipif(
        have("nvim") and _nvim_version() < (0, 7),
        reason="the plugin needs Neovim 0.7 (nvim_create_user_command)",
    ),
]

PAYMENTS = (
    '"""Payments."""\n'
    "\n"
    "\n"
    "class Gateway:\n"
    "    def charge(self, amount):\n"
    "        return amount\n"
    "\n"
    "\n"
    "class RefundProcessor:\n"
    "    def perform(self, order):\n"
    "        return order\n"
)

# Where nvim ended up: "file:line:col" (file as `%` shows it, relative to nvim's cwd),
# then one "file:line:col" a quickfix entry, then the quickfix list's title.
REPORT = (
    "call writefile([expand('%') . ':' . line('.') . ':' . col('.')]"
    " + map(getqflist(), {_, e -> bufname(e.bufnr) . ':' . e.lnum . ':' . e.col})"
    " + ['title=' . getqflist({'title': 1}).title], $RQ_NVIM_OUT)"
)


class Landing:
    def __init__(self, lines: list[str], stderr: str) -> None:
        self.at = lines[0]
        self.quickfix = lines[1:-1]
        self.title = lines[-1].removeprefix("title=")
        self.stderr = stderr


def nvim(
    cwd: Path, tmp_path: Path, *args: str, rq_cmd: list[str] | None = None, timeout: float = 90
) -> Landing:
    """Run a headless nvim with the plugin in `cwd`: `args` are its files and -c commands."""
    out = tmp_path / "landing.txt"
    out.unlink(missing_ok=True)
    env = {
        **os.environ,
        "RQ_NVIM_OUT": str(out),
        "NVIM_LOG_FILE": str(tmp_path / "nvim.log"),
    }
    argv = [
        "nvim",
        "--headless",
        "-u",
        "NONE",
        "-i",
        "NONE",
        "--cmd",
        f"set rtp+={PLUGIN}",
        "--cmd",
        "runtime plugin/rq.lua",
        "--cmd",
        f"let g:rq_cmd = {json.dumps(rq_cmd or rq_bin())}",
        *args,
        "-c",
        REPORT,
        "-c",
        "qa!",
    ]
    p = subprocess.run(
        argv,
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )
    assert out.exists(), f"nvim wrote no report (exit {p.returncode}): {p.stderr}"
    return Landing(out.read_text(encoding="utf-8").splitlines(), p.stderr)


@pytest.fixture
def shop(make_repo: Callable[..., Repo], rq: Callable[..., Run]) -> Repo:
    # The remote keeps the picker's status line short (its identity, not a tmp path).
    repo = make_repo(
        remote="https://github.com/acme/pay.git",
        files={
            "pay/gateway.py": PAYMENTS,
            "a/mod.py": "import os\n\n\ndef handler(x):\n    return x\n",
            "b/mod.py": "\n\nclass Other:\n    pass\n\n\ndef handler(y):\n    return y\n",
        },
    )
    r = rq("--index", str(repo.root))
    assert r.code == 0, r.err
    return repo


def test_rqquick_lands_on_the_definition(
    shop: Repo, rq: Callable[..., Run], tmp_path: Path
) -> None:
    """`:RqQuick Name` loads `rq -q --vimgrep` into the quickfix list and jumps to the
    first record: the definition's file, line and the name's column."""
    assert rq("-q", "--vimgrep", "RefundProcessor", cwd=shop.root).out.startswith(
        "pay/gateway.py:9:7:"
    )
    got = nvim(shop.root, tmp_path, "-c", "RqQuick RefundProcessor")
    assert got.at == "pay/gateway.py:9:7", got.stderr
    assert got.quickfix[0] == "pay/gateway.py:9:7"
    assert got.title == "rq RefundProcessor"


def test_rqquick_sends_the_cursor_as_anchor(shop: Repo, tmp_path: Path) -> None:
    """Two `handler`s: asked from a file in a/ it lands on a/'s, from b/ on b/'s (rq
    --help lists --anchor, so the plugin passes the cursor)."""
    from_a = nvim(shop.root, tmp_path, "a/mod.py", "-c", "RqQuick handler")
    assert from_a.at == "a/mod.py:4:5", from_a.stderr
    from_b = nvim(shop.root, tmp_path, "b/mod.py", "-c", "RqQuick handler")
    assert from_b.at == "b/mod.py:7:5", from_b.stderr
    assert sorted(from_a.quickfix) == sorted(from_b.quickfix) == ["a/mod.py:4:5", "b/mod.py:7:5"]


def test_rqquick_passes_no_anchor_to_an_rq_without_it(shop: Repo, tmp_path: Path) -> None:
    """An rq whose --help does not list --anchor gets no --anchor (it would exit 64).
    The stand-in is the real rq behind a script that hides the flag from --help and
    records the arguments it was given."""
    log = tmp_path / "argv.txt"
    wrapper = tmp_path / "old_rq.py"
    wrapper.write_text(
        "import subprocess, sys\n"
        f"REAL = {rq_bin()!r}\n"
        "args = sys.argv[1:]\n"
        "if '--help' in args:\n"
        "    print('usage: rq [-h] [-q] [--vimgrep] [query]')\n"
        "    sys.exit(0)\n"
        f"open({str(log)!r}, 'a').write(repr(args) + '\\n')\n"
        "sys.exit(subprocess.run(REAL + args).returncode)\n",
        encoding="utf-8",
    )
    got = nvim(
        shop.root,
        tmp_path,
        "b/mod.py",
        "-c",
        "RqQuick handler",
        rq_cmd=[sys.executable, str(wrapper)],
    )
    assert log.read_text().splitlines() == [repr(["-q", "--vimgrep", "--", "handler"])]
    assert got.at.split(":")[0] in ("a/mod.py", "b/mod.py") and len(got.quickfix) == 2


def test_rqquick_miss_stays_put_and_says_so(shop: Repo, tmp_path: Path) -> None:
    got = nvim(shop.root, tmp_path, "b/mod.py", "-c", "RqQuick zzqqxxkk")
    assert got.at == "b/mod.py:1:1" and got.quickfix == []
    assert 'rq: no match for "zzqqxxkk"' in got.stderr


def test_rqquick_query_may_start_with_a_dash(shop: Repo, tmp_path: Path) -> None:
    """The query goes after `--`: `-x` is a query, not a flag rq rejects with 64."""
    got = nvim(shop.root, tmp_path, "-c", "RqQuick -zzqq")
    assert "exited with 64" not in got.stderr and "no match" in got.stderr


# :Rq — the picker in a terminal window. The driver waits until the picker has drawn
# its status line, types the keys ("|"-separated, a pause after each), then waits for
# the terminal window to close.
DRIVE = """
local buf_before = vim.api.nvim_get_current_buf()
vim.cmd("Rq " .. vim.g.rq_test_query)
local buf = vim.api.nvim_get_current_buf()
assert(buf ~= buf_before and vim.bo[buf].buftype == "terminal", "no terminal window")
local term = vim.bo[buf].channel
local drawn = vim.wait(60000, function()
  if not vim.api.nvim_buf_is_valid(buf) then return true end
  local text = table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), "\\n")
  return text:find("mod.py:7", 1, true) ~= nil  -- both result rows are listed
end, 50)
assert(drawn, "the picker listed no results")
for _, k in ipairs(vim.split(vim.g.rq_test_keys, "|", { plain = true })) do
  vim.fn.chansend(term, k)
  vim.wait(300)
end
assert(vim.wait(60000, function() return not vim.api.nvim_buf_is_valid(buf) end, 50),
  "the picker's window did not close")
"""


@pytest.mark.parametrize(
    ("keys", "at", "quickfix"),
    [
        ("\\r", "a/mod.py:4:5", []),  # enter: the first result, the quickfix list untouched
        ("\\x0e|\\r", "b/mod.py:7:5", []),  # ctrl-n, enter: the second
        ("\\t|\\t|\\r", "a/mod.py:4:5", ["a/mod.py:4:5", "b/mod.py:7:5"]),  # two marked
        ("\\x1b", "pay/gateway.py:1:1", []),  # esc: nothing picked, nothing moved
    ],
    ids=["enter", "second", "two-marked", "esc"],
)
def test_rq_picker_in_a_terminal_window(
    shop: Repo, tmp_path: Path, keys: str, at: str, quickfix: list[str]
) -> None:
    driver = tmp_path / "drive.lua"
    driver.write_text(DRIVE, encoding="utf-8")
    got = nvim(
        shop.root,
        tmp_path,
        "pay/gateway.py",
        "-c",
        f"let g:rq_test_query = 'handler' | let g:rq_test_keys = \"{keys}\"",
        "-c",
        f"luafile {driver}",
    )
    assert got.at == at, got.stderr
    assert got.quickfix == quickfix
