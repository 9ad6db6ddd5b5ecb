"""``python -m webclean_scrapy.demo``: same as ``webclean demo``."""

import sys

from . import main

sys.exit(main())
