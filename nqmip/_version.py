"""The package's version, spelled once: ``nqmip.__version__``, the commands' ``--version``
and the wheel's metadata (``pyproject.toml`` reads it) all come from here."""

__version__ = "0.1.0"
