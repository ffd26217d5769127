import type { CapabilityRegistration } from '@af/plan';
import { capabilityStatus, instanceActive, instanceFromRegistration, pickInstance, toCapabilityView, type CapabilityRecord, type InstanceRecord } from './capability-record.js';

const t0 = new Date('2025-11-06T12:00:00Z');
const at = (s: number) => new Date(t0.getTime() + s * 1000);
const reg = (over: Partial<CapabilityRegistration> = {}): CapabilityRegistration => ({
  capabilityId: 'writer.en',
  instanceId: 'default',
  scopes: [],
  agentType: 'ai',
  version: '1',
  displayName: 'Writer',
  summary: 'writes',
  inputContract: ['a'],
  outputContract: ['b'],
  ...over,
});
const inst = (over: Partial<InstanceRecord>): InstanceRecord => ({ instanceId: 'i', scopes: [], status: 'active', registeredAt: t0, lastSeenAt: t0, heartbeatTimeoutSeconds: 30, ...over });

describe('capability record', () => {
  it('an instance is active until its heartbeat timeout passes, or forever without one', () => {
    expect(instanceActive(inst({}), at(30))).toBe(true);
    expect(instanceActive(inst({}), at(31))).toBe(false);
    expect(instanceActive(inst({ heartbeatTimeoutSeconds: undefined }), at(1e7))).toBe(true);
    expect(instanceActive(inst({ status: 'inactive', heartbeatTimeoutSeconds: undefined }), at(0))).toBe(false);
  });

  it('builds instances from registrations, keeping the first registration time', () => {
    const first = instanceFromRegistration(reg({ instanceId: 'w1', scopes: ['en'], endpoint: 'writer:50060', heartbeat: { intervalSeconds: 10 } }), t0);
    expect(first).toEqual({ instanceId: 'w1', scopes: ['en'], endpoint: 'writer:50060', heartbeatTimeoutSeconds: 30, status: 'active', registeredAt: t0, lastSeenAt: t0 });
    expect(instanceFromRegistration(reg({ instanceId: 'w1' }), at(50), first)).toMatchObject({ registeredAt: t0, lastSeenAt: at(50) });
  });

  it('is active while any instance is fresh; the view unions active scopes', () => {
    const r: CapabilityRecord = { registration: reg({ cost: { tier: 'premium' } }), registeredAt: t0, updatedAt: t0, instances: [inst({ instanceId: 'en', scopes: ['en'] }), inst({ instanceId: 'fr', scopes: ['fr'], lastSeenAt: at(20) })] };
    expect(capabilityStatus(r, at(40))).toBe('active');
    expect(toCapabilityView(r, at(40))).toMatchObject({ status: 'active', scopes: ['fr'], inputFacets: ['a'], outputFacets: ['b'], cost: { tier: 'premium' }, preferredModels: [], metadata: {} });
    expect(capabilityStatus(r, at(60))).toBe('inactive');
    expect(capabilityStatus({ ...r, instances: [] }, t0)).toBe('inactive');
  });

  it('picks the instance to dispatch to: in scope first, then the most recently seen', () => {
    const r: CapabilityRecord = { registration: reg(), registeredAt: t0, updatedAt: t0, instances: [inst({ instanceId: 'en', scopes: ['en'] }), inst({ instanceId: 'fr', scopes: ['fr'], lastSeenAt: at(5) }), inst({ instanceId: 'old', lastSeenAt: at(-60) })] };
    expect(pickInstance(r, at(10))?.instanceId).toBe('fr');
    expect(pickInstance(r, at(10), 'en')?.instanceId).toBe('en');
    expect(pickInstance(r, at(100))).toBeUndefined();
  });
});
