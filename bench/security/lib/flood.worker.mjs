// Worker thread of login-latency.bench.mjs: `attackers` loops of
// wrong-password logins against `gatewayUrl`, each sending the next as soon as
// the last answered, until the parent posts 'stop'; then posts the tally.
// A thread of its own so the attackers' client work does not delay the
// measured user's requests in the main thread.
import { randomUUID } from 'node:crypto';
import { parentPort, workerData } from 'node:worker_threads';

const { gatewayUrl, attackers } = workerData;
let running = true;
const statuses = {};
const latency = [];
const started = performance.now();

async function attempt(email) {
  const t = performance.now();
  const res = await fetch(`${gatewayUrl}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password: `wrong guess ${randomUUID()}` }),
  });
  await res.arrayBuffer();
  latency.push(performance.now() - t);
  statuses[res.status] = (statuses[res.status] ?? 0) + 1;
  if (res.status === 200) throw new Error('a wrong password logged in');
  return res.status;
}

const loops = Array.from({ length: attackers }, async (_, i) => {
  const email = `victim-${i}-${randomUUID()}@example.com`;
  while (running) {
    const status = await attempt(email);
    // An attacker ignores Retry-After; a short pause keeps the loop from spinning on instant 429s.
    if (status === 429 || status === 503) await new Promise((r) => setTimeout(r, 5));
  }
});

parentPort.on('message', async (msg) => {
  if (msg !== 'stop') return;
  running = false;
  await Promise.all(loops);
  parentPort.postMessage({ seconds: (performance.now() - started) / 1000, statuses, latency });
});
