"""A module that calls sys.exit(0) at import (must not end the audit with status 0)."""

import sys

sys.exit(0)
