// Benchmark of @af/plan (issue 3 acceptance): compile + validate a generated
// 1,000-step playbook, and evaluate a compiled condition 1,000,000 times.
// Targets: < 50 ms per playbook, > 5,000,000 condition evaluations per second.
//
// Run after building:   pnpm --filter @af/expr --filter @af/plan build && node bench/plan/plan.bench.mjs
// PLAN_DIST=<dir>/index.js points at another build of @af/plan.
// Writes bench/results/plan.json.
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';
import { parse, stringify } from 'yaml';

const here = dirname(fileURLToPath(import.meta.url));
const dist = process.env.PLAN_DIST ?? join(here, '../../packages/plan/dist/index.js');
const { compilePlaybook, compilePlaybookValue, compileNodeCondition, kahnLevels, validatePlan } = await import(pathToFileURL(dist).href);

/** A 1,000-step hybrid playbook: reads fanning out, crawls and extractions wired to earlier steps,
 *  transforms, llm tasks, parallel blocks, writes and approvals (barriers), conditions. */
function generatePlaybook(steps) {
  const out = [];
  const reads = []; // output keys with `.results` / `.count`
  for (let i = 0; out.length < steps; i++) {
    const name = `s${i}`;
    const prev = reads.length > 0 ? reads[(i * 7919) % reads.length] : undefined;
    const cond = prev && i % 5 === 0 ? { condition: `{${prev}.count} > 0 AND {topic} is defined` } : {};
    if (i % 200 === 199) {
      out.push({ name, step_type: 'approval', prompt: `Continue after ${i} steps for {topic}?`, ...(prev ? { preview_from: prev } : {}) });
    } else if (i % 100 === 50) {
      out.push({ name, step_type: 'tool', action: 'save_to_workspace', inputs: { data: `{${prev}.results}` }, params: { table_name: `t${i}` } });
    } else if (i % 50 === 25 && prev) {
      out.push({
        name,
        step_type: 'llm_task',
        action: 'llm_analyze',
        inputs: { rows: `{${prev}.results}`, titles: `{${prev}.results[*].title}` },
        output_schema: { type: 'record_set', fields: [{ name: 'title', type: 'string' }, { name: 'score', type: 'number' }] },
        ...cond,
      });
      reads.push(name);
    } else if (i % 40 === 10) {
      out.push({
        name,
        action: 'parallel',
        parallel_steps: [0, 1, 2].map((j) => ({ name: `${name}_${j}`, step_type: 'tool', action: 'search_web', inputs: { query: `{topic} ${j}` } })),
      });
      reads.push(`${name}_0`, `${name}_1`, `${name}_2`);
    } else if (i % 3 === 1 && prev) {
      out.push({
        name,
        step_type: 'tool',
        action: 'transform_data',
        inputs: { data: `{${prev}.results}` },
        operations: [
          { type: 'filter', field: 'score', operator: 'gt', value: 0.5 },
          { type: 'sort', field: 'score', direction: 'desc' },
          { type: 'limit', value: 20 },
        ],
        ...cond,
      });
    } else if (i % 3 === 2 && prev) {
      out.push({ name, step_type: 'tool', action: 'search_web', inputs: { query: `{topic} {${prev}.count}` }, params: { max_results: 10 }, ...cond });
      reads.push(name);
    } else {
      out.push({ name, step_type: 'tool', action: 'search_web', inputs: { query: '{topic}' } });
      reads.push(name);
    }
  }
  return { id: 'bench-playbook', name: 'Bench playbook', execution_mode: 'hybrid', inputs: [{ name: 'topic', type: 'string', required: true }], steps: out.slice(0, steps) };
}

