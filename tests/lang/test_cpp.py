"""C++ plugin: golden tables (a .cpp, an LLVM-style header, a C header), the `.h` decision,
robustness, registry agreement, the macro repairs and the layout-based body skipping
(through what the plugin extracts; the body rules' own unit test is marked below)."""

from __future__ import annotations

import pytest

from rq_engine.lang import registry
from rq_engine.lang.cpp import SNIFF_BYTES, CppPlugin, is_cpp
from tests.conftest import corpus
from tests.lang.golden_tables import (
    FIXTURES,
    check_golden,
    check_never_raises,
    check_registry_agrees,
)


def test_golden_sample() -> None:
    check_golden("cpp", "sample.cpp")


def test_golden_cpp_header_in_llvm_style() -> None:
    check_golden("cpp", "llvm_style.h")


def test_golden_c_header_is_read_as_c() -> None:
    # `struct class`, `int new`, `void *private`: C++ keywords as C names
    check_golden("cpp", "kernel_style.h")


def test_never_raises_on_garbage() -> None:
    for fixture in ("sample.cpp", "llvm_style.h", "kernel_style.h"):
        check_never_raises(CppPlugin(), FIXTURES / "cpp" / fixture)


def test_registry_agrees() -> None:
    check_registry_agrees(CppPlugin())
    assert CppPlugin.constructor_name == registry.CLASS_NAME
    assert registry.qualify("cpp", "llvm::StringRef", "startswith", "method") == (
        "llvm::StringRef::startswith"
    )
    assert registry.language_for_path("include/linux/slab.h") == "cpp"
    assert registry.language_for_path("kernel/sched/core.c") == "c"


@pytest.mark.parametrize(
    ("head", "cpp"),
    [
        (b"namespace llvm {\n", True),
        (b"namespace {\n", True),
        (b"template <typename T>\nclass X;\n", True),
        (b"class Foo : public Bar {\n", True),
        (b"struct Foo : private Bar {};\n", True),
        (b"class Foo;\n", True),
        (b"  public:\n", True),
        (b"using namespace std;\n", True),
        (b"#include <vector>\n", True),
        (b"static std::string s;\n", True),
        # C: C++ words used as names, and a C API made callable from C++
        (b"struct class {\n\tint x;\n};\nstruct class *class;\n", False),
        (b"struct page *new, *private;\nint template;\n", False),
        (b'#ifdef __cplusplus\nextern "C" {\n#endif\nint f(void);\n', False),
        (b"/* see Foo::bar and std::vector in C++ */\n", True),  # a comment can say C++
        (b"#include <linux/types.h>\nstruct pid_namespace *ns;\n", False),
        (b"// class Foo { in prose\n", False),
    ],
)
def test_which_header_is_cpp(head: bytes, cpp: bool) -> None:
    assert is_cpp(head) is cpp


