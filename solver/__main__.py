"""`python -m solver`: the `malilla-dd` command line."""
import sys

from .cli import main

sys.exit(main())
