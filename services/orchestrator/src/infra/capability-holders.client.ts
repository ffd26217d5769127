/**
 * The holders of a human capability, read from the planner's registry
 * (CapabilityRegistry/GetCapability): the user ids the registration names in
 * `assignmentDefaults.assignees` (flex spec §15.10; the planner validates the
 * list when the capability registers, and it is checked again here, at the
 * wire). The registry is asked as the run's owner, so only a capability the
 * owner may use (its own, its teams', the shared catalog's) names holders; one
 * it cannot see has none. A registry that does not answer is an AppError the
 * human executor reports as retryable.
 */
import type { planner } from '@af/contracts';
import { AppError, call } from '@af/service-kit';
import type { CapabilityHolders } from '../app/executors/human.executor.js';

/** `assignmentDefaults.assignees` of a registration payload: user ids, or a reason the list is malformed. */
export function assigneesOf(registration: Record<string, unknown> | undefined): { ok: true; userIds: string[] } | { ok: false; reason: string } {
  const defaults = registration?.assignmentDefaults;
  if (defaults === undefined || defaults === null) return { ok: true, userIds: [] };
  if (typeof defaults !== 'object' || Array.isArray(defaults)) return { ok: false, reason: 'assignmentDefaults must be an object' };
  const assignees = (defaults as Record<string, unknown>).assignees;
  if (assignees === undefined) return { ok: true, userIds: [] };
  if (!Array.isArray(assignees)) return { ok: false, reason: 'assignmentDefaults.assignees must be an array of user ids' };
  const bad = assignees.findIndex((a) => typeof a !== 'string' || a.trim() === '');
  if (bad >= 0) return { ok: false, reason: `assignmentDefaults.assignees[${bad}] must be a non-empty user id` };
  return { ok: true, userIds: [...new Set(assignees as string[])] };
}

export function capabilityHolders(client: planner.CapabilityRegistryServiceClient): CapabilityHolders {
  return {
    async of(capabilityId, timeoutMs, principal) {
      let capability: planner.Capability | undefined;
      try {
        ({ capability } = await call(client.getCapability({ principal: { userId: principal.userId, teamIds: [...principal.teamIds] }, capabilityId }), timeoutMs));
      } catch (err) {
        if (err instanceof AppError && err.code === 'NOT_FOUND') return [];
        throw err;
      }
      if (!capability) return [];
      const parsed = assigneesOf(capability.registration as Record<string, unknown> | undefined);
      if (!parsed.ok) {
        throw new AppError('FAILED_PRECONDITION', `the registration of capability '${capabilityId}' is malformed (${parsed.reason}): register it again`, {
          violations: [{ field: 'assignmentDefaults.assignees', reason: parsed.reason, code: 'invalid_registration' }],
          retryable: false,
        });
      }
      return parsed.userIds;
    },
  };
}
