"""The generated gRPC modules, with a clear message when they have not been built."""
from __future__ import annotations

try:
    from malilla.dd.v1 import double_dummy_pb2 as pb
    from malilla.dd.v1 import double_dummy_pb2_grpc as pb_grpc
except ImportError as e:  # pragma: no cover - depends on how the package was built
    raise ImportError(
        "the generated gRPC code (package malilla.dd.v1) is missing: it is built from proto/ by "
        "`python -m pip install -e .` or `python setup.py build_proto`") from e

SERVICE_NAME = pb.DESCRIPTOR.services_by_name["DoubleDummy"].full_name

__all__ = ["pb", "pb_grpc", "SERVICE_NAME"]
