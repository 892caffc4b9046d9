"""A module that never finishes importing (the audit's --time-limit must cover it)."""

while True:
    pass
