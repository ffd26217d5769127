// Overhead of the condition step budget (docs/security/limits.md) on normal conditions.
//
// Every condition is compiled twice from the same source: with the default
// budget (100,000 steps per evaluation, counted in the evaluator) and with
// `maxSteps: Infinity` (compiled without counting, no per-evaluation wrapper).
// Each (condition, variant) pair is measured in a fresh child process, so the
// JIT never sees the other variant (two variants in one process bias each
// other by ±15 % even when their code is identical); the processes of the two
// variants alternate, REPEATS times each. Time is the child's CPU time (user +
// system), not wall time, so other processes on shared cores do not count.
// A process's figure is its median round; the overhead of a condition is
// median(budgeted figures) / median(unbudgeted figures) − 1.
// Target: ≤ 5 % on the typical route / node / policy / goal conditions below
// (a nested-quantifier condition is measured too and reported beside them).
//
// Run after building:   pnpm --filter @af/expr build && node bench/security/condition-budget.bench.mjs [repeats=7] [rounds=15]
// EXPR_DIST=<dir>/index.js points at another build of @af/expr.
// Writes bench/results/security-condition.json.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const dist = process.env.EXPR_DIST ?? join(here, '../../packages/expr/dist/index.js');
const { compileCondition, conditionLimits } = await import(pathToFileURL(dist).href);

