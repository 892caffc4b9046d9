"""A module whose import raises."""

raise RuntimeError("this module refuses to import")
