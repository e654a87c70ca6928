#!/usr/bin/env node
// A client of malilla.dd.v1.DoubleDummy that is not ours: @grpc/grpc-js with the
// .proto loaded at run time by @grpc/proto-loader, and the rich error status
// (google.rpc.Status holding a google.rpc.BadRequest) decoded with protobufjs.
//
//   node client.js PORT PROTO_FILE < calls.json
//
// calls.json: [{"method": "Solve" | "LegalMoves" | "Perft" | "AnalyzePlay" | "Table" | "SolveStream",
// "request": {...} (for SolveStream: "requests": [...])}, ...]. Prints one JSON line per call:
// {"method", "ok": true, "response" | "responses"} or
// {"method", "ok": false, "code", "details", "status": {"code", "message", "violations"}}.
'use strict';

const fs = require('fs');
const path = require('path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');
const protobuf = require('protobufjs');

const [port, protoFile] = process.argv.slice(2);
if (!port || !protoFile) {
  console.error('usage: node client.js PORT PROTO_FILE < calls.json');
  process.exit(2);
}

// The proto's import paths are relative to the proto/ root (malilla/dd/v1/...).
const protoRoot = path.resolve(path.dirname(protoFile), '..', '..', '..');
const definition = protoLoader.loadSync(path.relative(protoRoot, path.resolve(protoFile)), {
  includeDirs: [protoRoot], keepCase: true, longs: String, enums: String, defaults: true, oneofs: true,
});
const v1 = grpc.loadPackageDefinition(definition).malilla.dd.v1;
const client = new v1.DoubleDummy(`127.0.0.1:${port}`, grpc.credentials.createInsecure());

// google.rpc.Status and google.rpc.BadRequest, just the fields read here.
const rpc = protobuf.Root.fromJSON({
  nested: {
    google: {
      nested: {
        protobuf: { nested: { Any: { fields: { type_url: { type: 'string', id: 1 }, value: { type: 'bytes', id: 2 } } } } },
        rpc: {
          nested: {
            Status: {
              fields: {
                code: { type: 'int32', id: 1 },
                message: { type: 'string', id: 2 },
                details: { rule: 'repeated', type: 'google.protobuf.Any', id: 3 },
              },
            },
            BadRequest: {
              fields: { field_violations: { rule: 'repeated', type: 'FieldViolation', id: 1 } },
              nested: {
                FieldViolation: { fields: { field: { type: 'string', id: 1 }, description: { type: 'string', id: 2 } } },
              },
            },
          },
        },
      },
    },
  },
});
const Status = rpc.lookupType('google.rpc.Status');
const BadRequest = rpc.lookupType('google.rpc.BadRequest');

function richStatus(error) {
  const raw = error.metadata ? error.metadata.get('grpc-status-details-bin') : [];
  if (!raw.length) return null;
  const status = Status.decode(raw[0]);
  const violations = [];
  for (const any of status.details) {
    if (any.type_url === 'type.googleapis.com/google.rpc.BadRequest') {
      for (const v of BadRequest.decode(any.value).field_violations) violations.push([v.field, v.description]);
    }
  }
  return { code: status.code, message: status.message, violations };
}

function failure(method, error) {
  return { method, ok: false, code: error.code, code_name: grpc.status[error.code], details: error.details,
           status: richStatus(error) };
}

function deadline() {
  return new Date(Date.now() + 30000);
}

function unary(method, request) {
  return new Promise((resolve) => {
    client[method](request, { deadline: deadline() }, (error, response) => {
      resolve(error ? failure(method, error) : { method, ok: true, response });
    });
  });
}

function stream(requests) {
  return new Promise((resolve) => {
    const responses = [];
    const call = client.SolveStream({ deadline: deadline() });
    call.on('data', (r) => responses.push(r));
    call.on('error', (e) => resolve(failure('SolveStream', e)));
    call.on('end', () => resolve({ method: 'SolveStream', ok: true, responses }));
    for (const r of requests) call.write(r);
    call.end();
  });
}

async function main() {
  const calls = JSON.parse(fs.readFileSync(0, 'utf8'));
  for (const c of calls) {
    const result = c.method === 'SolveStream' ? await stream(c.requests) : await unary(c.method, c.request);
    process.stdout.write(JSON.stringify(result) + '\n');
  }
  client.close();
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
