"""Write core/languages.py: every plugin's SPEC, gathered where the hot path can read it.

    python -m rq_engine.lang.generate           # rewrite rq_engine/core/languages.py
    python -m rq_engine.lang.generate --check   # exit 1 when it is out of date

(`make languages` runs the first.) A plugin module declares its LanguageSpec;
this imports every module of rq_engine.lang, keeps the specs a plugin class
carries, and writes them out as literals. The engine reads the generated file
and never a plugin module for data (an import of one costs 3-10 ms).
tests/lang/test_language_table.py fails while the file is stale.
"""

from __future__ import annotations

import importlib
import inspect
import os
import pkgutil
import sys

import rq_engine.lang
from rq_engine.core.langspec import CLASS_NAME, LanguageSpec
from rq_engine.lang.base import LanguagePlugin

TARGET = os.path.join(os.path.dirname(os.path.dirname(__file__)), "core", "languages.py")

_HEADER = '''"""Every language rq reads, as data: GENERATED from each plugin module's SPEC
by `make languages` (rq_engine/lang/generate.py). Do not edit: change the
plugin's SPEC and regenerate; tests/lang/test_language_table.py fails while
this file is stale. The registry, query parsing and the scorer build their
tables from SPECS without importing any plugin.
"""

from __future__ import annotations

from rq_engine.core.langspec import CLASS_NAME, LanguageSpec

SPECS: tuple[LanguageSpec, ...] = (
'''


def specs() -> list[LanguageSpec]:
    """Every plugin class's spec, with its location, in module then source order."""
    found: list[LanguageSpec] = []
    for info in sorted(pkgutil.iter_modules(rq_engine.lang.__path__), key=lambda m: m.name):
        if info.name.startswith("_") or info.name == "generate":
            continue
        module = importlib.import_module(f"rq_engine.lang.{info.name}")
        classes = [
            c
            for _, c in inspect.getmembers(module, inspect.isclass)
            if issubclass(c, LanguagePlugin)
            and c.__module__ == module.__name__
            and isinstance(c.__dict__.get("spec"), LanguageSpec)
        ]
        for cls in sorted(classes, key=lambda c: inspect.getsourcelines(c)[1]):
            found.append(cls.spec.located(f"{module.__name__}:{cls.__name__}"))
    names = [s.name for s in found]
    if len(set(names)) != len(names):
        raise SystemExit(f"rq: two plugins declare one language: {sorted(names)}")
    return found


def render() -> str:
    """The text of core/languages.py for today's plugins."""
    body = "".join(spec.source().replace(repr(CLASS_NAME), "CLASS_NAME") for spec in specs())
    return _HEADER + body + ")\n"


def main(argv: list[str]) -> int:
    text = render()
    with open(TARGET, encoding="utf-8") as f:
        current = f.read()
    if "--check" in argv:
        if current != text:
            print("rq: rq_engine/core/languages.py is stale: run `make languages`", file=sys.stderr)
            return 1
        return 0
    if current != text:
        with open(TARGET, "w", encoding="utf-8") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
