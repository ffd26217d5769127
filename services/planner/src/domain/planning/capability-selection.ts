/**
 * Capability scoring (flex spec §5.7 "Story 8.8 — Capability scoring"):
 * candidates for a facet are ranked by planner policy (require / prefer /
 * avoid, forbidden ones never chosen), facet feasibility, envelope scope,
 * and the optimisation objective (speed and token_efficiency favour fewer
 * estimated tokens, quality the higher cost tier). Ties break by id, so the
 * same request always yields the same plan.
 */
import type { NormalizedPlannerPolicy } from '@af/plan';
import type { CapabilityView } from './types.js';

const TIER: Record<string, number> = { economy: 0, standard: 1, premium: 2 };

export interface SelectionInput {
  policy: NormalizedPlannerPolicy;
  /** Envelope `constraints.scope`, matched against instance scopes. */
  scope?: string;
}

/** May the planner use this capability at all? (active, not forbidden, kind allowed) */
export function isSelectable(c: CapabilityView, policy: NormalizedPlannerPolicy): boolean {
  if (c.status !== 'active') return false;
  if (policy.selection.forbid.includes(c.capabilityId)) return false;
  const forbidden = policy.topology.forbiddenKinds;
  if (forbidden.includes(c.agentType) || (c.agentType === 'human' && forbidden.includes('human')) || (c.agentType === 'ai' && forbidden.includes('capability'))) return false;
  return true;
}

/** Higher is better; `feasibility` is the share (0..1) of the candidate's required inputs that can be sourced. */
export function scoreCapability(c: CapabilityView, feasibility: number, input: SelectionInput): number {
  const { selection, optimisation } = input.policy;
  let score = 0;
  if (selection.require.includes(c.capabilityId)) score += 1000;
  if (selection.prefer.includes(c.capabilityId)) score += 50;
  if (selection.avoid.includes(c.capabilityId)) score -= 50;
  score += 100 * feasibility;
  if (input.scope && c.scopes.includes(input.scope)) score += 15;
  const tokens = c.cost?.estimatedTokens ?? 0;
  switch (optimisation.objective) {
    case 'speed':
      score -= tokens / 1000 + (c.agentType === 'human' ? 10 : 0);
      break;
    case 'token_efficiency':
      score -= tokens / 500;
      break;
    case 'quality':
      score += 5 * (TIER[c.cost?.tier ?? 'standard'] ?? 1);
      break;
    default:
      break;
  }
  return score;
}

/** Candidates ordered best first (deterministic). */
export function rankCandidates(candidates: readonly CapabilityView[], feasibilityOf: (c: CapabilityView) => number, input: SelectionInput): CapabilityView[] {
  return candidates
    .map((c) => ({ c, s: scoreCapability(c, feasibilityOf(c), input) }))
    .sort((a, b) => b.s - a.s || (a.c.capabilityId < b.c.capabilityId ? -1 : a.c.capabilityId > b.c.capabilityId ? 1 : 0))
    .map((x) => x.c);
}
