/**
 * `output.auto_enrich_graph` as part of the one Plan IR: after every
 * `call_connector` step an `enrich_knowledge` tool node that depends on it
 * alone. entity-resolution serves the action through ActionService: it reads
 * the step's records through the endpoint's `response_mapping.entity_extraction`
 * hints (copied here from the connector's contract when the connectors are
 * known at compile time; without them the service classifies fields by name)
 * and resolves what it finds into the run owner's graph, with the connector,
 * endpoint, run, connector node and record index on every fact.
 *
 * An agent profile's `output_config.auto_enrich_graph` asks the same of the
 * playbooks the agent runs (`CompilePlaybookOptions.autoEnrichGraph`, given
 * by the planner when it compiles a profile's chosen playbook); the nodes then
 * name that flag as their source.
 *
 * A node per connector step rather than one at the end: each enrichment starts
 * as soon as its records exist, is retried, replayed (`runId:nodeId:attempt`)
 * and reported on its own, and a failed enrichment never fails the run
 * (`onError: skip`), as the output block's other side effects do not either.
 */
import type { ConnectorContractLookup } from '../contracts/connector-contract.js';
import type { PlanNode } from '../ir.js';
import type { FlatStep } from './playbook-steps.js';
import type { Playbook } from './playbook.schema.js';
import { connectorTarget } from './step-output.js';

/** The action the enrichment nodes run. */
export const ENRICH_ACTION = 'enrich_knowledge';
const SUFFIX = '_enrich';

/** Where enrichment was asked for: the playbook's output block, or the agent profile running it. */
export const PLAYBOOK_ENRICH_FLAG = 'output.auto_enrich_graph';
export const PROFILE_ENRICH_FLAG = 'output_config.auto_enrich_graph';

/**
 * The enrichment nodes of a playbook whose output block sets
 * `auto_enrich_graph`, or run by a profile that does (`byProfile`); none
 * otherwise. `nodes` are the plan's nodes so far (ids taken); `steps` the
 * flattened steps they came from.
 */
export function enrichNodes(
  doc: Playbook,
  steps: readonly FlatStep[],
  nodes: readonly PlanNode[],
  connectors?: ConnectorContractLookup,
  byProfile = false,
): PlanNode[] {
  const flag = doc.output?.auto_enrich_graph === true ? PLAYBOOK_ENRICH_FLAG : byProfile ? PROFILE_ENRICH_FLAG : undefined;
  if (flag === undefined) return [];
  const taken = new Set(nodes.flatMap((n) => [n.id, n.outputKey ?? n.id]));
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const added: PlanNode[] = [];
  for (const flat of steps) {
    if (flat.isGroup || flat.stepType !== 'tool' || flat.step.action !== 'call_connector') continue;
    const source = byId.get(flat.name);
    if (!source) continue;
    const { connector, endpoint } = connectorTarget(flat);
    const hints = connector !== undefined && endpoint !== undefined ? connectors?.connector(connector)?.endpoints[endpoint]?.entityExtraction : undefined;
    let id = `${flat.name}${SUFFIX}`;
    for (let k = 2; taken.has(id); k++) id = `${flat.name}${SUFFIX}_${k}`;
    taken.add(id);
    const node: PlanNode = {
      id,
      kind: 'tool',
      action: ENRICH_ACTION,
      description: `feeds the knowledge graph from ${flat.name}'s records (${flag})`,
      inputs: { data: `{${source.outputKey ?? source.id}.results}` },
      params: {
        ...(connector !== undefined ? { connector } : {}),
        ...(endpoint !== undefined ? { endpoint } : {}),
        source_node: source.id,
        ...(hints ? { entity_extraction: hints } : {}),
      },
      dependsOn: [source.id],
      outputKey: id,
      errorPolicy: { onError: 'skip', fallback: [], rollbackOnError: false },
      source: flag,
    };
    if (source.condition !== undefined) node.condition = source.condition;
    if (source.conditionDialect !== undefined) node.conditionDialect = source.conditionDialect;
    added.push(node);
  }
  return added;
}
