"""What each plugin reports a file names by qualifier: the canonical prior's pairs."""

from __future__ import annotations

import pytest

from rq_engine.lang import registry


def refs(language: str, source: str) -> set[tuple[str, str]]:
    return registry.plugin(language).references(source.encode())


def test_go_counts_names_through_the_packages_a_file_imports() -> None:
    src = """package p

import (
    "io"
    xj "encoding/json"
    _ "embed"
    . "strings"
)
import "net"

func f(r io.Reader, c net.Conn) error {
    var v myio.Reader   // another package's `io`: not counted
    _ = x.io.Writer     // a field: not counted
    return xj.Unmarshal(nil, &v)
}
"""
    assert refs("go", src) == {("io", "Reader"), ("net", "Conn"), ("json", "Unmarshal")}


def test_python_counts_from_imports() -> None:
    src = """from django.db.models import Model, QuerySet as QS
from .base import (
    Field,
    # a comment
    CharField,
)
from . import views
import os.path
x = models.Model  # attribute use is not scanned
"""
    assert refs("python", src) == {
        ("models", "Model"),
        ("models", "QuerySet"),
        ("base", "Field"),
        ("base", "CharField"),
    }


def test_ruby_counts_constant_paths() -> None:
    src = "class Post < ActiveRecord::Base\n  X = Foo::Bar::Baz\n  y = a::b\nend\n"
    assert refs("ruby", src) == {("ActiveRecord", "Base"), ("Foo", "Bar"), ("Bar", "Baz")}


def test_rust_and_cpp_count_paths_and_braced_uses() -> None:
    src = "use crate::runtime::{Runtime, Builder as B};\nlet h = tokio::spawn(f);\n"
    assert refs("rust", src) == {
        ("crate", "runtime"),
        ("runtime", "Runtime"),
        ("runtime", "Builder"),
        ("tokio", "spawn"),
    }
    assert refs("cpp", "llvm::StringRef s; std::vector<int> v;\n") == {
        ("llvm", "StringRef"),
        ("std", "vector"),
    }


def test_typescript_and_javascript_count_named_imports() -> None:
    src = """import { Observable, map as m } from './Observable';
import type { Foo } from "../types/foo.js";
import * as Effect from "./Effect.js";
export { pipe } from './pipe';
const { a, b: c } = require('./util');
Effect.succeed(1);
import x from './index';
"""
    want = {
        ("Observable", "Observable"),
        ("Observable", "map"),
        ("foo", "Foo"),
        ("pipe", "pipe"),
        ("util", "a"),
        ("util", "b"),
        ("Effect", "succeed"),
    }
    assert refs("typescript", src) == want
    assert refs("javascript", src) == want


def test_java_and_php_count_imports_and_namespaces() -> None:
    java = "import java.util.List;\nimport static java.util.Map.entry;\nimport a.b.*;\n"
    assert refs("java", java) == {("util", "List"), ("Map", "entry")}
    php = "<?php\nuse Illuminate\\Support\\Collection;\n$x = new \\App\\Models\\User();\n"
    assert refs("php", php) == {
        ("Illuminate", "Support"),
        ("Support", "Collection"),
        ("App", "Models"),
        ("Models", "User"),
    }


def test_c_names_nothing_by_qualifier() -> None:
    assert refs("c", "struct a x; int f(void) { return a.b; }\n") == set()


@pytest.mark.parametrize(
    ("language", "head", "line", "pair"),
    [
        ("go", 'package p\nimport "io"\n', "var _ io.R{i}\n", ("io", "R1")),
        ("python", "", "from m import R{i}\n", ("m", "R1")),
        ("ruby", "", "A::R{i}\n", ("A", "R1")),
        ("rust", "", "a::R{i};\n", ("a", "R1")),
        ("typescript", "", "import {{ R{i} }} from './m';\n", ("m", "R1")),
        ("php", "<?php\n", "\\A\\R{i};\n", ("A", "R1")),
    ],
)
def test_a_file_reports_each_pair_once_and_a_bounded_number(
    language: str, head: str, line: str, pair: tuple[str, str]
) -> None:
    """Written three times: one pair. 2,500 distinct names: at most 2,000 of them (a
    generated file naming thousands says little about any one)."""
    assert refs(language, head + line.format(i=1) * 3) == {pair}
    src = head + "".join(line.format(i=i % 2500) for i in range(5000))
    assert len(refs(language, src)) == 2000


def test_a_file_importing_hundreds_of_packages_follows_the_first_64() -> None:
    """Each bound name is a scan of the whole file: a hostile file importing 1,500
    packages must not cost 1,500 scans."""
    imports = "".join(f'\t"a/x{i}"\n' for i in range(1500))
    uses = "".join(f"var _ = x{i}.A\n" for i in (0, 63, 64, 1499))
    got = refs("go", f"package p\nimport (\n{imports})\n{uses}")
    assert got == {("x0", "A"), ("x63", "A")}
