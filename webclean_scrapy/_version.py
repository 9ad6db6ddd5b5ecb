"""The package version: the one source pyproject.toml, the user agent and ``webclean --version`` read."""

__version__ = "0.1.0"
