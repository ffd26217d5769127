// bench/output-router: what one delivery costs per destination type. Each
// call is a route_output Execute over gRPC to a real output-router process
// (fresh run id, so every call writes), one destination at a time; the floor
// is a read-only action (list_todos, nothing written, no idempotency record)
// over the same channel. Overhead = median(destination) − median(floor).
// The webhook goes to a local HTTP server answering 200 at once.
//
// Run by hand after building (`pnpm build`), with PostgreSQL on 127.0.0.1:5432
// and nats-server -js on 127.0.0.1:4222:
//   node bench/output-router/delivery-overhead.bench.mjs [calls=200]
// Writes bench/results/output-router-delivery.json.
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { mkdirSync, writeFileSync } from 'node:fs';
import { action } from '@af/contracts';
import { call, createGrpcClient, ServiceAuth } from '@af/service-kit';
import { startFixtureServer, startStack, TEST_DATABASE_URL } from '@af/testing';
import {
  fmt,
  machineFacts,
  median,
  percentile,
  printTable,
  progress,
  RESULTS_DIR,
} from '../orchestrator/lib/report.mjs';

const CALLS = Number(process.argv[2] ?? 200);
const machine = await machineFacts(TEST_DATABASE_URL);
const receiver = await startFixtureServer();
receiver.route('POST', '/hook', { json: { ok: true } });
const stack = await startStack({
  outputRouter: true,
  env: {
    'output-router': { LOG_LEVEL: 'info' },
    gateway: { LOG_LEVEL: 'info' },
    planner: { LOG_LEVEL: 'info' },
    orchestrator: { LOG_LEVEL: 'info' },
    approval: { LOG_LEVEL: 'info' },
    'connector-runtime': { LOG_LEVEL: 'info' },
  },
});
const client = createGrpcClient(
  'action',
  action.ACTION_SERVICE_NAME,
  `127.0.0.1:${stack.services['output-router'].env.GRPC_PORT}`,
  {
    auth: new ServiceAuth({ secret: stack.serviceAuthSecret, service: 'bench' }),
  },
);
const principal = { userId: 'bench-user', teamIds: [] };
const data = Array.from({ length: 10 }, (_, i) => ({ id: i, name: `row ${i}`, amount: i * 2.5 }));

const cases = {
  floor: () => ({ action: 'list_todos', inputs: { state: 'all' }, params: { limit: 1 } }),
  chat: () => ({ action: 'route_output', inputs: { data }, params: { destinations: [{ type: 'chat' }] } }),
  document: () => ({
    action: 'route_output',
    inputs: { data },
    params: { destinations: [{ type: 'document', config: { filename_template: 'bench_{run_id}' } }] },
  }),
  data_workspace_table: () => ({
    action: 'route_output',
    inputs: { data },
    params: {
      destinations: [
        {
          type: 'data_workspace_table',
          config: { table_name: 'bench', schema_mapping: { id: 'integer', name: 'text', amount: 'number' } },
        },
      ],
    },
  }),
  file_export: () => ({
    action: 'route_output',
    inputs: { data },
    params: { destinations: [{ type: 'file_export', config: { filename_template: 'bench_{run_id}' } }] },
  }),
  notification: () => ({
    action: 'route_output',
    inputs: { data: 'done' },
    params: { destinations: [{ type: 'notification' }] },
  }),
  webhook: () => ({
    action: 'route_output',
    inputs: { data },
    params: {
      destinations: [
        { type: 'webhook', config: { url: `${receiver.url}/hook`, secret: 'bench-secret-0123456789' } },
      ],
    },
  }),
};

async function once(make) {
  const runId = randomUUID();
  const req = {
    ...make(),
    idempotencyKey: `${runId}:n:1`,
    principal,
    timeoutMs: 30_000,
    runId,
    nodeId: 'n',
    attempt: 1,
  };
  const t0 = process.hrtime.bigint();
  const res = await call(client.execute(req));
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (req.action === 'route_output' && !res.outputs.success)
    throw new Error(`${JSON.stringify(res.outputs.routing_report)}`);
  return ms;
}

const times = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
for (const make of Object.values(cases)) for (let i = 0; i < 10; i++) await once(make); // warm-up
for (let i = 0; i < CALLS; i++) {
  if (i % 50 === 0) progress(`call ${i}/${CALLS}`);
  // Interleaved: every case once per round.
  for (const [name, make] of Object.entries(cases)) times[name].push(await once(make));
}
await stack.stop();
await receiver.close();

const floor = median(times.floor);
const results = Object.entries(times).map(([name, xs]) => ({
  case: name,
  medianMs: median(xs),
  p99Ms: percentile(xs, 99),
  overheadMs: name === 'floor' ? 0 : median(xs) - floor,
}));
printTable(
  ['case', 'median ms', 'p99 ms', 'over the floor ms'],
  results.map((r) => [r.case, fmt(r.medianMs, 2), fmt(r.p99Ms, 2), fmt(r.overheadMs, 2)]),
);
mkdirSync(RESULTS_DIR, { recursive: true });
writeFileSync(
  join(RESULTS_DIR, 'output-router-delivery.json'),
  JSON.stringify({ bench: 'output-router delivery overhead', calls: CALLS, machine, results }, null, 2) +
    '\n',
);
