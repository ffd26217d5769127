/**
 * What a chat message to an agent would do, decided without running it:
 * the agent it addresses, select_strategy over the attached playbooks, the
 * chosen playbook's inputs from the message and a clarify request when a
 * required one is missing. The chat runner calls this before starting a run.
 */
import { ENRICH_ACTION, type PlanGraph } from '@af/plan';
import { AppError } from '@af/service-kit';
import { extractInputs, type ClarifyRequest, type ExtractedValue, type Extraction, type InputType, type PlaybookInput } from '../domain/profiles/input-extraction.js';
import type { InputReader } from '../infra/llm-input-reader.js';
import { parseMention } from '../domain/profiles/mention.js';
import type { Strategy } from '../domain/profiles/profile.schema.js';
import type { Caller } from '../domain/profiles/sharing.js';
import { selectStrategy, type StrategyPlaybook } from '../domain/profiles/strategy.js';
import { prepareSemantic, type SemanticModel, type Trigger } from '../domain/profiles/triggers.js';
import type { Playbooks } from './playbooks.js';
import type { ProfilesService, ProfileView } from './profiles.service.js';

export interface PreparedMessage {
  profile: ProfileView['profile'];
  query: string;
  strategy: Strategy;
  playbookId?: string;
  reason: string;
  needsModel: boolean;
  notes: string[];
  inputs: Record<string, unknown>;
  extracted: ExtractedValue[];
  clarify?: ClarifyRequest;
  /** The chosen playbook compiled (playbook / pipeline). */
  plan?: PlanGraph;
  /** The team the caller reaches the agent through (absent for the owner). */
  teamId?: string;
}

const INPUT_TYPES: readonly InputType[] = ['string', 'number', 'date', 'entity_name', 'list'];
const TRIGGER_TYPES = ['keyword', 'regex', 'semantic'] as const;

export class ProfileMessages {
  constructor(
    private readonly profiles: Pick<ProfilesService, 'authorize' | 'resolve'>,
    private readonly playbooks: Pick<Playbooks, 'compileStored'>,
    private readonly hasModel: boolean,
    /** With a chat model: reads `extract_from: query` inputs from the message (infra/llm-input-reader.ts); without, the fixed patterns. */
    private readonly readInputs?: InputReader,
    private readonly log?: { warn(obj: unknown, msg?: string): void },
    /** With TRIGGER_EMBEDDER: decides `semantic` triggers (infra/semantic-triggers.ts); without, they match as keywords. */
    private readonly semanticModel?: SemanticModel,
    /** Whether this deployment serves an action (`enrich_knowledge` for `output_config.auto_enrich_graph`); unknown: assumed served. */
    private readonly served?: (action: string) => boolean,
  ) {}

