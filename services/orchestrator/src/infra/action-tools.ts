/**
 * The built-in actions a `research_with_tools` node may call as tools: the
 * names in its `params.tools` that are actions of the Action I/O Registry
 * (not `<connector>__<endpoint>`; the planner chose them from the agent's
 * profile, app/agent-runs.ts there). Each runs where the action is served
 * (ActionService), as the run's owner with the run's teams; a team tool
 * acts only on the teams in the node's `params.team_ids` (one of them by
 * default). Every call is keyed by node attempt, tool and arguments, so a
 * replayed node does not repeat a call it already made.
 */
import { createHash } from 'node:crypto';
import type { LlmTool } from '@af/llm';
import { defaultActionRegistry, type ActionContract, type FieldSpec } from '@af/plan';
import { AppError, type ActionPort } from '@af/service-kit';
import type { NodeContext } from '../domain/node-executor.js';

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

function jsonType(f: FieldSpec): Record<string, unknown> {
  const t = f.type;
  const base = t.endsWith('[]') ? { type: 'array' } : t === 'integer' || t === 'number' || t === 'boolean' ? { type: t } : t === 'string' || t === 'date' ? { type: 'string' } : {};
  return { ...base, ...(f.description ? { description: f.description } : {}) };
}

/** The tool's argument schema: the action's inputs and params (team_id named with the teams it may take). */
export function actionToolSchema(contract: ActionContract, teamIds: readonly string[]): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  for (const [name, f] of [...Object.entries(contract.inputs), ...Object.entries(contract.params)]) {
    properties[name] = name === 'team_id' ? { type: 'string', enum: [...teamIds], description: f.description ?? 'Team' } : jsonType(f);
    if (f.required && !(name === 'team_id' && teamIds.length === 1)) required.push(name);
  }
  return { type: 'object', properties, required };
}

/** Splits the model's arguments into the action's inputs and params; a team tool's team must be one the node allows. */
export function actionToolCall(contract: ActionContract, args: Record<string, unknown>, teamIds: readonly string[]): { inputs: Record<string, unknown>; params: Record<string, unknown> } {
  const inputs: Record<string, unknown> = {};
  const params: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(args)) {
    if (k in contract.params && !(k in contract.inputs)) params[k] = v;
    else inputs[k] = v;
  }
  if ('team_id' in contract.inputs || 'team_id' in contract.params) {
    const team = typeof args.team_id === 'string' ? args.team_id : teamIds.length === 1 ? teamIds[0] : undefined;
    if (!team || !teamIds.includes(team)) {
      throw new AppError('INVALID_ARGUMENT', `${contract.name}: team_id must be one of ${teamIds.join(', ') || '(none: no team is granted to this run)'}`, {
        violations: [{ field: 'team_id', reason: `must be one of the teams granted to this run (${teamIds.join(', ') || 'none'})` }],
      });
    }
    ('team_id' in contract.inputs ? inputs : params).team_id = team;
  }
  return { inputs, params };
}

export function actionTools(actions: () => ActionPort | undefined) {
  const registry = defaultActionRegistry();
  return async (ctx: NodeContext): Promise<LlmTool[]> => {
    const port = actions();
    if (!port) return [];
    const teamIds = strings(ctx.params.team_ids).filter((t) => (ctx.teamIds ?? []).includes(t));
    const tools: LlmTool[] = [];
    for (const name of strings(ctx.params.tools)) {
      if (name.includes('__')) continue;
      const contract = registry.get(name);
      if (!contract || contract.stepType !== 'tool' || contract.dynamicInputs) continue;
      if (contract.requires?.startsWith('team_') && teamIds.length === 0) continue;
      tools.push({
        name,
        description: contract.description ?? name,
        schema: actionToolSchema(contract, teamIds),
        invoke: async (args) => {
          const { inputs, params } = actionToolCall(contract, args, teamIds);
          const served = await port.servedBy(name);
          if (!served) throw new AppError('FAILED_PRECONDITION', `action_unavailable: no service of this deployment serves action '${name}'`);
          const key = `${ctx.idempotencyKey}:${name}:${createHash('sha256').update(JSON.stringify(args)).digest('hex').slice(0, 16)}`;
          const { outputs } = await port.execute(
            served,
            { action: name, inputs, params, userId: ctx.userId, teamIds: [...(ctx.teamIds ?? [])], idempotencyKey: key, runId: ctx.runId, nodeId: ctx.instanceId, attempt: ctx.attempt, timeoutMs: ctx.timeoutMs },
            ctx.signal,
          );
          return outputs;
        },
      });
    }
    return tools;
  };
}
