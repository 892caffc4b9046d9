"""A module that imports a package that is not installed."""

import exactdp_no_such_dependency_xyz  # noqa: F401
