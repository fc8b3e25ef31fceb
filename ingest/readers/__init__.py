"""One reader per source format. Each module has ``FORMAT`` (its name),
``looks_like(head: bytes, suffix: str) -> bool`` (content sniffing on the first
bytes of the file; the suffix is only a hint) and ``read(path: Path) -> Iterator[Ruling]``
which raises ReadError (cannot be read) or NoRulings (read, but holds no rulings).
"""
