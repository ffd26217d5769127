/**
 * The orchestrator's schedules that target an agent profile: they keep the
 * profile from being deleted (ProfilesService.delete). Asked at each delete
 * rather than mirrored here, so there is one record of what a schedule
 * targets — the schedule itself, in the orchestrator.
 */
import { schedules } from '@af/contracts';
import { call, createGrpcClient, type PrincipalSigner } from '@af/service-kit';
import type { PlaybookUsers } from '../app/playbooks.js';
import type { ProfileUsers } from '../app/profiles.service.js';

function scheduleClient(address: string, auth: PrincipalSigner): schedules.ScheduleServiceClient {
  return createGrpcClient<schedules.ScheduleServiceClient>('orchestrator', schedules.SCHEDULE_SERVICE_NAME, address, { auth, readyWaitMs: 5_000 });
}

export function profileSchedules(address: string, auth: PrincipalSigner): ProfileUsers {
  const client = scheduleClient(address, auth);
  return async (ownerUserId, profileId) => {
    const r = await call(client.listAgentProfileSchedules({ principal: { userId: ownerUserId, teamIds: [] }, agentProfileId: profileId }), 10_000);
    return [
      ...r.schedules.map((s) => ({ kind: 'schedule', id: `${s.id} (${s.name})` })),
      ...(r.otherUsersSchedules > 0 ? [{ kind: 'schedule', id: `${r.otherUsersSchedules} of other users (team members)` }] : []),
    ];
  };
}

/** The owner's schedules and monitors that run a stored playbook: they keep it from being deleted (Playbooks.delete). */
export function playbookSchedules(address: string, auth: PrincipalSigner): PlaybookUsers {
  const client = scheduleClient(address, auth);
  return async (ownerUserId, playbookId) => {
    const r = await call(client.listPlaybookSchedules({ principal: { userId: ownerUserId, teamIds: [] }, playbookId }), 10_000);
    return [
      ...r.schedules.map((s) => ({ kind: 'schedule' as const, id: `${s.id} (${s.name})` })),
      ...(r.total > r.schedules.length ? [{ kind: 'schedule' as const, id: `${r.total - r.schedules.length} more` }] : []),
    ];
  };
}
