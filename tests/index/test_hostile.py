"""A hostile repository: every input that once hurt the indexer, in one real git repository.

`rq --index` exits 0 with its counts and no traceback, each real definition answers
where it is, and nothing outside the repository is searchable. Bounded: ~3 s.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from pathlib import Path

from tests.conftest import Repo, Run
from tests.index.test_bounds import nested_python, nested_ruby, nested_rust

LONG = "long_" + "x" * 5000  # one 5 KB identifier

# path -> (definition, line): what a user must find
REAL = {
    "src/app.py": ("hostile_app_main", 1),
    "lib/util.rb": ("hostile_ruby_util", 2),
    "pkg/main.go": ("HostileGoMain", 3),
    "web/app.ts": ("hostileTsMain", 1),
    "web/app.js": ("hostileJsMain", 1),
    "src/lib.rs": ("hostile_rust_main", 1),
    "with space.py": ("spaced_def", 1),
    "new\nline.py": ("newline_def", 1),
    "esc\x1b[31m.py": ("esc_def", 1),
    "latin.py": ("caf\xe9_latin", 1),
    "deep.rs": ("rust_leaf", 3001),
    "deep.rb": ("ruby_leaf", 2001),
    "deep.py": ("py_leaf", 61),
}


def hostile(repo: Repo, outside: Path) -> None:
    w = repo.write
    w("src/app.py", "def hostile_app_main():\n    pass\n")
    w("lib/util.rb", "module Util\n  def self.hostile_ruby_util\n  end\nend\n")
    w("pkg/main.go", "package main\n\nfunc HostileGoMain() {}\n")
    w("web/app.ts", "export function hostileTsMain(): void {}\n")
    w("web/app.js", "function hostileJsMain() {}\n")
    w("src/lib.rs", "pub fn hostile_rust_main() {}\n")
    w("with space.py", "def spaced_def():\n    pass\n")
    w("new\nline.py", "def newline_def():\n    pass\n")
    w("esc\x1b[31m.py", "def esc_def():\n    pass\n")
    w("deep.rs", nested_rust(3000))
    w("deep.rb", nested_ruby(2000))
    w("deep.py", nested_python(60))
    w("long.py", f"def {LONG}():\n    pass\n")
    root = repo.root
    (root / "latin.py").write_bytes("def caf\xe9_latin():\n    pass\n".encode("latin-1"))
    with open(os.path.join(os.fsencode(root), b"bad\xffname.py"), "wb") as f:
        f.write(b"def bad_name_def():\n    pass\n")  # a name SQLite text cannot hold
    (root / "bin").mkdir()
    (root / "bin" / "blob.py").write_bytes(b"def binary_def():\n    pass\n\x00\x01" * 50)
    (root / "bin" / "image.rs").write_bytes(bytes(range(256)) * 64)
    (root / "gen").mkdir()
    (root / "gen" / "huge.js").write_bytes(b"var huge_def = '" + b"x" * (10 << 20) + b"';\n")
    (root / "dist").mkdir()
    bundle = "".join(f"function m{i}(a){{return a+{i}}};" for i in range(3000))
    (root / "dist" / "bundle.min.js").write_text(bundle + "\n")
    d = root / "deepdir"
    for _ in range(200):
        d = d / "d"
    d.mkdir(parents=True)
    (d / "z.py").write_text("def deep_in_git():\n    pass\n")
    for name, target in {
        "loop_a.py": "loop_b.py",
        "loop_b.py": "loop_a.py",
        "self.py": "self.py",
        "up": "..",
        "src/back": "../src",
        "leak.py": str(outside / "secret.py"),
        "proc.py": "/proc/self/status",
        "fifo.py": str(outside / "fifo.py"),
    }.items():
        os.symlink(target, root / name)
    repo.commit("hostile")
    os.mkfifo(root / "pipe.py")  # untracked: git lists no FIFO, and nothing opens it


def test_a_hostile_repository_is_indexed_with_counts(
    make_repo: Callable[..., Repo], rq: Callable[..., Run], tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.py").write_text("def outside_secret():\n    pass\n")
    os.mkfifo(outside / "fifo.py")
    repo = make_repo(commit=False)
    hostile(repo, outside)

    r = rq("--index", str(repo.root))
    assert r.code == 0 and r.out == "" and "Traceback" not in r.err
    lines = r.err.splitlines()
    # 19 source files: 14 with definitions (deepdir's among them), 2 binary, 1 over
    # 1 MiB, 1 minified, 6 symlinks; one name not UTF-8
    assert "indexed 15 files (15 new or changed, 0 removed, 10 skipped, 1 failed" in lines[0]
    assert len(lines) == 2 and lines[1].endswith("name.py: file name is not UTF-8")
    symbols = re.search(r"\), (\d+) symbols in", lines[0])
    assert symbols is not None

    status = rq("--status")
    assert status.code == 0 and "Traceback" not in status.err
    row = next(ln for ln in status.out.splitlines() if ln.startswith("local:"))
    assert row.split()[1:6] == ["complete", "15", symbols.group(1), "10", "1"]

    for path, (name, line) in REAL.items():
        r = rq("-q", "--json", name, cwd=repo.root)
        assert r.code == 0, (name, r.err)
        top = json.loads(r.out)["results"][0]
        assert (top["path"], top["line"], top["name"]) == (path, line, name)
    r = rq("-q", "--json", "deep_in_git", cwd=repo.root)
    assert json.loads(r.out)["results"][0]["path"] == "deepdir/" + "d/" * 200 + "z.py"
    long = json.loads(rq("-q", "--json", "long_xxxx", cwd=repo.root).out)["results"][0]
    assert len(long["name"]) == 512 and long["name"].endswith("…") and long["line"] == 1

    # nothing outside the repository, no binary, oversized or minified content
    for name in ("outside_secret", "binary_def", "huge_def", "m2999"):
        assert rq("-q", name, cwd=repo.root).code == 1, name
    # the graph of the whole repository realizes
    r = rq("--text", "hostile app main", cwd=repo.root)
    assert r.code == 0 and r.out.startswith("src/app.py:1  function  hostile_app_main")
    # a second pass compares stats instead of handing files to the parser: same counts
    r = rq("--index", str(repo.root))
    assert r.code == 0 and "(0 new or changed, 0 removed, 10 skipped, 1 failed" in r.err
