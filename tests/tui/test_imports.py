"""Import discipline around the picker: the UI cost is paid only on the picker path."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def loaded_after(code: str) -> set[str]:
    out = subprocess.run(
        [sys.executable, "-c", f"{code}\nimport sys\nprint('\\n'.join(sys.modules))"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return set(out.split())


def test_the_tmux_launcher_does_not_load_the_ui() -> None:
    # It only opens a popup and an editor: textual (~200 ms) loads in the popup.
    mods = loaded_after("import rq_tui.tmux, rq_tui.editor, rq_tui.theming")
    assert not {m for m in mods if m.split(".")[0] in ("textual", "rich", "pygments")}


def test_no_engine_module_imports_the_picker() -> None:
    engine = sorted(
        ".".join(p.relative_to(ROOT).with_suffix("").parts)
        for p in (ROOT / "rq_engine").rglob("*.py")
        if p.name != "__main__.py"
    )
    # A module another engineer is still writing may not import yet: that is
    # their test's business, not this one's.
    code = (
        f"import importlib\nfor m in {engine!r}:\n    try:\n        importlib.import_module(m)\n"
        "    except Exception:\n        pass"
    )
    mods = loaded_after(code)
    assert not {m for m in mods if m.split(".")[0] == "rq_tui"}
