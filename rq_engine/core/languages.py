"""Every language rq reads, as data: GENERATED from each plugin module's SPEC
by `make languages` (rq_engine/lang/generate.py). Do not edit: change the
plugin's SPEC and regenerate; tests/lang/test_language_table.py fails while
this file is stale. The registry, query parsing and the scorer build their
tables from SPECS without importing any plugin.
"""

from __future__ import annotations

from rq_engine.core.langspec import CLASS_NAME, LanguageSpec

SPECS: tuple[LanguageSpec, ...] = (
    LanguageSpec(
        'c',
        ('.c',),
        plugin='rq_engine.lang.c:CPlugin',
        test_suffixes=('_test.c', '_unittest.c'),
        test_prefixes=(('test_', '.c'),),
    ),
    LanguageSpec(
        'cpp',
        ('.cc', '.cpp', '.cxx', '.c++', '.hpp', '.hh', '.hxx', '.h'),
        plugin='rq_engine.lang.cpp:CppPlugin',
        scope_separator='::',
        constructor_name=CLASS_NAME,
        test_suffixes=('_test.cc', '_test.cpp', '_test.cxx', '_unittest.cc', '_unittest.cpp', '_unittest.cxx'),
        test_prefixes=(('test_', '.cc'), ('test_', '.cpp'), ('test_', '.cxx')),
    ),
    LanguageSpec(
        'go',
        ('.go',),
        plugin='rq_engine.lang.go:GoPlugin',
        test_suffixes=('_test.go',),
    ),
    LanguageSpec(
        'java',
        ('.java',),
        plugin='rq_engine.lang.java:JavaPlugin',
        constructor_name=CLASS_NAME,
        test_class_suffixes=('Test.java', 'Tests.java'),
    ),
    LanguageSpec(
        'javascript',
        ('.js', '.jsx', '.mjs', '.cjs'),
        plugin='rq_engine.lang.javascript:JavaScriptPlugin',
        constructor_name='constructor',
        test_suffixes=('.test.js', '.test.jsx', '.test.cjs', '.test.cjsx', '.test.mjs', '.test.mjsx', '.spec.js', '.spec.jsx', '.spec.cjs', '.spec.cjsx', '.spec.mjs', '.spec.mjsx'),
    ),
    LanguageSpec(
        'php',
        ('.php',),
        plugin='rq_engine.lang.php:PhpPlugin',
        scope_separator='\\',
        member_separator='::',
        member_kinds=('method', 'constant', 'field'),
        constructor_name='__construct',
        test_class_suffixes=('Test.php', 'Tests.php'),
    ),
    LanguageSpec(
        'python',
        ('.py', '.pyi'),
        plugin='rq_engine.lang.python:PythonPlugin',
        constructor_name='__init__',
        test_suffixes=('_test.py',),
        test_names=('test.py', 'tests.py'),
        test_prefixes=(('test_', '.py'),),
    ),
    LanguageSpec(
        'ruby',
        ('.rb', '.rake', '.gemspec'),
        plugin='rq_engine.lang.ruby:RubyPlugin',
        filenames=('Rakefile', 'Gemfile'),
        scope_separator='::',
        member_separator='#',
        member_kinds=('method',),
        constructor_name='initialize',
        test_suffixes=('_test.rb', '_spec.rb'),
    ),
    LanguageSpec(
        'rust',
        ('.rs',),
        plugin='rq_engine.lang.rust:RustPlugin',
        scope_separator='::',
        test_suffixes=('_test.rs', '_tests.rs'),
        test_names=('tests.rs',),
    ),
    LanguageSpec(
        'typescript',
        ('.ts', '.mts', '.cts'),
        plugin='rq_engine.lang.typescript:TypeScriptPlugin',
        constructor_name='constructor',
        test_suffixes=('.test.ts', '.test.cts', '.test.ctsx', '.test.mts', '.test.mtsx', '.spec.ts', '.spec.cts', '.spec.ctsx', '.spec.mts', '.spec.mtsx'),
    ),
    LanguageSpec(
        'tsx',
        ('.tsx',),
        plugin='rq_engine.lang.typescript:TsxPlugin',
        constructor_name='constructor',
        test_suffixes=('.test.tsx', '.spec.tsx'),
    ),
)
