import type { planner } from '@af/contracts';
import { AppError } from '@af/service-kit';
import { of, throwError } from 'rxjs';
import { assigneesOf, capabilityHolders } from './capability-holders.client.js';

describe('assigneesOf', () => {
  it('reads assignmentDefaults.assignees, each id once', () => {
    expect(assigneesOf({ assignmentDefaults: { assignees: ['u1', 'u2', 'u1'], maxNotifications: 1 } })).toEqual({ ok: true, userIds: ['u1', 'u2'] });
  });

  it('is empty when the registration names no holders', () => {
    for (const reg of [undefined, {}, { assignmentDefaults: null }, { assignmentDefaults: { role: 'director' } }, { assignmentDefaults: { assignees: [] } }]) {
      expect(assigneesOf(reg as Record<string, unknown> | undefined)).toEqual({ ok: true, userIds: [] });
    }
  });

  it('says what is wrong with a malformed list', () => {
    expect(assigneesOf({ assignmentDefaults: 'ops' })).toEqual({ ok: false, reason: 'assignmentDefaults must be an object' });
    expect(assigneesOf({ assignmentDefaults: { assignees: 'u1' } })).toEqual({ ok: false, reason: 'assignmentDefaults.assignees must be an array of user ids' });
    expect(assigneesOf({ assignmentDefaults: { assignees: ['u1', ' '] } })).toEqual({ ok: false, reason: 'assignmentDefaults.assignees[1] must be a non-empty user id' });
    expect(assigneesOf({ assignmentDefaults: { assignees: ['u1', 7] } })).toEqual({ ok: false, reason: 'assignmentDefaults.assignees[1] must be a non-empty user id' });
  });
});

describe('capabilityHolders', () => {
  const owner = { userId: 'owner', teamIds: ['t1'] };
  const client = (answer: (req: planner.GetCapabilityRequest) => ReturnType<planner.CapabilityRegistryServiceClient['getCapability']>) =>
    ({ getCapability: answer }) as unknown as planner.CapabilityRegistryServiceClient;

  it("asks the registry as the run's owner with its teams (only a capability the owner may use names holders)", async () => {
    const asked: planner.GetCapabilityRequest[] = [];
    const holders = capabilityHolders(client((req) => (asked.push(req), of(capability({ assignmentDefaults: { assignees: ['u1'] } })))));
    await holders.of('h.review', 1000, owner);
    expect(asked).toEqual([{ principal: { userId: 'owner', teamIds: ['t1'] }, capabilityId: 'h.review' }]);
  });
  const capability = (registration: Record<string, unknown>) => ({ capability: { capabilityId: 'h.review', agentType: 'human', registration } as unknown as planner.Capability });

  it('answers the registered holders', async () => {
    const holders = capabilityHolders(client(() => of(capability({ assignmentDefaults: { assignees: ['u1'] } }))));
    expect(await holders.of('h.review', 1000, owner)).toEqual(['u1']);
  });

  it('answers nobody for a capability that is not registered', async () => {
    const holders = capabilityHolders(client(() => throwError(() => new AppError('NOT_FOUND', 'capability h.review not found'))));
    expect(await holders.of('h.review', 1000, owner)).toEqual([]);
  });

  it('passes registry failures on', async () => {
    const holders = capabilityHolders(client(() => throwError(() => new AppError('UNAVAILABLE', 'connection refused'))));
    await expect(holders.of('h.review', 1000, owner)).rejects.toMatchObject({ code: 'UNAVAILABLE' });
  });

  it('refuses a malformed registration, naming the field', async () => {
    const holders = capabilityHolders(client(() => of(capability({ assignmentDefaults: { assignees: 'u1' } }))));
    await expect(holders.of('h.review', 1000, owner)).rejects.toMatchObject({
      code: 'FAILED_PRECONDITION',
      retryable: false,
      violations: [{ field: 'assignmentDefaults.assignees', reason: 'assignmentDefaults.assignees must be an array of user ids', code: 'invalid_registration' }],
    });
  });
});
