"""Language plugins: the only place a language lives. See base.LanguagePlugin and registry."""
