"""``python -m webclean_scrapy.cli``: the ``webclean`` command."""

import sys

from webclean_scrapy.cli import main

sys.exit(main())
