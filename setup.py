"""Build hook for the compiled modules; everything else about the package lives in ``pyproject.toml``.

Each module is an accelerator that sits next to the Python it mirrors: built against the headers
lxml ships (``lxml.get_include()``) and marked optional, so a machine without a C compiler still
installs the package and runs the pure-Python reference, with identical output, only slower.
Adding a compiled module takes its ``.pyx`` and one line in ``engine/compiled.py``.
"""

from pathlib import Path

from setuptools import Extension, setup

#: Every ``.pyx`` of the package, built to the module its path names (listed for the start-up
#: line in webclean_scrapy/engine/compiled.py).
COMPILED = sorted(path.as_posix() for path in Path("webclean_scrapy").rglob("_*.pyx"))

try:
    import lxml
    from Cython.Build import cythonize
except ImportError:  # a build without Cython or lxml: pure Python
    extensions = []
else:
    extensions = cythonize(
        [
            Extension(path[: -len(".pyx")].replace("/", "."), [path], include_dirs=lxml.get_include(), optional=True)
            for path in COMPILED
        ],
        language_level=3,
    )

setup(ext_modules=extensions)