// Parent: [repeats] [rounds]. Child: --case <i> <budgeted|unbudgeted> <rounds>.
const worker = process.argv[2] === '--case' ? { index: Number(process.argv[3]), variant: process.argv[4] } : undefined;
const REPEATS = worker ? 1 : Number(process.argv[2] ?? 7);
const ROUNDS = Number((worker ? process.argv[5] : process.argv[3]) ?? 15);
for (const [name, n] of [['repeats', REPEATS], ['rounds', ROUNDS]]) {
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name}: ${n} is not a whole number of at least 1`);
}
const TARGET_PCT = 5;

const items = (n) => Array.from({ length: n }, (_, i) => ({ id: i, score: (i * 37) % 100 / 100, status: i % 3 ? 'ok' : 'late' }));

/** Typical conditions of routes, node conditions, runtime policies and goal conditions, with scopes that make them vary. */
const CASES = [
  {
    name: 'playbook step condition',
    source: '{pull.count} > 0 AND {entity_name} is defined',
    opts: {},
    scopes: [{ vars: { pull: { count: 3 }, entity_name: 'ACME' } }, { vars: { pull: { count: 0 }, entity_name: 'ACME' } }, { vars: { pull: { count: 7 } } }, { vars: { pull: { count: 1 }, entity_name: 'X' } }],
    evaluations: 200_000,
  },
  {
    name: 'route condition (membership)',
    source: "{review.status} in ['approved', 'auto'] || {review.score} >= 0.8",
    opts: {},
    scopes: [{ vars: { review: { status: 'approved', score: 0.1 } } }, { vars: { review: { status: 'rejected', score: 0.9 } } }, { vars: { review: { status: 'rejected', score: 0.2 } } }, { vars: {} }],
    evaluations: 200_000,
  },
  {
    name: 'workflow condition object',
    source: { and: [{ field: 'step1.data.score', operator: 'gte', value: 0.5 }, { field: '{{step1.status}}', operator: 'equals', value: 'ok' }] },
    opts: { dialect: 'object' },
    scopes: [{ vars: { step1: { status: 'ok', data: { score: 0.7 } } } }, { vars: { step1: { status: 'ok', data: { score: 0.2 } } } }, { vars: { step1: { status: 'err', data: { score: 0.9 } } } }, { vars: { step1: {} } }],
    evaluations: 200_000,
  },
  {
    name: 'runtime policy (DSL over facets)',
    source: 'facets.planKnobs.hookIntensity >= 0.6 && facets.planKnobs.hookIntensity < 0.9',
    opts: { dialect: 'dsl' },
    scopes: [0.5, 0.7, 0.95, 0.61].map((v) => ({ vars: { metadata: { runContextSnapshot: { facets: { planKnobs: { value: { hookIntensity: v } } } } } } })),
    evaluations: 200_000,
  },
  {
    name: 'policy JSON-Logic (onNodeComplete)',
    source: { and: [{ '==': [{ var: 'node.kind' }, 'tool'] }, { '<': [{ var: 'output.count' }, 2] }] },
    opts: { dialect: 'jsonlogic' },
    scopes: [{ vars: { node: { kind: 'tool' }, output: { count: 1 } } }, { vars: { node: { kind: 'tool' }, output: { count: 5 } } }, { vars: { node: { kind: 'map' }, output: { count: 0 } } }, { vars: { node: { kind: 'tool' } } }],
    evaluations: 200_000,
  },
  {
    name: 'goal condition with a quantifier (20 rows)',
    source: 'some(rows as r, r.score > 0.9 && r.status == "ok")',
    opts: {},
    scopes: [{ vars: { rows: items(20) } }, { vars: { rows: items(5) } }, { vars: { rows: items(20).map((r) => ({ ...r, score: 0 })) } }, { vars: { rows: [] } }],
    evaluations: 50_000,
  },
  {
    // Heavier than a typical route or policy condition: reported, but not part of the target.
    typical: false,
    name: 'nested quantifier (2 levels, 10 × 10 rows)',
    source: 'all(groups as g, some(g.rows as r, r.score >= 0))',
    opts: {},
    scopes: [{ vars: { groups: Array.from({ length: 10 }, () => ({ rows: items(10) })) } }, { vars: { groups: [{ rows: items(3) }] } }],
    evaluations: 20_000,
  },
];

/** CPU time of this process (user + system) in ms since `c0`. */
const cpuMs = (c0) => {
  const d = process.cpuUsage(c0);
  return (d.user + d.system) / 1000;
};

function timeRound(fn, scopes, n) {
  const mask = scopes.length;
  let hits = 0;
  const c0 = process.cpuUsage();
  for (let k = 0; k < n; k++) if (fn(scopes[k % mask])) hits++;
  return { ms: cpuMs(c0), hits };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** Child: ns per evaluation (median round) of one variant of one condition. */
function measure(c, variant) {
  const budgeted = compileCondition(c.source, c.opts);
  const unbudgeted = compileCondition(c.source, { ...c.opts, maxSteps: Infinity });
  // Same answers, or the comparison means nothing.
  for (const s of c.scopes) if (budgeted(s) !== unbudgeted(s)) throw new Error(`${c.name}: budgeted and unbudgeted disagree`);
  const fn = variant === 'budgeted' ? budgeted : unbudgeted;
  for (let w = 0; w < 5; w++) timeRound(fn, c.scopes, c.evaluations);
  const rounds = [];
  let hits = 0;
  for (let r = 0; r < ROUNDS; r++) {
    const t = timeRound(fn, c.scopes, c.evaluations);
    rounds.push(t.ms);
    hits = t.hits;
  }
  return { nsPerEvaluation: (median(rounds) * 1e6) / c.evaluations, hits };
}

if (worker) {
  process.stdout.write(JSON.stringify(measure(CASES[worker.index], worker.variant)));
  process.exit(0);
}

const child = (index, variant) =>
  JSON.parse(execFileSync(process.execPath, [fileURLToPath(import.meta.url), '--case', String(index), variant, String(ROUNDS)], { encoding: 'utf8', env: process.env }));

const loadAtStart = loadavg().map((x) => +x.toFixed(2));
const results = [];
for (let i = 0; i < CASES.length; i++) {
  const c = CASES[i];
  const figures = { budgeted: [], unbudgeted: [] };
  let hits;
  for (let r = 0; r < REPEATS; r++) {
    // Alternate which variant starts, so a slow spell of the machine is shared.
    for (const variant of r % 2 === 0 ? ['budgeted', 'unbudgeted'] : ['unbudgeted', 'budgeted']) {
      const m = child(i, variant);
      if (hits !== undefined && m.hits !== hits) throw new Error(`${c.name}: different results`);
      hits = m.hits;
      figures[variant].push(m.nsPerEvaluation);
    }
  }
  const withBudget = median(figures.budgeted);
  const without = median(figures.unbudgeted);
  const r = {
    name: c.name,
    source: typeof c.source === 'string' ? c.source : JSON.stringify(c.source),
    dialect: c.opts.dialect ?? 'playbook',
    countsSteps: countsSteps(c),
    typical: c.typical !== false,
    evaluationsPerRound: c.evaluations,
    processesPerVariant: REPEATS,
    roundsPerProcess: ROUNDS,
    nsPerEvaluationWithBudget: +withBudget.toFixed(1),
    nsPerEvaluationWithoutBudget: +without.toFixed(1),
    overheadPct: +((withBudget / without - 1) * 100).toFixed(2),
    processFiguresNs: { withBudget: figures.budgeted.map((x) => +x.toFixed(1)), withoutBudget: figures.unbudgeted.map((x) => +x.toFixed(1)) },
  };
  results.push(r);
  console.error(`${r.name}: ${r.overheadPct}% (${r.nsPerEvaluationWithBudget} vs ${r.nsPerEvaluationWithoutBudget} ns per evaluation)`);
}

/**
 * Whether `c` is compiled with step counting: a condition without quantifiers and with at most 16
 * array-scanning operators cannot multiply its cost and runs without the per-evaluation wrapper.
 * Probed with a budget of 1 step, which any counted condition over these scopes exceeds.
 */
function countsSteps(c) {
  const probe = compileCondition(c.source, { ...c.opts, maxSteps: 1 });
  try {
    for (const s of c.scopes) probe(s);
    return false;
  } catch (e) {
    return e?.code === 'condition_budget_exceeded';
  }
}

const worst = Math.max(...results.map((r) => r.overheadPct));
const worstTypical = Math.max(...results.filter((r) => r.typical).map((r) => r.overheadPct));
// Conditions compiled without counting run the same code in both variants: their spread is the measurement's noise.
const same = results.filter((r) => !r.countsSteps);
const noiseFloorPct = same.length ? Math.max(...same.map((r) => Math.abs(r.overheadPct))) : null;
const mean = +(results.reduce((n, r) => n + r.overheadPct, 0) / results.length).toFixed(2);
const out = {
  benchmark: 'security-condition-budget',
  date: new Date().toISOString(),
  node: process.version,
  cpu: cpus()[0]?.model ?? 'unknown',
  cores: cpus().length,
  loadAverageAtStart: loadAtStart,
  loadAverageAtEnd: loadavg().map((x) => +x.toFixed(2)),
  limits: conditionLimits(),
  method: 'same source compiled with the default budget and with maxSteps: Infinity; one fresh child process per (condition, variant), variants alternating, CPU time; a process figure is its median round; overhead = median(budgeted figures) / median(unbudgeted figures) - 1',
  conditions: results,
  meanOverheadPct: mean,
  noiseFloorPct,
  worstOverheadPct: worst,
  worstTypicalOverheadPct: worstTypical,
  targetPct: TARGET_PCT,
  // The target applies to the typical conditions (route, node, policy and goal conditions, one quantifier at most).
  meetsTarget: worstTypical <= TARGET_PCT,
};
const outDir = join(here, '../results');
mkdirSync(outDir, { recursive: true });
writeFileSync(join(outDir, 'security-condition.json'), `${JSON.stringify(out, null, 2)}\n`);
console.log(JSON.stringify(out, null, 2));
