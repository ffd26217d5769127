// Planner benchmarks (issue 7 acceptance), run by hand after `pnpm --filter @af/planner build`:
//   node bench/planner/planner.bench.mjs [rounds=50]
// 1. deterministic planning (analysis, backward chaining, assembly, all validators)
//    against a synthetic registry of 200 capabilities and 100 facets — target < 50 ms;
// 2. validation (structural + facet + constraint validators) of an assembled 100-node plan — target < 5 ms.
import { mkdirSync, writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { cpus } from 'node:os';
import { FacetCatalog, FacetContractCompiler, parseTaskEnvelope } from '@af/plan';
import { planTask, validateAssembled } from '../../services/planner/dist/domain/planning/planning-loop.js';
import { DeterministicPlanner } from '../../services/planner/dist/domain/planning/planner.js';
import { analyzeEnvelope } from '../../services/planner/dist/domain/planning/envelope-analysis.js';
import { assemblePlan } from '../../services/planner/dist/domain/planning/plan-assembler.js';

const rounds = Number(process.argv[2] ?? 50);
const FACETS = 100;
const CAPS = 200;

const facet = (i) => ({
  name: `f${i}`,
  title: `Facet ${i}`,
  description: `Synthetic facet ${i}`,
  schema: { type: 'object', required: ['v'], properties: { v: { type: 'string' }, n: { type: 'number' } }, additionalProperties: false },
  metadata: { version: '1.0.0', direction: 'bidirectional' },
});
const catalog = FacetCatalog.fromDefinitions(Array.from({ length: FACETS }, (_, i) => facet(i)));
// Layered: capability c consumes two facets below its output, so chains go from f0..f4 up to f99.
const capabilities = Array.from({ length: CAPS }, (_, c) => {
  const out = 5 + (c % (FACETS - 5));
  const a = Math.max(0, out - 1 - (c % 7));
  const b = Math.max(0, out - 2 - (c % 11));
  return {
    capabilityId: `cap.c${c}`,
    agentType: c % 10 === 0 ? 'human' : 'ai',
    displayName: `Capability ${c}`,
    summary: 'synthetic',
    version: '1',
    inputFacets: [...new Set([`f${a}`, `f${b}`])],
    outputFacets: [`f${out}`],
    cost: { tier: 'standard', estimatedTokens: 1000 + c },
    preferredModels: [],
    scopes: [],
    status: 'active',
    metadata: {},
  };
});
const env = parseTaskEnvelope({
  objective: 'bench',
  inputs: Object.fromEntries(Array.from({ length: 5 }, (_, i) => [`f${i}`, { v: 'x' }])),
  outputContract: { schema: { type: 'object', required: ['f99'], properties: { f99: { type: 'object', required: ['v'], properties: { v: { type: 'string' } } } } } },
});
if (!env.ok) throw new Error(JSON.stringify(env.issues));
const ctx = { envelope: env.envelope, catalog, compiler: new FacetContractCompiler(catalog), capabilities };

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const p95 = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.95)];

// 1. planning
const planner = new DeterministicPlanner();
const first = await planTask(ctx, planner, { maxAttempts: 1 });
const planTimes = [];
for (let i = 0; i < rounds; i++) {
  const t = performance.now();
  await planTask(ctx, planner, { maxAttempts: 1 });
  planTimes.push(performance.now() - t);
}

// 2. validation of a 100-node plan: a chain of 100 capability nodes f0 → f1 → … → f99 plus f99's own producer.
const chainCaps = Array.from({ length: 100 }, (_, i) => ({ ...capabilities[0], capabilityId: `chain.c${i}`, inputFacets: i === 0 ? ['f0'] : [`f${i - 1}`], outputFacets: [`f${Math.min(i + 1, 99)}`] }));
const chainCtx = { ...ctx, capabilities: [...capabilities, ...chainCaps] };
const analysis = analyzeEnvelope(chainCtx);
const draft = { nodes: chainCaps.map((c, i) => ({ id: `n${i}`, stage: 'execution', capabilityId: c.capabilityId, inputFacets: c.inputFacets, outputFacets: c.outputFacets, dependsOn: i ? [`n${i - 1}`] : [], rationale: 'chain' })) };
const assembled = assemblePlan(chainCtx, analysis, draft, { plannerRuntime: 'bench', version: 1, attempt: 1 });
const validateTimes = [];
for (let i = 0; i < rounds; i++) {
  const t = performance.now();
  validateAssembled(chainCtx, analysis, assembled);
  validateTimes.push(performance.now() - t);
}

const result = {
  machine: { cpu: cpus()[0]?.model, cores: cpus().length, node: process.version },
  rounds,
  planning: { capabilities: CAPS, facets: FACETS, accepted: first.accepted, nodes: first.plan?.nodes.length, medianMs: +median(planTimes).toFixed(2), p95Ms: +p95(planTimes).toFixed(2), targetMs: 50 },
  validation: { nodes: assembled.plan?.nodes.length, medianMs: +median(validateTimes).toFixed(3), p95Ms: +p95(validateTimes).toFixed(3), targetMs: 5 },
};
result.machine.date = new Date().toISOString();
const out = new URL('../results/planner.json', import.meta.url);
mkdirSync(new URL('.', out), { recursive: true });
writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
console.log(JSON.stringify(result, null, 2));
