import { BLOCK_KEYS_VERSION, blockKeys } from '../domain/blocking.js';
import { normaliseRecord } from '../domain/normalise.js';
import type { Outcome } from '../domain/resolve-one.js';
import { tfKey } from '../domain/term-stats.js';
import type { InputEntity } from './ports.js';
import { planRecord, type PlanInput } from './resolution-plan.js';

const prov = { executionId: 'run-1', nodeId: 'n1', connector: 'fec', endpoint: 'donors' };
const input: InputEntity = { recordId: 'r', entityType: 'PERSON', name: 'Okonkwo, Ezekiel', state: 'CA', source: 'fec' };
const plain = normaliseRecord(input).record;
const keys = [...blockKeys(plain), tfKey(plain)];
const plan = (outcome: Outcome, targetName = 'Ezekiel Okonkwo') =>
  planRecord({ owner: 'u1', prov, input, plain, record: plain, keys, outcome, targetName } satisfies PlanInput);

describe('planRecord', () => {
  it('stores the mention under a new id with its keys, term-frequency key and key version', () => {
    const { mention, result } = plan({ decision: 'create_new', probability: 0 });
    expect(mention).toMatchObject({ owner: 'u1', prov, input, keys, termKey: tfKey(plain), keysVersion: BLOCK_KEYS_VERSION });
    expect(mention.record).toEqual({ ...plain, recordId: mention.id });
    expect(result).toEqual({ entityId: mention.id, mentionId: mention.id, decision: 'create_new', probability: 0 });
    expect(plan({ decision: 'create_new', probability: 0 }).mention.id).not.toBe(mention.id);
  });

  it('links a merge under the entity by the decision it logs, and names that entity in the discovery', () => {
    const { mention, decision, result, bridge } = plan({ decision: 'auto_merge', probability: 0.97, clusterId: 'e-1' });
    expect(decision.link).toEqual({ parent: 'e-1' });
    expect(decision.log).toMatchObject({ action: 'auto_merge', sourceId: mention.id, targetId: 'e-1', targetName: 'Ezekiel Okonkwo', reversible: true });
    expect(decision.log.link).toEqual({ child: mention.id, parent: 'e-1' });
    expect(decision.found.discovery).toMatchObject({ type: 'entity_merge', entityId: 'e-1', related: 'Ezekiel Okonkwo', confidence: 0.97 });
    expect(result).toEqual({ entityId: 'e-1', mentionId: mention.id, decision: 'auto_merge', probability: 0.97 });
    expect(bridge).toBeUndefined();
  });

  it('carries the entities a merge bridges, with what their log entries need', () => {
    const { mention, bridge } = plan({ decision: 'auto_merge', probability: 0.995, clusterId: 'e-1', bridge: [{ clusterId: 'e-2', probability: 0.993 }] });
    expect(bridge).toMatchObject({ into: 'e-1', entities: [{ clusterId: 'e-2', probability: 0.993 }], targetName: 'Ezekiel Okonkwo', name: input.name, prov });
    expect(bridge!.base).toMatchObject({ owner: 'u1', executionId: 'run-1', sourceId: mention.id, confidence: 0.995 });
  });

  it('queues the review band against the candidate entity, as a new entity meanwhile', () => {
    const { mention, decision, result } = plan({ decision: 'flag_review', probability: 0.6, clusterId: 'e-1' });
    expect(decision.link).toBeUndefined();
    expect(decision.review).toMatchObject({ sourceId: mention.id, candidateId: 'e-1', candidateName: 'Ezekiel Okonkwo', confidence: 0.6 });
    expect(decision.review!.context).toEqual({ source: 'fec', node_id: 'n1', candidate_record: '' });
    expect(decision.log).toMatchObject({ action: 'flag_review', targetId: 'e-1', reversible: false });
    expect(decision.found.discovery).toMatchObject({ type: 'new_entity', entityId: mention.id });
    expect(result).toEqual({
      entityId: mention.id,
      mentionId: mention.id,
      decision: 'flag_review',
      probability: 0.6,
      reviewId: decision.review!.id,
      candidateEntityId: 'e-1',
    });
  });

  it('makes a new entity of a decision that names no entity', () => {
    for (const decision of ['auto_merge', 'flag_review'] as const) {
      const p = plan({ decision, probability: 0.95 }, '');
      expect([p.result.decision, p.decision.link, p.decision.review]).toEqual(['create_new', undefined, undefined]);
      expect(p.decision.log).toMatchObject({ action: 'create_new', targetId: null, targetName: '' });
    }
  });
});
