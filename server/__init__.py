"""The gRPC service `malilla.dd.v1.DoubleDummy` (see proto/malilla/dd/v1/double_dummy.proto).

- `server.service`: the servicer: admits each call, translates proto <-> library, runs the library
  calls on its pool of workers and answers with their results or the status that stopped them.
- `server.tasks`: requests read and checked into tasks, each a library call for a worker to run.
- `server.jobs`: a task on its way through the pool, its searches bound by the call's deadline, its cancel.
- `server.limits`: the server's limits on calls: how many run at once, how long each may run.
- `server.main`: start-up, flags, health, reflection, TLS, token, signals (`malilla-dd serve`).
- `server.client`: a small client for Python callers.
- `server.convert`: the translations, shared by the servicer and the client.
- `server.errors`: a refused request's field violations, as a status or a stream item's error.
- `server.interceptors`: the access log, the token, the limit on long streams, undecodable bytes.
- `server.config`: the service's settings, from flags and the environment.

The generated code is the package `malilla.dd.v1`, built from proto/ by setup.py.
"""
