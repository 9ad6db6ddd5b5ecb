"""Build hook for the compiled modules: ``webclean_scrapy._walk``, ``._trees``, ``._langid``, ``._screen``,
``._signals``, ``._features``, ``._continuity``.

Everything else about the package lives in ``pyproject.toml``. Each module is
an accelerator: it is built against the headers lxml ships (``lxml.get_include()``)
and marked optional, so a machine without a C compiler still installs the
package and runs the pure-Python walk, with identical output, only slower.
"""

from setuptools import Extension, setup

try:
    import lxml
    from Cython.Build import cythonize
except ImportError:  # a build without Cython or lxml: pure Python
    extensions = []
else:
    extensions = cythonize(
        [
            Extension(
                "webclean_scrapy._walk", ["webclean_scrapy/_walk.pyx"], include_dirs=lxml.get_include(), optional=True
            ),
            Extension("webclean_scrapy._trees", ["webclean_scrapy/_trees.pyx"], optional=True),
            Extension("webclean_scrapy._langid", ["webclean_scrapy/_langid.pyx"], optional=True),
            Extension("webclean_scrapy._screen", ["webclean_scrapy/_screen.pyx"], optional=True),
            Extension("webclean_scrapy._features", ["webclean_scrapy/_features.pyx"], optional=True),
            Extension("webclean_scrapy._continuity", ["webclean_scrapy/_continuity.pyx"], optional=True),
            Extension("webclean_scrapy._signals", ["webclean_scrapy/_signals.pyx"], optional=True),
        ],
        language_level=3,
    )

setup(ext_modules=extensions)
