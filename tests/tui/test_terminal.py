"""The real picker process on a pty with stdout captured: drawn at the terminal's size, keys in order.

As in `x=$(rq --print Foo)`: stdout is a pipe, the pty is the controlling
terminal and COLUMNS/LINES are not exported, so the size can only come from
/dev/tty. Every wait is on something drawn or printed, never on a clock.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from rq_engine.index.indexer import index_under
from tests.conftest import Repo, rq_bin
from tests.tui.fixture import build_shop, open_store
from tests.tui.ptyproc import ANSI, PtyProcess

MOVE = re.compile(r"\x1b\[(\d+);(\d+)H")


@pytest.fixture
def shop(make_repo: Callable[..., Repo]) -> Repo:
    return build_shop(make_repo)


def picker(shop: Repo, *args: str, size: tuple[int, int] = (100, 30), **env: str) -> PtyProcess:
    return PtyProcess(
        [*rq_bin(), "--print", *args],
        cwd=shop.root,
        env={**os.environ, **env},
        size=size,
        stdout_pipe=True,
        size_env=False,
    )


def drawn_size(raw: str) -> tuple[int, int]:
    """(rightmost column, lowest row) the picker drew at: each cursor move, then the
    text written from there (all single-width characters in this fixture)."""
    right = bottom = 0
    moves = list(MOVE.finditer(raw))
    if not moves:
        return 0, 0
    for m, nxt in zip(moves, [*moves[1:], None], strict=True):
        row, col = int(m.group(1)), int(m.group(2))
        text = ANSI.sub("", raw[m.end() : nxt.start() if nxt else len(raw)]).split("\n")[0]
        text = text.replace("\r", "")
        bottom = max(bottom, row)
        if text:
            right = max(right, col + len(text) - 1)
    return right, bottom


def first_frame(raw: str) -> str:
    """The output up to the first frame's last line (rows drawn top down, once)."""
    last = 0
    for m in MOVE.finditer(raw):
        row = int(m.group(1))
        if row < last:
            return raw[: m.start()]
        last = row
    return raw


@pytest.mark.parametrize("size", [(160, 45), (80, 24)], ids=["160x45", "80x24"])
def test_captured_stdout_draws_at_the_terminal_size(shop: Repo, size: tuple[int, int]) -> None:
    p = picker(shop, "refund_order", size=size)
    p.expect("F1 help")
    p.expect(" result")  # the status line, on the terminal's last row
    cols, rows = size
    # Every frame at the real size, the first one too (Textual's own driver draws
    # a first 80x24 frame here and is corrected only by a later resize, if any).
    assert drawn_size(first_frame(p.raw)) == (cols, rows)
    assert drawn_size(p.raw) == (cols, rows)
    p.send("\r")
    assert p.wait() == 0
    assert p.stdout == "shop/refunds.py:18\n"


def test_the_picker_follows_a_resize(shop: Repo) -> None:
    p = picker(shop, "refund_order", size=(100, 30))
    p.expect(" result")
    mark = len(p.raw)
    p.resize(140, 40)  # SIGWINCH: the driver asks /dev/tty again
    p.expect_raw(lambda raw: drawn_size(raw[mark:]) == (140, 40), "a 140x40 frame")
    p.send("\x1b")
    assert p.wait() == 130


# --- keys in a burst -----------------------------------------------------------------


def burst(p: PtyProcess, keys: str) -> None:
    """All the keys in one write, as a text expander or a paste-less macro sends them."""
    p.send(keys)


def test_ctrl_u_then_a_query_then_enter_in_one_burst(shop: Repo) -> None:
    p = picker(shop, "zzzz")
    p.expect("no matches")
    burst(p, "\x15find_by_id\r")  # C-u, the query, Enter: Enter acts on find_by_id
    assert p.wait() == 0
    assert p.stdout == "shop/orders.py:16\n"


def test_ctrl_w_in_a_burst_deletes_only_the_word_before_it(shop: Repo) -> None:
    p = picker(shop)
    p.expect("F1 help")
    burst(p, "refund_order zzz\x17\x17refund_order\r")  # two C-w: " zzz" then "refund_order "
    assert p.wait() == 0
    assert p.stdout == "shop/refunds.py:18\n"


def test_a_question_mark_is_typed_not_help(make_repo: Callable[..., Repo]) -> None:
    repo = make_repo(
        {"app/user.rb": "class User\n  def valid?\n    true\n  end\nend\n"},
        name="rb",
        remote="https://github.com/acme/rb.git",
    )
    with open_store() as conn:
        index_under(conn, repo.root)
    p = picker(repo)
    p.expect("F1 help")
    burst(p, "valid?\r")
    assert p.wait() == 0
    assert p.stdout == "app/user.rb:2\n"
    history = Path(os.environ["RQ_HOME"]) / "history"
    assert history.read_text() == "valid?\n"  # the query exactly as typed


def test_enter_right_after_typing_acts_on_the_typed_query(shop: Repo) -> None:
    p = picker(shop, "Refund")
    p.expect(" result")
    burst(p, "\x15place_order\r")
    assert p.wait() == 0
    assert p.stdout == "shop/orders.py:23\n"
    assert (Path(os.environ["RQ_HOME"]) / "history").read_text() == "place_order\n"


def test_a_bad_rq_bind_is_one_line_and_exit_64(shop: Repo) -> None:
    p = PtyProcess(
        [*rq_bin(), "--print"],
        cwd=shop.root,
        env={**os.environ, "RQ_BIND": "ctrl-a:launch-rockets"},
    )
    assert p.wait() == 64
    lines = [ln for ln in p.text.splitlines() if ln.strip()]
    assert lines == ["rq: RQ_BIND: unknown action 'launch-rockets' for 'ctrl-a' "
                     "(the actions are listed in docs/guide.md and on F1)"]  # fmt: skip


def test_tab_marks_several_and_enter_prints_each(shop: Repo) -> None:
    p = picker(shop, "order")
    p.expect(" result")
    burst(p, "\t\t\r")  # mark the first two
    assert p.wait() == 0
    lines = p.stdout.splitlines()
    assert len(lines) == 2 and all(re.fullmatch(r"[\w/]+\.\w+:\d+", ln) for ln in lines)


def test_marks_with_print0_are_nul_ended_vimgrep_records(shop: Repo) -> None:
    p = PtyProcess(
        [*rq_bin(), "--print", "--vimgrep", "--print0", "order"],
        cwd=shop.root,
        env=dict(os.environ),
        stdout_pipe=True,
    )
    p.expect(" result")
    p.send("\t\t\r")
    assert p.wait() == 0
    records = p.stdout.split("\0")
    assert records[-1] == "" and len(records) == 3
    assert all(re.match(r"[\w/]+\.\w+:\d+:\d+:", r) for r in records[:2])
