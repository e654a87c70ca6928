"""A request the service refuses: its field violations, as a call's rich status or as a
stream item's error."""
from __future__ import annotations

import grpc
from google.protobuf import any_pb2
from google.rpc import code_pb2, error_details_pb2, status_pb2
from grpc_status import rpc_status

from ._proto import pb

__all__ = ["BadRequest"]


class BadRequest(Exception):
    """A refused request: its field violations as (field path, problem); an empty path is the
    request as a whole."""

    def __init__(self, violations: list[tuple[str, str]]) -> None:
        super().__init__("; ".join(f"{f}: {p}" if f else p for f, p in violations))
        self.violations = violations

    def status(self) -> grpc.Status:
        """INVALID_ARGUMENT with a google.rpc.BadRequest in the details."""
        detail = error_details_pb2.BadRequest(field_violations=[
            error_details_pb2.BadRequest.FieldViolation(field=f, description=p) for f, p in self.violations])
        packed = any_pb2.Any()
        packed.Pack(detail)
        return rpc_status.to_status(status_pb2.Status(code=code_pb2.INVALID_ARGUMENT, message=str(self),
                                                      details=[packed]))

    def message(self) -> pb.Error:
        """The same, as a stream item's `Error`."""
        return pb.Error(code=code_pb2.INVALID_ARGUMENT, message=str(self), field_violations=[
            pb.FieldViolation(field=f, description=p) for f, p in self.violations])
