#!/usr/bin/env node
// Another team's service calling Agent Factory's gRPC services directly.
//
//   1. Exchange an API key at the gateway for a short-lived principal token:
//        POST $AF_GATEWAY_URL/api/v1/auth/service-token   (Authorization: Bearer afk_…)
//   2. Send the token as `af-principal-token` metadata on every gRPC call; the
//      service acts as the key's user (the `principal` field of the message is
//      ignored). Renew the token before `expires_in` runs out.
//
// Usage (from the repository root):
//   AF_GATEWAY_URL=http://127.0.0.1:8080 AF_API_KEY=afk_… AF_ORCHESTRATOR_ADDR=127.0.0.1:50052 \
//     node examples/grpc-with-api-key.mjs
// Prints {"user_id": …, "expires_in": …, "runs": [{"id", "status"}, …]} (the key's user's runs, newest first).
// AF_PROTO_DIR points at the .proto files (default: this checkout's protos/).
//
// In your own project: `npm i @grpc/grpc-js @grpc/proto-loader`, import them
// directly, and copy protos/ (or fetch it from this repository).
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

// Inside this repository the two libraries are dependencies of packages/service-kit.
const require = createRequire(new URL('../packages/service-kit/package.json', import.meta.url));
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');

function need(name) {
  const value = process.env[name];
  if (!value) {
    process.stderr.write(`set ${name} (see the comment at the top of this file)\n`);
    process.exit(2);
  }
  return value;
}

const gatewayUrl = need('AF_GATEWAY_URL');
const apiKey = need('AF_API_KEY');
const orchestratorAddress = need('AF_ORCHESTRATOR_ADDR');
const protoDir = process.env.AF_PROTO_DIR ?? join(fileURLToPath(new URL('..', import.meta.url)), 'protos');

// 1. API key → principal token.
const exchange = await fetch(new URL('/api/v1/auth/service-token', gatewayUrl), {
  method: 'POST',
  headers: { authorization: `Bearer ${apiKey}` },
});
const answer = await exchange.json();
if (!exchange.ok) {
  process.stderr.write(`the gateway refused the key (${exchange.status}): ${answer.error?.message}\n`);
  process.exit(1);
}
const { token, expires_in: expiresIn, metadata_key: metadataKey, principal } = answer;

// 2. A plain grpc-js client of agentfactory.orchestrator.v1.OrchestratorService.
const definition = protoLoader.loadSync(join(protoDir, 'agentfactory/orchestrator/v1/orchestrator.proto'), {
  keepCase: false,
  longs: String,
  enums: String,
  defaults: true,
  oneofs: true,
  includeDirs: [protoDir],
});
const { agentfactory } = grpc.loadPackageDefinition(definition);
const client = new agentfactory.orchestrator.v1.OrchestratorService(orchestratorAddress, grpc.credentials.createInsecure());

const metadata = new grpc.Metadata();
metadata.set(metadataKey, token);
const deadline = Date.now() + 10_000;
const runs = await new Promise((resolve, reject) =>
  // No `principal` in the message: the token says who is asking.
  client.listRuns({ pageSize: 20 }, metadata, { deadline }, (err, res) => (err ? reject(err) : resolve(res.runs))),
).catch((err) => {
  process.stderr.write(`ListRuns failed: ${err.code} ${err.details}\n`);
  process.exit(1);
});
client.close();
process.stdout.write(`${JSON.stringify({ user_id: principal.user_id, expires_in: expiresIn, runs: runs.map((r) => ({ id: r.id, status: r.status })) })}\n`);
