"""The C++ language plugin, which also reads every `.h`: namespaces, classes, methods, templates, C headers.

Imports tree-sitter only lazily (through _cfamily/grammar), never at import time.

Which `.h` is C++: the language of a file is chosen by its path before it is
read, so every `.h` is stored as `cpp` (as universal-ctags maps it), and the
plugin decides per file how to read it (`is_cpp`): a header whose first 16 KiB
hold a line that only C++ can start (`template <`, `namespace x {`, `class X {`,
`class X : public`, `using namespace`, an access label `public:`, an
extension-less `#include <vector>`) or a `std::` anywhere in them is read with
the C++ grammar and rules, any other with the C grammar and C's rules (c.py).
C headers use C++ keywords as names (`struct page *new`, `struct class`), which
the C++ grammar cannot read. The test is deterministic, needs no other file,
and costs ~20 µs a header (~60 ms over the kernel slice's 2,802): of LLVM 14's
1,613 headers it reads 1,567 as C++ and the 46 others (llvm-c's C API, the
config headers) hold no C++; of Linux 6.1's 23,413 it reads 8 as C++, all of
them C++ (the GCC plugins, perf's clang glue).

Rules for C++ (what a developer jumps to):
- `namespace a { }` -> module (`namespace a::b` -> two); members take the whole
  chain as parent (`llvm::StringRef`), `::`-separated.
- class/struct/union -> class/struct/union at its keyword line (not the
  `template <…>` line above), specialisations under their template's name
  (`DenseMapInfo<StringRef>` -> `DenseMapInfo`); enum (and `enum class`) ->
  enum, its enumerators -> constants (parent: the enum for a scoped enum, else
  the scope the enum sits in). `using X = …` and `typedef` -> type. A `static
  const`/`constexpr` member with a value -> constant (`StringRef::npos`); any
  other data member -> field (`SmallVectorBase::Size`).
- A function defined in a class -> method; one declared there and not defined
  in the same file -> method at its declaration (headers declare most members;
  when the file also defines the member, the definition is the one kept). A
  function declared in a namespace and not defined in the file -> function at
  its declaration (`raw_ostream &errs();`: all a header holds of it); where a
  source file defines it, both are indexed, and the longer definition wins a
  tie in ranking.
  Constructors are methods named after the class (`Foo::Foo`); destructors
  `~Foo`; operators `operator==`. `A::B::f` defined outside its class -> method
  with parent `A::B` (prefixed with the namespaces it is written in); when `A::B`
  ends with a namespace of this file, a function. Other functions -> function.
- Access sections are visibility (a class starts private, a struct public);
  `static` at namespace scope and anything in an anonymous namespace -> private.
- Macros, variables, guards: as in C (c.py). Attribute-like macros the grammar
  cannot know (`class LLVM_NODISCARD APInt {`, `LLVM_NODISCARD` on the line
  above a method) are blanked before parsing (_cparse.unmacro_cpp).
"""

from __future__ import annotations

import re

from rq_engine.core.langspec import CLASS_NAME, LanguageSpec
from rq_engine.core.model import Symbol
from rq_engine.lang import _refs
from rq_engine.lang._cfamily import Walk
from rq_engine.lang._cparse import unmacro_attributes, unmacro_cpp
from rq_engine.lang.base import LanguagePlugin

# every `.h` too: a header with no C++ in it is read as C (is_cpp, below)
SPEC = LanguageSpec(
    "cpp",
    (".cc", ".cpp", ".cxx", ".c++", ".hpp", ".hh", ".hxx", ".h"),
    scope_separator="::",
    constructor_name=CLASS_NAME,  # `Foo::Foo`, found by `Foo::new` too
    test_suffixes=tuple(
        f"_{unit}test{ext}" for unit in ("", "unit") for ext in (".cc", ".cpp", ".cxx")
    ),
    test_prefixes=tuple(("test_", ext) for ext in (".cc", ".cpp", ".cxx")),
)

#: how much of a file `is_cpp` reads: LLVM's headers show C++ by then (the count of
#: headers read as C++ is the same at 16 KiB as over whole files)
SNIFF_BYTES = 16 * 1024
# A line only C++ can start. Each alternative begins with one of _WORDS, so the
# regex runs only at the starts of lines holding one (a regex over the whole head
# is 3x slower: it tries every byte).
_CPP_LINE = re.compile(
    rb"[ \t]*(?:"
    rb"template[ \t]*<"
    rb"|namespace(?:[ \t]+[\w:]+)?[ \t]*\{"
    rb"|class[ \t]+(?:\w+[ \t]+)*\w+[ \t]*(?:final[ \t]*)?[:{;]"
    rb"|(?:class|struct)[ \t]+\w+[ \t]*(?:final[ \t]*)?:[ \t]*(?:public|private|protected|virtual)\b"
    rb"|using[ \t]+namespace\b"
    rb"|(?:public|private|protected)[ \t]*:"
    rb"|\#[ \t]*include[ \t]*<[\w/]+>"
    rb")"
)
_WORDS = (b"template", b"namespace", b"class", b"public", b"private", b"protected", b"include")


def is_cpp(source: bytes) -> bool:
    """Whether a file is read as C++ rather than C (see the module docstring)."""
    head = source[:SNIFF_BYTES]
    at = head.find(b"std::")
    if at == 0 or (at > 0 and not (head[at - 1 : at].isalnum() or head[at - 1] == 0x5F)):
        return True
    for word in _WORDS:
        i = head.find(word)
        while i >= 0:
            line = head.rfind(b"\n", 0, i) + 1
            if _CPP_LINE.match(head, line):
                return True
            i = head.find(word, i + len(word))
    return False


class CppPlugin(LanguagePlugin):
    spec = SPEC

    def references(self, source: bytes) -> set[tuple[str, str]]:
        return _refs.scoped(source)

    def extract(self, source: bytes) -> list[Symbol]:
        if is_cpp(source):
            return Walk(unmacro_cpp(source), self.name, cpp=True, header=False).run()
        # C in a header: C's rules, except that a `static inline` function is the
        # header's API (every includer gets it), not a private helper
        return Walk(unmacro_attributes(source), self.name, cpp=False, header=True).run()
