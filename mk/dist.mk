# make dist: the Python and npm packages (docs/packaging.md). Included at
# the end of the Makefile's second stage.
