"""`python -m server`: the same as `malilla-dd serve`."""
import sys

from .main import main

sys.exit(main())
