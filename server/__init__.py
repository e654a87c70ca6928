"""The gRPC service `malilla.dd.v1.DoubleDummy` (see proto/malilla/dd/v1/double_dummy.proto).

- `server.service`: the servicer, which only translates proto <-> library and calls it.
- `server.main`: start-up, flags, health, reflection, TLS, token, signals (`malilla-dd serve`).
- `server.client`: a small client for Python callers.
- `server.convert`: the translations, shared by the servicer and the client.
- `server.errors`: a refused request's field violations, as a status or a stream item's error.
- `server.interceptors`: the access log, the token, the limit on long streams, undecodable bytes.
- `server.config`: the service's settings, from flags and the environment.

The generated code is the package `malilla.dd.v1`, built from proto/ by setup.py.
"""
