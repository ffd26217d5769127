/**
 * The orchestrator's schedules that target an agent profile: they keep the
 * profile from being deleted (ProfilesService.delete). Asked at each delete
 * rather than mirrored here, so there is one record of what a schedule
 * targets — the schedule itself, in the orchestrator.
 */
import { schedules } from '@af/contracts';
import { call, createGrpcClient, type PrincipalSigner } from '@af/service-kit';
import type { ProfileUsers } from '../app/profiles.service.js';

export function profileSchedules(address: string, auth: PrincipalSigner): ProfileUsers {
  const client = createGrpcClient<schedules.ScheduleServiceClient>('orchestrator', schedules.SCHEDULE_SERVICE_NAME, address, { auth, readyWaitMs: 5_000 });
  return async (ownerUserId, profileId) => {
    const r = await call(client.listAgentProfileSchedules({ principal: { userId: ownerUserId, teamIds: [] }, agentProfileId: profileId }), 10_000);
    return [
      ...r.schedules.map((s) => ({ kind: 'schedule', id: `${s.id} (${s.name})` })),
      ...(r.otherUsersSchedules > 0 ? [{ kind: 'schedule', id: `${r.otherUsersSchedules} of other users (team members)` }] : []),
    ];
  };
}
