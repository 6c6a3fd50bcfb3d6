"""*Artificium* (Timofey Shargorodsky, 2014): the library's second game, a folder of its own.

Rules: ``docs/artificium/rules.md`` (rule ids A1.1 ...). Tables: :mod:`.cards` (``data/``).
Layout: :mod:`.layout`. Compiled rules: :mod:`.core`. Forward model: :class:`.engine.Game`.
"""
