/**
 * select_strategy: how a profile answers one message.
 *
 * 1. A playbook whose triggers match the message: `pipeline` when it is
 *    `deterministic` (no model involved), else `playbook`.
 * 2. No trigger matched, but the profile runs exactly one playbook and it is
 *    deterministic with no triggers: `pipeline` (the profile is that pipeline).
 * 3. The message asks for multi-round work (investigate, research, compare,
 *    connections, …) and the profile has the built-in `research` skill: `research`.
 * 4. Otherwise `direct`.
 *
 * A profile whose `strategy` is not `auto` forces it: `playbook` / `pipeline`
 * then take the best-matching playbook or, when none matched, the first
 * attached one. `research` and `direct` need a chat model; without one the
 * selection says so (`needsModel`) and the runner answers with that error
 * instead of inventing an answer.
 */
import type { ProfileStrategy, Strategy } from './profile.schema.js';
import { matchTriggers, type SemanticOption, type TriggeredPlaybook, type TriggerMatch } from './triggers.js';

export interface StrategyPlaybook extends TriggeredPlaybook {
  executionMode: 'deterministic' | 'llm_augmented' | 'hybrid';
}

export interface StrategyInput {
  query: string;
  strategy: ProfileStrategy;
  /** Attached, enabled playbooks, in attachment order (priority, then attach time). */
  playbooks: readonly StrategyPlaybook[];
  /** Enabled built-in skills (`research`, …). */
  builtInSkills: readonly string[];
  hasModel: boolean;
  /** Semantic trigger decisions (`prepareSemantic`); absent: no embedding model. */
  semantic?: SemanticOption;
}

export type StrategySelection =
  | { ok: true; strategy: Strategy; playbookId?: string; match?: TriggerMatch; reason: string; needsModel: boolean; notes: string[] }
  | { ok: false; reason: string; notes: string[] };

/** Words that ask for more than one look-up; matched as whole words, case-insensitive. */
export const RESEARCH_CUES = ['investigate', 'research', 'analyze', 'analyse', 'compare', 'connections', 'connected', 'relationship', 'relationships', 'network', 'trace', 'track', 'map', 'dig', 'who funds', 'follow the money'] as const;

const CUE = new RegExp(`\\b(${RESEARCH_CUES.map((c) => c.replace(/ /g, '\\s+')).join('|')})\\b`, 'i');

export function needsResearch(query: string): boolean {
  return CUE.test(query);
}

export function selectStrategy(input: StrategyInput): StrategySelection {
  const { matches, notes } = matchTriggers(input.query, input.playbooks, input.semantic);
  const byId = new Map(input.playbooks.map((p) => [p.playbookId, p]));
  const best = matches[0];
  const chosen = (strategy: Strategy, reason: string, extra: { playbookId?: string; match?: TriggerMatch } = {}): StrategySelection => ({
    ok: true,
    strategy,
    ...extra,
    reason,
    needsModel: modelNeeded(strategy, extra.playbookId ? byId.get(extra.playbookId) : undefined) && !input.hasModel,
    notes,
  });

  if (input.strategy === 'playbook' || input.strategy === 'pipeline') {
    const pb = best ? byId.get(best.playbookId)! : input.playbooks[0];
    if (!pb) return { ok: false, reason: `the profile's strategy is '${input.strategy}' but no playbook is attached to it`, notes };
    if (input.strategy === 'pipeline' && pb.executionMode !== 'deterministic') {
      return { ok: false, reason: `the profile's strategy is 'pipeline' but playbook '${pb.playbookId}' is ${pb.executionMode}, not deterministic`, notes };
    }
    const why = best ? `trigger '${best.trigger.pattern}' (${best.matchedAs}) matched` : 'no trigger matched; the first attached playbook runs';
    return chosen(input.strategy, `strategy forced to ${input.strategy} by the profile; ${why}`, { playbookId: pb.playbookId, ...(best ? { match: best } : {}) });
  }
  if (input.strategy === 'research' || input.strategy === 'direct') return chosen(input.strategy, `strategy forced to ${input.strategy} by the profile`);

  if (best) {
    const pb = byId.get(best.playbookId)!;
    const strategy = pb.executionMode === 'deterministic' ? 'pipeline' : 'playbook';
    return chosen(strategy, `trigger '${best.trigger.pattern}' (${best.matchedAs}) of playbook '${pb.playbookId}' matched${strategy === 'pipeline' ? '; it is deterministic' : ''}`, { playbookId: pb.playbookId, match: best });
  }
  const only = input.playbooks.length === 1 ? input.playbooks[0]! : undefined;
  if (only && only.executionMode === 'deterministic' && only.triggers.length === 0) {
    return chosen('pipeline', `the profile's only playbook '${only.playbookId}' is deterministic and has no triggers`, { playbookId: only.playbookId });
  }
  if (input.builtInSkills.includes('research') && needsResearch(input.query)) return chosen('research', 'the message asks for multi-round research');
  return chosen('direct', 'no trigger matched and the message asks for a single answer');
}

function modelNeeded(strategy: Strategy, pb: StrategyPlaybook | undefined): boolean {
  if (strategy === 'research' || strategy === 'direct') return true;
  return pb?.executionMode === 'llm_augmented';
}
