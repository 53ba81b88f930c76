"""What the tests share: helper modules and the fixtures plugin (``fixtures.py``).

A test module or a conftest imports helpers from here, never from another test module
or conftest (``tests/test_layout.py`` holds this).
"""
