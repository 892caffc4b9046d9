"""Tutorials shipped with exactdp: executable Markdown (``NN-name.md``) and one notebook.

List and run them with ``exactdp tutorial``; :mod:`exactdp.tutorials.runner` parses and
runs them (every code block executes, every shown output is checked).  The format is
described in ``README.md`` beside them.
"""
