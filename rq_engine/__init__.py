"""rq's engine: index, store, search and text ranking. Never imports textual or rich."""

__version__ = "0.1.0"
