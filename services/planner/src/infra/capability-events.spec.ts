import { Subjects } from '@af/service-kit';
import { capabilityFilter, capabilityMessage, parseCapabilityEvent, type CapabilityEvent } from './capability-events.js';

describe('capability events', () => {
  const subjects = new Subjects('t1');
  it('names subjects af.capability.<id>.<event> under the prefix, with a stable message id', () => {
    const e: CapabilityEvent = { kind: 'capability', event: 'heartbeat', owner: 'user:alice', capabilityId: 'writer.en', instanceId: 'w1', lastSeenAt: '2025-01-01T00:00:00.000Z', at: '2025-01-01T00:00:01.000Z' };
    // The owner is part of the message id: the same id of two owners at the same instant is two events.
    expect(capabilityMessage(subjects, e)).toEqual({ subject: 't1.af.capability.writer.en.heartbeat', payload: e, msgId: 'capability:user:alice:writer.en:w1:heartbeat:2025-01-01T00:00:01.000Z' });
    expect(capabilityMessage(subjects, { ...e, owner: 'team:t1' }).msgId).not.toBe(capabilityMessage(subjects, e).msgId);
    expect(capabilityMessage(new Subjects(''), { kind: 'catalog', event: 'facets_updated', facets: ['a'], at: 'x' }).subject).toBe('af.capability.catalog.facets_updated');
    expect(capabilityFilter(subjects)).toBe('t1.af.capability.>');
    expect(subjects.streamFor(capabilityMessage(subjects, e).subject).name).toBe('T1_AF_EVENTS');
  });

  it('reads back only well-formed events', () => {
    const ok = { kind: 'capability', event: 'registered', capabilityId: 'a', instanceIds: ['x'], at: 't' };
    expect(parseCapabilityEvent(ok)).toEqual(ok);
    expect(parseCapabilityEvent({ ...ok, owner: 'shared' })).toEqual({ ...ok, owner: 'shared' });
    expect(parseCapabilityEvent({ ...ok, owner: 7 })).toBeUndefined();
    expect(parseCapabilityEvent({ ...ok, instanceIds: 'x' })).toBeUndefined();
    expect(parseCapabilityEvent({ kind: 'capability', event: 'heartbeat', capabilityId: 'a', instanceId: 'x', at: 't' })).toBeUndefined();
    expect(parseCapabilityEvent({ kind: 'catalog', event: 'facets_updated', facets: [], at: 't' })).toBeTruthy();
    expect(parseCapabilityEvent({ kind: 'other', at: 't' })).toBeUndefined();
    expect(parseCapabilityEvent('x')).toBeUndefined();
  });
});
