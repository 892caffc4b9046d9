"""Example files to copy into your own project (see ``test_example_oracle.py``)."""
