"""The language-agnostic core: symbol model, repository identity, scoring. No language specifics."""
