"""The C language plugin: functions, structs and their fields, unions, enums and their
constants, typedefs, macros, globals.

Imports tree-sitter only lazily (through _cfamily/grammar), never at import time.
Reads `.c` files; `.h` belongs to the C++ plugin (cpp.py), which reads a header
with no C++ in it by these same rules.

Rules (what a developer jumps to):
- A function *definition* -> function, on its name's line (a return type on the
  line above is not the line one wants). Prototypes (`extern int f(void);`) are
  not definitions: the body is what one jumps to. A function defined through a
  macro (`SYSCALL_DEFINE3(open, …) { … }`) is named by the macro's first argument.
- `struct`/`union`/`enum` with a body -> struct/union/enum at its keyword line,
  wherever it sits (a typedef, a variable's type, nested in another struct);
  forward declarations and uses (`struct file *f`) are not definitions. Every
  enumerator -> constant. `typedef ... name` -> type, at the name's line.
- `#define`, object-like and function-like -> macro, wherever it sits outside a
  function body (under `#ifdef`s too), except an include guard (`#ifndef X_H`
  then `#define X_H` with no value, at the top of the file). What keeping them
  costs, measured on the kernel slice (3,944 files): 93k of its 182k symbols are
  macros, 83k of them object-like (`GFP_KERNEL`, `PAGE_SHIFT`, register bits),
  and those 83k take a cold `rq --index` from 3.7 s to 5.2 s (6.6 -> 9.0 s of
  CPU, ~30 µs a symbol, most of it in the indexer's keys and writes). They are
  kept: they are most of what a header defines, what ctags finds there, and
  `GFP_KERNEL` or `BUILD_BUG_ON` are names people jump to.
- File-scope variables that are defined here (not `extern`) -> variable.
- A struct's or union's members -> field, parent the struct's tag (`task_struct.pid`;
  a function pointer, `file_operations.open`, too); in an anonymous struct or union
  the enclosing struct's (`s.a` reaches it), in `typedef struct { … } foo_t` the
  typedef's name. Nothing else has a parent: C has one namespace for tags and names.
- Visibility: `static` -> private (the file's own helper), anything else public.
  Nothing inside a function body is walked (locals, nested macros).
- Attribute macros the grammar cannot know (`static inline __printf(2, 3) void
  f(…)`, `__alloc_size(1) void *kmalloc(…)`) are blanked before parsing
  (_cparse.py); where the grammar still misreads a macro, the walk recovers the
  definitions after it (_crecover.py).
"""

from __future__ import annotations

from rq_engine.core.langspec import LanguageSpec
from rq_engine.core.model import Symbol
from rq_engine.lang._cfamily import Walk
from rq_engine.lang._cparse import unmacro_attributes
from rq_engine.lang.base import LanguagePlugin

SPEC = LanguageSpec(
    "c",
    (".c",),
    constructor_name=None,  # C has none, nor scopes: no C symbol has a parent
    test_suffixes=("_test.c", "_unittest.c"),
    test_prefixes=(("test_", ".c"),),
)


class CPlugin(LanguagePlugin):
    spec = SPEC

    def extract(self, source: bytes) -> list[Symbol]:
        return Walk(unmacro_attributes(source), self.name, cpp=False, header=False).run()
