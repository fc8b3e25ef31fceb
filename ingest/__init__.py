"""Reading, normalising, deduplicating and tagging Magic: The Gathering rulings."""

__version__ = "0.1.0"
