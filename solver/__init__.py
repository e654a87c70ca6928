"""Double-dummy solver for Malilla and Manille."""
from .profiles import MALILLA, MANILLE, PROFILES, Profile, get_profile
from .position import IllegalPlay, Position, PositionError

__all__ = ["MALILLA", "MANILLE", "PROFILES", "Profile", "get_profile", "Position", "PositionError",
           "IllegalPlay"]
