"""Double-dummy solver for Malilla and Manille."""
from importlib.util import find_spec as _find_spec

__version__ = "0.1.0"

if _find_spec(f"{__name__}._core") is None:   # a checkout whose core is not built
    raise ImportError("solver's compiled search core (solver._core) is missing: build it with "
                      "`python -m pip install -e .`")

from .errors import IllegalPlay, PositionError
from .profiles import MALILLA, MANILLE, PROFILES, Profile, get_profile
from .position import Position
from .solve import CardValue, SearchStopped, SearchTimeout, Solution, Solver, solve

__all__ = ["__version__", "MALILLA", "MANILLE", "PROFILES", "Profile", "get_profile", "Position",
           "PositionError", "IllegalPlay", "solve", "Solver", "Solution", "CardValue", "SearchStopped", "SearchTimeout"]
