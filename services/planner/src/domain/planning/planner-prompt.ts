/**
 * The LLM planner's prompt (flex spec §5.7 "Planner Prompt Blueprint (v2)"):
 * a system message in labelled sections — SYSTEM, SCHEMA DEFINITION,
 * CONTEXT, FACET CATALOG SUMMARY, CAPABILITY REGISTRY SUMMARY, PLANNER RULES,
 * INTERNAL CHECKLIST, EXAMPLE REASONING, OUTPUT INSTRUCTIONS — with facet and
 * capability tables trimmed to the rows relevant to the request (catalog
 * order kept), and a user message about this envelope: objective, inputs,
 * planner hints, policies, special instructions, output contract, graph
 * context and, after a rejection, the diagnostics to fix.
 */
import type { DiagnosticBundle, PlanDiagnostic } from '@af/plan';
import type { EnvelopeAnalysis } from './envelope-analysis.js';
import type { PlanDraft, PlanningContext } from './types.js';

/** JSON Schema of the draft the model must return. */
export const PLAN_DRAFT_SCHEMA = {
  type: 'object',
  required: ['nodes'],
  additionalProperties: false,
  properties: {
    rationale: { type: 'string', maxLength: 2000 },
    nodes: {
      type: 'array',
      minItems: 1,
      maxItems: 50,
      items: {
        type: 'object',
        required: ['id', 'stage', 'inputFacets', 'outputFacets', 'dependsOn', 'rationale'],
        additionalProperties: false,
        properties: {
          id: { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_]{0,99}$' },
          stage: { type: 'string', enum: ['structuring', 'execution', 'validation', 'routing'] },
          capabilityId: { type: 'string' },
          derivedFrom: { type: 'string' },
          inputFacets: { type: 'array', items: { type: 'string' } },
          outputFacets: { type: 'array', items: { type: 'string' } },
          dependsOn: { type: 'array', items: { type: 'string' } },
          instruction: { type: 'string', maxLength: 2000 },
          rationale: { type: 'string', maxLength: 2000 },
          routes: { type: 'array', items: { type: 'object', required: ['condition', 'to'], additionalProperties: false, properties: { condition: { type: 'string' }, to: { type: 'array', items: { type: 'string' } } } } },
          elseTo: { type: 'array', items: { type: 'string' } },
        },
      },
    },
  },
} as const;

export interface PlannerPrompt {
  system: string;
  user: string;
  metrics: { systemChars: number; userChars: number; facetRows: number; capabilityRows: number };
}

const MAX_ROWS = 60;
const cell = (s: string) => s.replace(/\s+/g, ' ').replace(/\|/g, '\\|').trim();
const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

/**
 * Capabilities and facets that can matter: producers of the goal facets, then
 * (recursively) producers of the required inputs of those; the facet table
 * holds every facet those capabilities touch. Everything when no goal matched.
 */
function relevant(ctx: PlanningContext, a: EnvelopeAnalysis): { facets: Set<string>; capabilities: Set<string> } {
  const active = ctx.capabilities.filter((c) => c.status === 'active');
  if (a.goalFacets.length === 0) return { facets: new Set(ctx.catalog.names()), capabilities: new Set(active.map((c) => c.capabilityId)) };
  const needed = new Set<string>(a.goalFacets);
  const caps = new Set<string>();
  const selection = ctx.envelope.policies.planner.selection;
  for (const id of [...selection.require, ...selection.prefer]) if (active.some((c) => c.capabilityId === id)) caps.add(id);
  const required = (f: string) => ctx.catalog.get(f)?.requiredByDefault !== false;
  for (let changed = true; changed; ) {
    changed = false;
    for (const c of active) {
      if (!caps.has(c.capabilityId) && c.outputFacets.some((f) => needed.has(f))) {
        caps.add(c.capabilityId);
        changed = true;
      }
      if (!caps.has(c.capabilityId)) continue;
      for (const f of c.inputFacets.filter(required)) {
        if (!needed.has(f) && !a.sources.has(f)) {
          needed.add(f);
          changed = true;
        }
      }
    }
  }
  const facets = new Set<string>([...needed, ...a.sources.keys()]);
  for (const c of active) if (caps.has(c.capabilityId)) for (const f of [...c.inputFacets, ...c.outputFacets]) facets.add(f);
  return { facets, capabilities: caps };
}