def test_the_decision_reads_only_the_head() -> None:
    late = b"int x;\n" * (SNIFF_BYTES // 7 + 1) + b"namespace n {\n}\n"
    assert not is_cpp(late)
    assert is_cpp(late[-SNIFF_BYTES:])


def test_macros_in_class_heads_do_not_hide_the_class() -> None:
    # the grammar takes `LLVM_GSL_POINTER` for the class name and loses the class and
    # its members; the macros are blanked in place, so every line stays the file's own
    src = b"class LLVM_GSL_POINTER LLVM_NODISCARD ArrayRef {\n  LLVM_NODISCARD\n  int f() const;\n};\n"
    syms = CppPlugin().extract(src)
    assert [(s.name, s.kind.value, s.parent, s.line, s.end_line) for s in syms] == [
        ("ArrayRef", "class", None, 1, 4),
        ("f", "method", "ArrayRef", 3, 3),
    ]
    # an upper-case class name followed by its body is the name, not a macro
    assert lines(b"class SCC {\n};\n") == [("SCC", 1)]


def test_out_of_line_members_take_their_class_and_its_access() -> None:
    src = (
        b"namespace a { namespace b {\nclass C {\nprotected:\n  void f();\n};\n} }\n"
        b"void a::b::C::f() {}\nnamespace a { void g(); }\nvoid a::g() {}\n"
    )
    got = [(s.name, s.kind.value, s.parent, s.visibility.value) for s in CppPlugin().extract(src)]
    assert ("f", "method", "a::b::C", "protected") in got
    assert ("g", "function", "a", "public") in got  # `a` is a namespace of this file
    # declared and defined in one file: the definition alone; declared only: kept
    assert [line for name, line in lines(src) if name == "g"] == [9]
    assert lines(b"namespace llvm {\nraw_ostream &errs();\n}\n") == [("llvm", 1), ("errs", 2)]


def lines(src: bytes) -> list[tuple[str, int]]:
    return [(s.name, s.line) for s in CppPlugin().extract(src)]


def test_constructor_query_reaches_the_class_own_name() -> None:
    src = b"namespace n {\nstruct Foo {\n  Foo(int);\n  ~Foo();\n};\n}\n"
    syms = CppPlugin().extract(src)
    assert [(s.name, s.parent) for s in syms] == [
        ("n", None),
        ("Foo", "n"),
        ("Foo", "n::Foo"),
        ("~Foo", "n::Foo"),
    ]


def test_bodies_left_out_follow_the_layout_only_where_it_is_the_nesting() -> None:
    """A unit test of rq_engine/lang/_cparse.py's own contract: which spans of a C++ file
    it leaves out of the parse. Extraction cannot show these rules: a body's inside
    yields no symbol either way, and a macro the C grammar misreads in a body (the C
    plugin's test) does not derail the C++ grammar; their effect is the parse time."""
    from rq_engine.lang._cparse import body_spans

    def cut(src: bytes) -> list[bytes]:
        return [src[a:b] for a, _, b, _ in body_spans(src)]

    method = b"class A {\n  int f() const {\n    return 1;\n  }\n};\n"
    assert cut(method) == [b"    return 1;\n"]
    # a head over two lines: the body ends at its first line's depth, not the `{` line's
    wrapped = b"  static int g(int a,\n                int b) {\n    if (a) {\n      b++;\n    }\n    return b;\n  }\n"
    assert cut(wrapped) == [b"    if (a) {\n      b++;\n    }\n    return b;\n"]
    # `case` as deep as its `switch`, or a body written flush with its head: parsed
    assert cut(b"  switch (x) {\n  case 1:\n    break;\n  }\n") == []
    assert cut(b"  void h() {\n  x();\n  }\n") == []
    # the `)` of a comment opens nothing
    assert cut(b"struct in_place_t // NOLINT(x)\n{\n  int a;\n};\n") == []


@pytest.mark.corpus
def test_llvm_definitions_the_benchmark_expects() -> None:
    root = corpus("llvm")
    want = {
        ("llvm/ADT/StringRef.h", "StringRef", 58, "llvm"),
        ("llvm/ADT/StringRef.h", "startswith", 286, "llvm::StringRef"),
        ("llvm/ADT/APInt.h", "getBitWidth", 1412, "llvm::APInt"),
        ("llvm/Support/raw_ostream.h", "raw_string_ostream", 643, "llvm::raw_string_ostream"),
        ("llvm/ADT/SmallVector.h", "SmallVector", 1182, "llvm"),
    }
    for rel, name, line, parent in sorted(want):
        syms = CppPlugin().extract((root / rel).read_bytes())
        assert any(s.name == name and s.line == line and s.parent == parent for s in syms), (
            f"{rel}:{line} {parent}::{name}"
        )


@pytest.mark.corpus
def test_kernel_headers_are_read_as_c() -> None:
    root = corpus("kernel")
    src = (root / "include/linux/slab.h").read_bytes()
    assert not is_cpp(src)
    kmalloc = [s for s in CppPlugin().extract(src) if s.name == "kmalloc"]
    assert [(s.line, s.kind.value, s.visibility.value) for s in kmalloc] == [
        (549, "function", "public")
    ]