  async prepare(caller: Caller, message: string, agentProfileId: string, provided: Record<string, unknown>): Promise<PreparedMessage> {
    const { profile, query, teamId } = await this.agent(caller, message, agentProfileId);
    const notes: string[] = [];
    const plans = new Map<string, PlanGraph>();
    const playbooks: StrategyPlaybook[] = [];
    // The profile's output_config.auto_enrich_graph enriches the graph from the connector steps of the playbooks it runs,
    // where the deployment serves enrich_knowledge; elsewhere the run goes without it, said in a note.
    const wantsEnrich = profile.output_config?.auto_enrich_graph === true;
    const canEnrich = wantsEnrich && (this.served?.(ENRICH_ACTION) ?? true);
    const enrich = canEnrich ? { autoEnrichGraph: true } : {};
    for (const skill of profile.skills.filter((s) => s.skill_type === 'playbook' && s.is_enabled)) {
      try {
        // Attached playbooks are the owner's, whoever runs the agent.
        const { plan } = await this.playbooks.compileStored(profile.user_id, skill.skill_reference, enrich);
        plans.set(skill.skill_reference, plan);
        playbooks.push({ playbookId: skill.skill_reference, executionMode: plan.executionMode, triggers: triggersOf(plan), priority: skill.priority });
      } catch (err) {
        notes.push(`playbook '${skill.skill_reference}' was left out: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    const builtIns = profile.skills.filter((s) => s.skill_type === 'built_in' && s.is_enabled).map((s) => s.skill_reference);
    const semantic = await prepareSemantic(query, playbooks, this.semanticModel);
    if (semantic.semantic && typeof semantic.semantic !== 'function') this.log?.warn({ model: this.semanticModel?.name }, semantic.semantic.unavailable);
    notes.push(...semantic.notes);
    const selection = selectStrategy({ query, strategy: profile.strategy, playbooks, builtInSkills: builtIns, hasModel: this.hasModel, ...(semantic.semantic ? { semantic: semantic.semantic } : {}) });
    if (!selection.ok) throw new AppError('FAILED_PRECONDITION', `agent '@${profile.handle}' cannot answer: ${selection.reason}`);
    const plan = selection.playbookId ? plans.get(selection.playbookId) : undefined;
    if (wantsEnrich && !canEnrich && plan?.nodes.some((n) => n.action === 'call_connector'))
      notes.push(`output_config.auto_enrich_graph: no service of this deployment serves ${ENRICH_ACTION}, so this run does not feed the knowledge graph`);
    const extraction = plan ? await this.extract(query, inputsOf(plan), provided, notes) : { values: provided, extracted: [] as ExtractedValue[] };
    return {
      profile,
      query,
      strategy: selection.strategy,
      ...(selection.playbookId ? { playbookId: selection.playbookId } : {}),
      reason: selection.reason,
      needsModel: selection.needsModel,
      notes: [...notes, ...selection.notes],
      inputs: extraction.values,
      extracted: extraction.extracted,
      ...('clarify' in extraction && extraction.clarify ? { clarify: extraction.clarify } : {}),
      ...(plan ? { plan } : {}),
      ...(teamId ? { teamId } : {}),
    };
  }

  /** The model reads the inputs the message should give when one is configured; its failure falls back to the patterns, said in a note. */
  private async extract(query: string, inputs: PlaybookInput[], provided: Record<string, unknown>, notes: string[]): Promise<Extraction> {
    const fromQuery = inputs.filter((i) => i.extractFrom === 'query' && (provided[i.name] === undefined || provided[i.name] === null || provided[i.name] === ''));
    if (!this.readInputs || fromQuery.length === 0) return extractInputs(query, inputs, provided);
    try {
      return extractInputs(query, inputs, provided, await this.readInputs(query, fromQuery));
    } catch (err) {
      this.log?.warn({ err }, 'the model could not read the inputs; the fixed patterns are used');
      notes.push(`the model could not read the inputs (${err instanceof Error ? err.message.slice(0, 200) : String(err)}); they were found by the fixed patterns`);
      return extractInputs(query, inputs, provided);
    }
  }

  private async agent(caller: Caller, message: string, agentProfileId: string): Promise<{ profile: ProfileView['profile']; query: string; teamId?: string }> {
    if (agentProfileId) {
      const { view } = await this.profiles.authorize(caller, agentProfileId, 'run');
      return { profile: view.profile, query: message.trim(), ...(view.teamId ? { teamId: view.teamId } : {}) };
    }
    const mention = parseMention(message);
    if (!mention.mentioned) throw AppError.invalid('message', 'must start with @handle (or give agent_profile_id)', 'no_mention');
    const { agent } = await this.profiles.resolve(caller, mention.handle);
    // Resolution shows the agent to the caller; running it is checked like any other action.
    const { view } = await this.profiles.authorize(caller, agent.profile.id, 'run');
    return { profile: view.profile, query: mention.query, ...(view.teamId ? { teamId: view.teamId } : {}) };
  }
}

function triggersOf(plan: PlanGraph): Trigger[] {
  const raw = Array.isArray(plan.metadata?.triggers) ? (plan.metadata.triggers as Array<Record<string, unknown>>) : [];
  return raw.flatMap((t) =>
    typeof t.pattern === 'string'
      ? [{ pattern: t.pattern, type: (TRIGGER_TYPES as readonly string[]).includes(String(t.type)) ? (t.type as Trigger['type']) : 'keyword', priority: typeof t.priority === 'number' ? t.priority : 0 }]
      : [],
  );
}

function inputsOf(plan: PlanGraph): PlaybookInput[] {
  return plan.inputs.map((i) => ({
    name: i.name,
    type: (INPUT_TYPES as readonly string[]).includes(i.type) ? (i.type as InputType) : 'string',
    required: i.required,
    ...(i.description !== undefined ? { description: i.description } : {}),
    ...(i.default !== undefined ? { default: i.default } : {}),
    ...(i.extractFrom === 'query' ? { extractFrom: 'query' as const } : {}),
    ...(i.enum ? { enum: i.enum } : {}),
  }));
}
