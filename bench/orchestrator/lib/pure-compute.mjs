// The in-process work of one pure transform node, exactly as the orchestrator
// does it between its two commits (services/orchestrator/src/app/
// execute-run.use-case.ts runNode: buildScope → interpolate inputs and params
// → transformData), using the built orchestrator, @af/expr and @af/plan code,
// with no persistence. Not a path the product runs today: it shows what a
// pure node could cost if pure nodes between side effects were not each
// committed on their own.
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const load = (rel) => import(pathToFileURL(join(root, rel)).href);

const { buildScope } = await load('services/orchestrator/dist/domain/scope.js');
const { transformData } = await load('services/orchestrator/dist/domain/transform/transform-data.js');
const { interpolate } = await load('packages/expr/dist/index.js');
const { planFromWire, PlanGraphSchema } = await load('packages/plan/dist/index.js');

/** The IR plan the orchestrator executes, from the planner's wire plan. */
export function irPlan(wirePlan) {
  return PlanGraphSchema.parse(planFromWire(wirePlan));
}

/** Execute every node of a chain plan in order, in memory; returns ms per node for the whole chain. */
export function runChainInMemory(plan, inputs, runId = 'bench') {
  const outputs = new Map();
  const t0 = performance.now();
  for (const node of plan.nodes) {
    const scope = buildScope(plan, inputs, outputs, runId);
    const nodeInputs = interpolate(node.inputs, scope, { lenient: false });
    const params = interpolate(node.params, scope, { lenient: false });
    outputs.set(node.id, transformData(nodeInputs, params));
  }
  const ms = (performance.now() - t0) / plan.nodes.length;
  const last = outputs.get(plan.nodes.at(-1).id);
  if (!last || last.count !== inputs.rows.length) throw new Error(`unexpected chain output ${JSON.stringify(last)}`);
  return ms;
}
