"""rq_tui: the interactive picker face of rq (Textual). rq_engine never imports this package."""
