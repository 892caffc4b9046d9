"""``python -m exactdp.cli``: the same as the ``exactdp`` command."""

import sys

from exactdp.cli import main

sys.exit(main())
