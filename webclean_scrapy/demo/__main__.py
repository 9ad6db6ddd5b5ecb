"""``python -m webclean_scrapy.demo``: same as ``webclean demo``."""

import sys

from webclean_scrapy.demo import main

sys.exit(main())
