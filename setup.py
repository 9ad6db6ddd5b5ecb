"""Build hook for the compiled modules; everything else about the package lives in ``pyproject.toml``.

Each module is an accelerator that sits next to the Python it mirrors: built against the headers
lxml ships (``lxml.get_include()``) and marked optional, so a machine without a C compiler still
installs the package and runs the pure-Python reference, with identical output, only slower.
Adding a compiled module takes one line in :data:`COMPILED`.
"""

from setuptools import Extension, setup

#: The ``.pyx`` sources, relative to the repository root; the module name is the path's.
COMPILED = [
    "webclean_scrapy/engine/html/_walk.pyx",
    "webclean_scrapy/engine/html/_screen.pyx",
    "webclean_scrapy/engine/text/_langid.pyx",
    "webclean_scrapy/engine/_trees.pyx",
    "webclean_scrapy/engine/page_type/_signals.pyx",
    "webclean_scrapy/engine/extractors/webclean/_features.pyx",
    "webclean_scrapy/engine/extractors/webclean/_continuity.pyx",
]

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
