"""Double-dummy solver for Malilla and Manille."""
__version__ = "0.1.0"

from .profiles import MALILLA, MANILLE, PROFILES, Profile, get_profile
from .position import IllegalPlay, Position, PositionError
from .solve import CardValue, SearchStopped, SearchTimeout, Solution, Solver

__all__ = ["__version__", "MALILLA", "MANILLE", "PROFILES", "Profile", "get_profile", "Position",
           "PositionError", "IllegalPlay", "Solver", "Solution", "CardValue", "SearchStopped", "SearchTimeout"]
