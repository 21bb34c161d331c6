"""Themes: every palette in themes/ loads, the shared stylesheet uses theme variables only,
and the choice order is --theme > RQ_THEME > config file > dark."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from rq_engine.core.errors import ExitCode, UsageError
from rq_tui import theming

THEMES = theming.builtin_dir()


def test_the_three_required_themes_ship() -> None:
    assert {"dark", "light", "high-contrast"} <= set(theming.available({}))


@pytest.mark.parametrize("path", sorted(THEMES.glob("*.toml")), ids=lambda p: p.stem)
def test_each_palette_loads_into_a_textual_theme(path: Path) -> None:
    theme = theming.load(path.stem, {})
    assert theme.name == path.stem
    assert set(theming.RQ_VARIABLES) <= set(theme.variables)
    # Every value is a colour Textual can parse.
    from textual.color import Color

    for value in [theme.primary, theme.background, theme.foreground, *theme.variables.values()]:
        assert value is not None
        Color.parse(value)


def test_light_is_light_and_dark_is_dark() -> None:
    assert theming.load("dark", {}).dark is True
    assert theming.load("light", {}).dark is False


LITERAL_COLOUR = re.compile(
    r"#[0-9a-fA-F]{3,8}\b|\b(?:rgba?|hsla?)\(|:\s*(?:red|green|blue|black|white|yellow|cyan|magenta|gr[ae]y)\b"
)


def test_shared_stylesheet_uses_theme_variables_only() -> None:
    css = (THEMES / "rq.tcss").read_text()
    body = re.sub(r"/\*.*?\*/", "", css, flags=re.S)
    assert not LITERAL_COLOUR.findall(body)
    used = set(re.findall(r"\$(rq-[a-z-]+)", body))
    assert used and used <= set(theming.RQ_VARIABLES)


def test_flag_beats_env_beats_config_beats_default(tmp_path: Path) -> None:
    cfg = tmp_path / "cfg"
    (cfg / "rq").mkdir(parents=True)
    (cfg / "rq" / "config.toml").write_text('theme = "light"\n')
    env = {"XDG_CONFIG_HOME": str(cfg)}
    assert theming.choose(None, {"XDG_CONFIG_HOME": str(tmp_path / "none")}) == "dark"
    assert theming.choose(None, env) == "light"
    assert theming.choose(None, {**env, "RQ_THEME": "high-contrast"}) == "high-contrast"
    assert theming.choose("dark", {**env, "RQ_THEME": "high-contrast"}) == "dark"


def test_unknown_theme_is_a_usage_error_listing_the_choices(tmp_path: Path) -> None:
    with pytest.raises(UsageError) as e:
        theming.choose("solarised", {"XDG_CONFIG_HOME": str(tmp_path)})
    assert e.value.code == ExitCode.USAGE
    assert "solarised" in e.value.message and "high-contrast" in e.value.message


def test_unknown_theme_in_the_config_file_names_the_file(tmp_path: Path) -> None:
    (tmp_path / "rq").mkdir()
    (tmp_path / "rq" / "config.toml").write_text('theme = "nope"\n')
    with pytest.raises(UsageError, match="config.toml"):
        theming.choose(None, {"XDG_CONFIG_HOME": str(tmp_path)})


def test_a_user_palette_in_the_config_dir_is_available(tmp_path: Path) -> None:
    d = tmp_path / "rq" / "themes"
    d.mkdir(parents=True)
    dark = (THEMES / "dark.toml").read_text().replace('"#1c1f26"', '"#000010"')
    (d / "midnight.toml").write_text(dark)
    env = {"XDG_CONFIG_HOME": str(tmp_path)}
    assert theming.choose("midnight", env) == "midnight"
    assert theming.load("midnight", env).background == "#000010"


def test_a_palette_missing_an_rq_variable_is_rejected(tmp_path: Path) -> None:
    d = tmp_path / "rq" / "themes"
    d.mkdir(parents=True)
    text = (THEMES / "dark.toml").read_text()
    (d / "broken.toml").write_text(re.sub(r"(?m)^rq-match = .*\n", "", text))
    with pytest.raises(UsageError, match="rq-match"):
        theming.load("broken", {"XDG_CONFIG_HOME": str(tmp_path)})
