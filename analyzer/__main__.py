"""`python -m analyzer` is the `ha-analyze` command."""

from .cli import main

main()
