"""Picker themes: palette files in themes/ turned into textual Theme objects, and which one to use.

A theme is a palette file (`themes/NAME.toml`: Textual's standard colours plus
the rq-* variables) and one shared stylesheet (`themes/rq.tcss`) that refers to
colours only through `$variables`. Users may drop more palettes into
`$XDG_CONFIG_HOME/rq/themes/`. Choice: --theme NAME, else $RQ_THEME, else
`theme = "NAME"` in `$XDG_CONFIG_HOME/rq/config.toml`, else "dark".

Imports textual.theme only inside `load()`, so the choice can be validated
(exit 64 on an unknown name) before the ~200 ms UI import.
"""

from __future__ import annotations

import os
import sys
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rq_engine.core.errors import ExitCode, RqError, UsageError

if TYPE_CHECKING:
    from textual.theme import Theme

DEFAULT_THEME = "dark"
# Every palette must define these; themes/rq.tcss uses them.
RQ_VARIABLES = (
    "rq-match",
    "rq-path",
    "rq-kind",
    "rq-repo",
    "rq-warming",
    "rq-complete",
    "rq-positive",
    "rq-negative",
    "rq-cursor",
)
_COLOR_KEYS = (
    "primary",
    "secondary",
    "accent",
    "warning",
    "error",
    "success",
    "foreground",
    "background",
    "surface",
    "panel",
    "boost",
)


def config_dir(env: Mapping[str, str] | None = None) -> Path:
    env = os.environ if env is None else env
    base = env.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(base) / "rq"


def builtin_dir() -> Path:
    """themes/ beside the package in a checkout or editable install, else the wheel's data dir."""
    here = Path(__file__).resolve().parent.parent / "themes"
    if (here / "rq.tcss").exists():
        return here
    return Path(sys.prefix) / "share" / "rq" / "themes"


def stylesheet() -> Path:
    return builtin_dir() / "rq.tcss"


def available(env: Mapping[str, str] | None = None) -> dict[str, Path]:
    """Theme name -> palette file; the user's config directory overrides the built-ins."""
    found: dict[str, Path] = {}
    for d in (builtin_dir(), config_dir(env) / "themes"):
        if d.is_dir():
            for p in sorted(d.glob("*.toml")):
                found[p.stem] = p
    return found


def _config_theme(env: Mapping[str, str]) -> str | None:
    path = config_dir(env) / "config.toml"
    try:
        with path.open("rb") as f:
            data = tomllib.load(f)
    except FileNotFoundError:
        return None
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise RqError(f"{path}: {e}", ExitCode.USAGE) from e
    value = data.get("theme")
    if value is not None and not isinstance(value, str):
        raise UsageError(f"{path}: theme must be a string")
    return value


def choose(flag: str | None, env: Mapping[str, str] | None = None) -> str:
    """The theme name to use; UsageError (exit 64) when it names no palette."""
    env = os.environ if env is None else env
    name, origin = flag, "--theme"
    if not name:
        name, origin = env.get("RQ_THEME") or None, "RQ_THEME"
    if not name:
        name, origin = _config_theme(env), str(config_dir(env) / "config.toml")
    if not name:
        return DEFAULT_THEME
    names = available(env)
    if name not in names:
        raise UsageError(
            f"unknown theme {name!r} (from {origin}); available: {', '.join(sorted(names))}"
        )
    return name


def read_palette(path: Path) -> dict[str, Any]:
    """Parse and check a palette file; UsageError naming the file when it is wrong."""
    try:
        with path.open("rb") as f:
            data = tomllib.load(f)
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise UsageError(f"theme {path}: {e}") from e
    colors = data.get("colors", {})
    variables = data.get("variables", {})
    if "primary" not in colors:
        raise UsageError(f"theme {path}: [colors] needs at least 'primary'")
    unknown = set(colors) - set(_COLOR_KEYS)
    if unknown:
        raise UsageError(f"theme {path}: unknown colour keys {', '.join(sorted(unknown))}")
    missing = [v for v in RQ_VARIABLES if v not in variables]
    if missing:
        raise UsageError(f"theme {path}: [variables] is missing {', '.join(missing)}")
    return data


def load(name: str, env: Mapping[str, str] | None = None) -> Theme:
    """The textual Theme for palette `name` (registered by the app under that name)."""
    from textual.theme import Theme

    path = available(env).get(name)
    if path is None:
        raise UsageError(f"unknown theme {name!r}")
    data = read_palette(path)
    colors = {str(k): str(v) for k, v in data["colors"].items()}
    return Theme(
        name=name,
        primary=colors["primary"],
        secondary=colors.get("secondary"),
        warning=colors.get("warning"),
        error=colors.get("error"),
        success=colors.get("success"),
        accent=colors.get("accent"),
        foreground=colors.get("foreground"),
        background=colors.get("background"),
        surface=colors.get("surface"),
        panel=colors.get("panel"),
        boost=colors.get("boost"),
        dark=bool(data.get("dark", True)),
        luminosity_spread=float(data.get("luminosity_spread", 0.15)),
        text_alpha=float(data.get("text_alpha", 0.95)),
        variables={str(k): str(v) for k, v in data["variables"].items()},
    )