function countSteps(doc) {
  return doc.steps.reduce((n, s) => n + (s.parallel_steps ? s.parallel_steps.length : 1), 0);
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

// The YAML has 1,000 top-level entries; parallel blocks add sub-steps, so trim to exactly 1,000 steps.
let doc = generatePlaybook(1000);
while (countSteps(doc) > 1000) doc = { ...doc, steps: doc.steps.slice(0, -1) };
const yamlText = stringify(doc);
// DUMP_YAML=<file> saves the generated playbook for profiling.
if (process.env.DUMP_YAML) (await import("node:fs")).writeFileSync(process.env.DUMP_YAML, yamlText);
const totalSteps = countSteps(doc);

// Warm-up, then timed runs. Two paths: from YAML text (save-time validation: YAML parse + compile +
// validate) and from the parsed document (run-time: playbooks are stored as JSONB, seed §2).
const documentValue = parse(yamlText);
let last;
for (let k = 0; k < 5; k++) last = compilePlaybook(yamlText);
if (!last.ok) {
  console.error(JSON.stringify(last.errors.slice(0, 5), null, 2));
  process.exit(1);
}
for (let k = 0; k < 10; k++) compilePlaybookValue(documentValue);
const fromText = [];
const fromDocument = [];
const yamlParse = [];
const validateTimes = [];
for (let k = 0; k < 30; k++) {
  let t = performance.now();
  const r = compilePlaybook(yamlText);
  fromText.push(performance.now() - t);
  t = performance.now();
  parse(yamlText);
  yamlParse.push(performance.now() - t);
  t = performance.now();
  const d = compilePlaybookValue(documentValue);
  fromDocument.push(performance.now() - t);
  t = performance.now();
  const issues = validatePlan(d.plan);
  validateTimes.push(performance.now() - t);
  if (!r.ok || !d.ok || issues.length > 0) throw new Error('bench playbook stopped compiling');
}
const stats = (xs) => ({ median: +median(xs).toFixed(2), min: +Math.min(...xs).toFixed(2), max: +Math.max(...xs).toFixed(2), runs: xs.length });
const levels = kahnLevels(last.plan);

// Condition evaluation: compile once, evaluate 1,000,000 times.
const condition = compileNodeCondition({ condition: '{pull.count} > 0 AND {entity_name} is defined' });
const scopes = [
  { vars: { pull: { count: 3 }, entity_name: 'ACME' } },
  { vars: { pull: { count: 0 }, entity_name: 'ACME' } },
  { vars: { pull: { count: 7 } } },
  { vars: { pull: { count: 1 }, entity_name: 'X' } },
];
const N = 1_000_000;
let hits = 0;
for (let k = 0; k < 200_000; k++) if (condition(scopes[k & 3])) hits++;
const evalRuns = [];
for (let run = 0; run < 5; run++) {
  hits = 0;
  const t = performance.now();
  for (let k = 0; k < N; k++) if (condition(scopes[k & 3])) hits++;
  evalRuns.push(performance.now() - t);
}
const evalMs = median(evalRuns);

const result = {
  benchmark: 'plan',
  date: new Date().toISOString(),
  node: process.version,
  cpu: cpus()[0]?.model ?? 'unknown',
  playbook: {
    steps: totalSteps,
    nodes: last.plan.nodes.length,
    levels: levels.length,
    yamlBytes: yamlText.length,
    compileAndValidateFromDocumentMs: stats(fromDocument),
    compileAndValidateFromYamlTextMs: stats(fromText),
    yamlParseOnlyMs: stats(yamlParse),
    validatePlanOnlyMs: stats(validateTimes),
    targetMs: 50,
    meetsTargetFromDocument: median(fromDocument) < 50,
    meetsTargetFromYamlText: median(fromText) < 50,
  },
  condition: {
    source: '{pull.count} > 0 AND {entity_name} is defined',
    evaluations: N,
    medianMs: +evalMs.toFixed(2),
    evalsPerSecond: Math.round(N / (evalMs / 1000)),
    trueResults: hits,
    target: 5_000_000,
    meetsTarget: N / (evalMs / 1000) > 5_000_000,
  },
};
const outDir = join(here, '../results');
mkdirSync(outDir, { recursive: true });
writeFileSync(join(outDir, 'plan.json'), `${JSON.stringify(result, null, 2)}\n`);
console.log(JSON.stringify(result, null, 2));
