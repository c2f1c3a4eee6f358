"""The stream-input tests (#51). A package so that pytest imports this folder's conftest as `streams.conftest`:
Tests/serve has a conftest.py of its own and imports from it by name (`from conftest import …`), which a second top-level
`conftest` module would shadow when one run collects both folders (scripts/serve-tests Tests/serve Tests/streams)."""