const SYSTEM = `You are the PlannerService of a flex agent orchestrator. You turn a TaskEnvelope into a draft plan graph whose nodes are registered capabilities (AI or human agents) connected by the facets they consume and produce. The orchestrator validates your draft deterministically, compiles the facet contracts, and executes only plans that pass.`;

const RULES = [
  'Use only capabilities listed in CAPABILITY REGISTRY SUMMARY, by their exact Capability ID. Never invent capabilities or facets.',
  'A node consumes a subset of its capability\'s Input Facets and produces a subset of its Output Facets.',
  'Every required input facet of a node must come from an upstream node (listed in dependsOn, directly or transitively) or from the envelope inputs.',
  'Produce the facets the output contract needs. Do not add nodes that contribute nothing to the contract, the goal conditions or a required capability.',
  'Draft only structuring, execution, validation or routing nodes. The orchestrator adds branch nodes for variantCount, transformation nodes for input structuring and output normalisation, and the final HITL fallback — do not draft them.',
  'A derived capability (derivedFrom) is allowed only when no declared capability fits; name the registered capability whose agent covers the facets.',
  'Honour policies.planner: never use a forbidden capability, include every required one, prefer the preferred ones.',
  'Node ids are identifiers (letters, digits, _), unique, and never structure_inputs, normalize_output, branch_variants or fallback_*.',
];

const CHECKLIST = [
  'Every contract facet has a producing node.',
  'Every required input facet has a source (upstream node or envelope).',
  'Every capabilityId is in the registry and active; facets match its contract and direction.',
  'dependsOn forms a DAG; every id it names exists.',
  'Each node carries a rationale that says why it is there.',
  'When diagnostics are given, fix each one; do not invent nodes to hide a diagnostic.',
];

const EXAMPLE = `Goal facet post_copy is produced by copywriter.SocialpostDrafting, which needs creative_brief. The envelope does not supply creative_brief, so strategist.SocialPosting (which produces it from post_context and company_information, both supplied) runs first; the copywriter depends on it.`;

function facetTable(ctx: PlanningContext, keep: Set<string>): { text: string; rows: number } {
  const rows = ctx.catalog
    .list()
    .filter((f) => keep.has(f.name))
    .slice(0, MAX_ROWS)
    .map((f) => `| ${f.name} | ${f.direction} | ${cell(clip(f.description, 160))} |`);
  return { text: ['| Facet | Direction | Description |', '| --- | --- | --- |', ...rows].join('\n'), rows: rows.length };
}

function capabilityTable(ctx: PlanningContext, keep: Set<string>): { text: string; rows: number } {
  const rows = ctx.capabilities
    .filter((c) => c.status === 'active' && keep.has(c.capabilityId))
    .slice(0, MAX_ROWS)
    .map((c) => `| ${c.capabilityId} | ${cell(c.displayName)} | ${c.agentType} | ${c.inputFacets.join(', ')} | ${c.outputFacets.join(', ')} | ${cell(clip(c.summary, 160))} |`);
  return { text: ['| Capability ID | Display Name | Kind | Input Facets | Output Facets | Summary |', '| --- | --- | --- | --- | --- | --- |', ...rows].join('\n'), rows: rows.length };
}

const json = (v: unknown) => JSON.stringify(v);

function diagnosticLine(d: PlanDiagnostic): string {
  return `- [${d.severity}/${d.cause}] ${d.constraintId ?? d.constraint ?? ''}${d.nodeId ? ` @${d.nodeId}` : ''}${d.capabilityId ? ` (${d.capabilityId})` : ''}: ${d.suggestion ?? d.constraint ?? ''}`;
}

