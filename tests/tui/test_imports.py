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
    mods = loaded_after("import rq_tui.tmux, rq_engine.core.editor, rq_tui.theming")
    assert not {m for m in mods if m.split(".")[0] in ("textual", "rich", "pygments")}


def test_no_engine_module_imports_the_picker() -> None:
    engine = sorted(
        ".".join(p.relative_to(ROOT).with_suffix("").parts)
        for p in (ROOT / "rq_engine").rglob("*.py")
        if p.name != "__main__.py"
    )
    # Every engine module must import (check=True fails on an import error): a module
    # skipped here would be one whose imports go unchecked.
    code = f"import importlib\nfor m in {engine!r}:\n    importlib.import_module(m)"
    mods = loaded_after(code)
    assert set(engine) <= mods
    assert not {m for m in mods if m.split(".")[0] == "rq_tui"}
