"""Shared by the tests of every folder below: pytest puts this folder on sys.path (a
root conftest's folder is put there), so the helpers beside it (checkout, search_brute,
engine_helpers, ...) import by name from any of them."""