export function buildPlannerPrompt(ctx: PlanningContext, a: EnvelopeAnalysis, feedback?: { draft: PlanDraft; bundle: DiagnosticBundle }): PlannerPrompt {
  const keep = relevant(ctx, a);
  const facets = facetTable(ctx, keep.facets);
  const caps = capabilityTable(ctx, keep.capabilities);
  const system = [
    `SYSTEM\n${SYSTEM}`,
    `SCHEMA DEFINITION\nAnswer with a PlanDraft: ${JSON.stringify(PLAN_DRAFT_SCHEMA)}`,
    'CONTEXT\nThe user message holds the task envelope, planner hints, policies, special instructions, the output contract and any existing graph. Facet and capability tables below are the live catalog and registry.',
    `FACET CATALOG SUMMARY\n${facets.text}`,
    `CAPABILITY REGISTRY SUMMARY\n${caps.text}`,
    `PLANNER RULES\n${RULES.map((r, i) => `${i + 1}. ${r}`).join('\n')}`,
    `INTERNAL CHECKLIST\n${CHECKLIST.map((c) => `- ${c}`).join('\n')}`,
    `EXAMPLE REASONING\n${EXAMPLE}`,
    'OUTPUT INSTRUCTIONS\nReturn only the PlanDraft JSON object: nodes (id, stage, capabilityId, inputFacets, outputFacets, dependsOn, instruction, rationale) and an overall rationale.',
  ].join('\n\n');

  const e = ctx.envelope;
  const policy = e.policies.planner;
  const inputs = a.inputBindings.map((b) => `- ${b.key}: ${b.mode === 'context' ? 'no matching facet' : `${b.mode} → facet ${b.facet}`} = ${clip(json(e.inputs[b.key]), 300)}`);
  const user = [
    `OBJECTIVE\n${e.objective}`,
    `INPUTS\n${inputs.join('\n') || '(none)'}`,
    `GOAL FACETS\n${a.goalFacets.join(', ') || '(none matched)'}${a.unboundProperties.length ? `\nUnmatched contract properties: ${a.unboundProperties.map((p) => p.property).join(', ')}` : ''}`,
    `PLANNER HINTS\n${json({ topology: policy.topology, selection: policy.selection, optimisation: policy.optimisation })}${Object.keys(policy.directives).length ? `\nDirectives (legacy policy markers included): ${json(policy.directives)}` : ''}`,
    `RUNTIME POLICIES\n${e.policies.runtime.map((r) => `- ${r.id}: ${r.trigger.kind} → ${r.action.type}`).join('\n') || '(none)'}`,
    `SPECIAL INSTRUCTIONS\n${e.specialInstructions.map((s) => `- ${s}`).join('\n') || '(none)'}`,
    `OUTPUT CONTRACT\n${json(e.outputContract.schema)}${e.outputContract.constraints.length ? `\nConstraints:\n${e.outputContract.constraints.map((c) => `- ${c.constraintId} (${c.level}): ${c.constraint}${c.enforcer ? ` enforced by ${c.enforcer}` : ''}`).join('\n')}` : ''}`,
    `GOAL CONDITIONS\n${e.goalConditions.map((g) => `- ${g.facet}${g.path}: ${g.condition.canonicalDsl ?? json(g.condition.jsonLogic)}`).join('\n') || '(none)'}`,
    `GRAPH CONTEXT\n${ctx.replan ? `Replanning version ${ctx.replan.previous.version}; completed (locked) nodes: ${a.lockedNodes.map((n) => `${n.id} (${n.capabilityId ?? n.kind})`).join(', ') || 'none'} — their outputs are available; do not draft them again.` : 'New plan.'}`,
    ...(feedback
      ? [`DIAGNOSTICS OF YOUR PREVIOUS DRAFT (rejected)\n${[...feedback.bundle.failures, ...feedback.bundle.warnings].map(diagnosticLine).join('\n')}\nPrevious draft: ${clip(json(feedback.draft), 4000)}`]
      : []),
    `CHECKLIST REMINDER\n${CHECKLIST.map((c) => `- ${c}`).join('\n')}`,
  ].join('\n\n');
  return { system, user, metrics: { systemChars: system.length, userChars: user.length, facetRows: facets.rows, capabilityRows: caps.rows } };
}
