// TEMPORARY A/B harness (removed before finishing): baseline tree vs this tree, interleaved.
const NODES = Number(process.argv[2] ?? 100);
const ROUNDS = Number(process.argv[3] ?? 20);
const envA = process.env.ENV_A ? JSON.parse(process.env.ENV_A) : {};
const envB = process.env.ENV_B ? JSON.parse(process.env.ENV_B) : {};
const A = await import(process.env.A_LIB ?? '/tmp/orch-base/bench/orchestrator/lib/ours.mjs');
const B = await import('/work/main/bench/orchestrator/lib/ours.mjs');
const sides = [];
for (const [name, lib, env] of [['base', A, envA], ['new', B, envB]]) {
  const stack = await lib.startOurStack({ orchestrator: env });
  const clients = await lib.grpcClients(stack);
  const principal = { userId: 'ab', teamIds: [] };
  const plan = await lib.compileOnce(clients, principal, lib.chainPlaybookYaml(NODES));
  sides.push({ name, lib, stack, clients, principal, plan, per: [], disp: [] });
}
try {
  for (const s of sides) for (let i = 0; i < 3; i++) await s.lib.waitFinished(s.stack, await s.lib.startRunGrpc(s.clients, s.principal, s.plan, { rows: s.lib.INPUT_ROWS }));
  for (let r = 0; r < ROUNDS; r++) {
    for (const s of r % 2 ? [...sides].reverse() : sides) {
      const id = await s.lib.startRunGrpc(s.clients, s.principal, s.plan, { rows: s.lib.INPUT_ROWS });
      await s.lib.waitFinished(s.stack, id, { pollMs: 2 });
      const t = await s.lib.engineTimings(s.stack, id);
      s.per.push(t.engineMs / NODES); s.disp.push(t.dispatchMs);
    }
  }
} finally {
  for (const s of sides) await s.stack.stop();
}
const med = (xs) => { const y = [...xs].sort((a, b) => a - b); return y[y.length >> 1]; };
for (const s of sides) console.log(s.name.padEnd(5), 'ms/node', med(s.per).toFixed(3), 'dispatch', med(s.disp).toFixed(2), 'min', Math.min(...s.per).toFixed(3));
process.exit(0);
