"""Each language's data lives in its plugin module's SPEC; core/languages.py is
generated from them, and everything that needs the data reads it from there."""

from __future__ import annotations

import importlib
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from rq_engine.core import languages, paths
from rq_engine.core.langspec import CLASS_NAME, LanguageSpec
from rq_engine.core.query import looks_like_path
from rq_engine.lang import generate, registry
from tests.conftest import Repo


def test_the_generated_table_is_current() -> None:
    """A SPEC changed without `make languages` fails here, naming the command."""
    text = Path(generate.TARGET).read_text(encoding="utf-8")
    assert generate.render() == text, "rq_engine/core/languages.py is stale: run `make languages`"


def test_the_check_mode_is_what_make_check_can_run() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "rq_engine.lang.generate", "--check"],
        capture_output=True,
        text=True,
    )
    assert (done.returncode, done.stderr) == (0, "")


def test_every_plugin_class_is_its_spec() -> None:
    """The class attributes the indexer reads are the spec's, never a second copy."""
    assert [s.name for s in languages.SPECS] == registry.languages()
    for spec in languages.SPECS:
        module, cls_name = spec.plugin.split(":")
        cls = getattr(importlib.import_module(module), cls_name)
        assert cls.spec.located(spec.plugin) == spec
        assert (cls.name, cls.extensions, cls.scope_separator, cls.constructor_name) == (
            spec.name,
            spec.extensions,
            spec.scope_separator,
            spec.constructor_name,
        )
        assert type(registry.plugin(spec.name)) is cls


def test_each_table_is_built_from_the_specs() -> None:
    for spec in languages.SPECS:
        for ext in spec.extensions:
            assert registry.language_for_path(f"a/b/file{ext}") == spec.name
            assert looks_like_path(f"Name{ext}")
        for name in spec.filenames:
            assert registry.language_for_path(f"a/{name}") == spec.name
        assert registry.scope_separators()[spec.name] == spec.scope_separator
        assert registry.constructor_names().get(spec.name) == spec.constructor_name
        for suffix in spec.test_suffixes:
            assert paths.is_test_file_name(f"thing{suffix}")
        for name in spec.test_names:
            assert paths.is_test_file_name(name)
        for prefix, ext in spec.test_prefixes:
            assert paths.is_test_file_name(f"{prefix}thing{ext}")
            assert not paths.is_test_file_name(f"thing{ext}")
        for suffix in spec.test_class_suffixes:
            assert paths.is_test_file_name(f"Map{suffix}")
            assert not paths.is_test_file_name(f"MAP{suffix}")


def test_display_follows_the_spec() -> None:
    assert registry.qualify("ruby", "Foo::Bar", "baz", "method") == "Foo::Bar#baz"
    assert registry.qualify("ruby", "Foo", "Bar", "class") == "Foo::Bar"
    assert registry.qualify("php", "App\\Http", "Kernel", "class") == "App\\Http\\Kernel"
    assert registry.qualify("php", "App\\Http\\Kernel", "handle", "method") == (
        "App\\Http\\Kernel::handle"
    )
    assert registry.qualify("rust", "a::b", "C", "struct") == "a::b::C"
    assert registry.qualify("python", "a.B", "c", "method") == "a.B.c"
    assert registry.qualify("python", None, "c", "function") == "c"
    assert registry.qualify("cobol", "A", "b", "function") == "A.b"  # unknown: dots


def test_a_spec_prints_as_the_source_that_builds_it() -> None:
    spec = LanguageSpec(
        "toy",
        (".toy",),
        plugin="m:ToyPlugin",
        scope_separator="::",
        constructor_name=CLASS_NAME,
        test_prefixes=(("check_", ".toy"),),
    )
    built = eval(spec.source().strip().rstrip(","), {"LanguageSpec": LanguageSpec})  # noqa: S307
    assert built == spec
    assert "member_kinds" not in spec.source()  # defaults are left out


TOY = '''"""A toy language: Python's syntax in `.toy` files, to trace what adding a language takes."""

from rq_engine.core.langspec import LanguageSpec
from rq_engine.lang.python import PythonPlugin

SPEC = LanguageSpec("toy", (".toy",), scope_separator="::", test_suffixes=("_check.toy",))


class ToyPlugin(PythonPlugin):
    spec = SPEC

    def extract(self, source):
        symbols = super().extract(source)
        for s in symbols:
            s.language = "toy"
            s.parent = s.parent.replace(".", "::") if s.parent else None
        return symbols
'''


def test_a_new_language_is_its_module_alone(tmp_path: Path, make_repo: Callable[..., Repo]) -> None:
    """The trace the structure promises: a copy of the engine with one new plugin
    module and `make languages` run reads the new files, and no other engine file
    differs (a query file and tests would be the rest of a real language)."""
    import filecmp
    import os
    import shutil

    src = Path(generate.__file__).resolve().parents[1]
    copy = tmp_path / "src" / "rq_engine"
    shutil.copytree(src, copy, ignore=shutil.ignore_patterns("__pycache__"))
    (copy / "lang" / "toy.py").write_text(TOY, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(tmp_path / "src"), "PYTHONDONTWRITEBYTECODE": "1"}

    def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=120
        )

    assert run("-m", "rq_engine.lang.generate", cwd=tmp_path).returncode == 0
    changed = []
    for d, _dirs, files in os.walk(copy):
        for f in files:
            rel = Path(d, f).relative_to(copy)
            if not (src / rel).exists() or not filecmp.cmp(src / rel, copy / rel, shallow=False):
                changed.append(str(rel))
    assert sorted(changed) == ["core/languages.py", "lang/toy.py"]

    repo = make_repo(
        {
            "widgets.toy": "class Widget:\n    def spin(self):\n        pass\n",
            "widgets_check.toy": "class Widget:\n    pass\n",
            "other.py": "class Gadget:\n    pass\n",
        }
    )
    done = run("-m", "rq_engine", "--index", ".", cwd=repo.root)
    assert done.returncode == 0, done.stderr
    assert "3 files" in done.stderr
    done = run("-m", "rq_engine", "-q", "Widget::spin", cwd=repo.root)
    assert (done.returncode, done.stdout.split()[:1]) == (0, ["widgets.toy:2"]), done.stderr
    # the spec's test-file name ranks the checked copy under the real one
    done = run("-m", "rq_engine", "-q", "--limit", "2", "Widget", cwd=repo.root)
    assert [line.split()[0] for line in done.stdout.splitlines()] == [
        "widgets.toy:1",
        "widgets_check.toy:1",
    ]
