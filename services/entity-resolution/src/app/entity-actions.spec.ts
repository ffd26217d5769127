/**
 * extract_entities (rules, or the configured model on free text: a scripted
 * chat model here) and enrich_knowledge's refusals, through the action
 * handlers with a recording graph store.
 */
import { ScriptedChatModel } from '@af/llm';
import { LlmEntityExtractor } from '../infra/llm-extractor.js';
import { entityActions } from './actions.js';
import type { GraphStore, InputEntity, ResolvedOne, ResolveReceipt } from './ports.js';

const resolved: InputEntity[][] = [];
const store = {
  kind: 'recording',
  resolve: async (_o: string, _p: unknown, inputs: InputEntity[]) => {
    resolved.push(inputs);
    return inputs.map((_, i) => ({ entityId: `e${i}`, mentionId: `e${i}`, decision: 'create_new', probability: 0 }));
  },
  entities: async () => [],
} as unknown as GraphStore;
const settings = { maxAnalyzeNodes: 100, autoThreshold: 0.9, reviewThreshold: 0.5 };
const ctx = (action: string, inputs: unknown, params: unknown = {}) =>
  ({ action, inputs, params, principal: { userId: 'u1', teamIds: [] }, idempotencyKey: 'r:n:1', runId: 'r', nodeId: 'n', attempt: 1, signal: new AbortController().signal, deadline: 0 }) as never;
const run = (handlers: ReturnType<typeof entityActions>, name: string, inputs: unknown, params?: unknown) =>
  handlers.find((h) => h.name === name)!.execute(ctx(name, inputs, params));

const data = [{ contributor_name: 'John Smith', memo: 'x' }, 'Grant from the Gates Foundation to Maria Lopez in Seattle'];

describe('extract_entities', () => {
  it('is rule-based without a model', async () => {
    const out = await run(entityActions(store, settings), 'extract_entities', { data });
    expect(out).toMatchObject({ method: 'rules', count: 3 });
    expect((out.entities as Array<{ name: string }>).map((e) => e.name)).toEqual(['John Smith', 'Gates Foundation', 'Maria Lopez']);
  });

  it('reads free text through the configured model and keeps only what names a given text and an asked type', async () => {
    const chat = new ScriptedChatModel([
      {
        json: {
          entities: [
            { index: 1, field: '', name: 'Gates Foundation', type: 'ORG', confidence: 0.9 },
            { index: 1, field: '', name: 'Maria Lopez', type: 'person', confidence: 0.8 },
            { index: 1, field: '', name: 'Seattle', type: 'LOCATION', confidence: 0.7 },
            { index: 7, field: '', name: 'Nobody Given', type: 'PERSON', confidence: 0.9 },
          ],
        },
      },
    ]);
    const handlers = entityActions(store, { ...settings, extractor: new LlmEntityExtractor(chat, 'scripted') });
    const out = await run(handlers, 'extract_entities', { data }, { entity_types: ['PERSON', 'ORG'] });
    expect(out).toMatchObject({ method: 'llm', model: 'scripted', count: 3 });
    expect((out.entities as Array<{ name: string; type: string; source_record_index: number }>).map((e) => [e.name, e.type, e.source_record_index])).toEqual([
      ['John Smith', 'PERSON', 0],
      ['Gates Foundation', 'ORG', 1],
      ['Maria Lopez', 'PERSON', 1],
    ]);
    // The model saw the free text only, not the structured record.
    const asked = JSON.stringify(chat.calls[0]!.messages.map((m) => m.content));
    expect(asked).toContain('Gates Foundation to Maria Lopez');
    expect(asked).not.toContain('John Smith');
  });

  it('refuses a bad hint naming the field', async () => {
    await expect(
      run(entityActions(store, settings), 'extract_entities', { data }, { entity_extraction: [{ field: 'contributor_name', entity_type: 'PERSN' }] }),
    ).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringContaining('params.entity_extraction[0].entity_type') });
  });
});

describe('enrich_knowledge', () => {
  it('resolves hinted values with relationships carrying the provenance', async () => {
    resolved.length = 0;
    const out = await run(
      entityActions(store, settings),
      'enrich_knowledge',
      { data: [{ name: 'Maria Lopez', org: 'Summit Literacy Fund', state: 'TX' }] },
      {
        connector: 'registry',
        endpoint: 'people',
        source_node: 'pull',
        entity_extraction: [
          { field: 'name', entity_type: 'PERSON' },
          { field: 'org', entity_type: 'ORG', relationship_type: 'OFFICER_OF' },
        ],
      },
    );
    expect(out).toMatchObject({ relationship_count: 1, skipped: [] });
    expect(resolved[0]![0]).toMatchObject({
      name: 'Maria Lopez',
      state: 'TX',
      source: 'registry',
      recordIndex: 0,
      relationships: [
        {
          type: 'OFFICER_OF',
          target: { name: 'Summit Literacy Fund', entityType: 'ORG' },
          properties: { source_connector: 'registry', source_endpoint: 'people', source_execution_id: 'r', source_node: 'pull', source_field: 'org', source_record_index: 0 },
        },
      ],
    });
  });

  it.each([
    [{ data: 'rows' }, {}, 'inputs.data'],
    [{ data: [] }, { entity_extraction: [{ field: 'name', entity_type: 'SPACESHIP' }] }, 'params.entity_extraction[0].entity_type'],
    [{ data: [] }, { entity_extraction: [{ field: 'name', entity_type: 'ORG', relationship_type: 'works for' }] }, 'params.entity_extraction[0].relationship_type'],
    [{ data: [] }, { entity_extraction: [{ field: '', entity_type: 'ORG' }] }, 'params.entity_extraction[0].field'],
  ])('refuses %j %j naming %s', async (inputs, params, field) => {
    await expect(run(entityActions(store, settings), 'enrich_knowledge', inputs, params)).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: expect.stringContaining(field),
    });
  });
});

describe("the call's receipt (a process that dies after its write is answered from it)", () => {
  /** Records each resolve's inputs and receipt; entity ids are the records' names. */
  function receiptStore() {
    const calls: Array<{ names: string[]; final?: boolean; body?: unknown }> = [];
    /** Mentions merged under another root since they were resolved. */
    const merged = new Map<string, string>();
    const s = {
      kind: 'recording',
      resolve: async (_o: string, _p: unknown, inputs: InputEntity[], _t: unknown, receipt?: ResolveReceipt) => {
        const results = inputs.map((e) => ({ entityId: e.name, mentionId: e.name, decision: 'create_new', probability: 0 }) as ResolvedOne);
        calls.push({ names: inputs.map((e) => e.name), ...(receipt ? { final: receipt.final, body: receipt.body(results) } : {}) });
        if (receipt?.final) receipt.call.completed = true;
        return results;
      },
      entities: async (_o: string, ids: string[]) => ids.map((id) => ({ id, name: id, aliases: [], externalIds: {} })),
      rootsOf: async (_o: string, ids: string[]) => new Map(ids.map((id) => [id, merged.get(id) ?? id])),
    } as unknown as GraphStore;
    return { s, calls, merged };
  }
  const withReceipt = (name: string, inputs: unknown, params: unknown, prior?: unknown) =>
    ({ ...(ctx(name, inputs, params) as object), receipt: { key: 'r:n:1', completed: false, ...(prior !== undefined ? { prior } : {}) } }) as never;
  const people = (n: number) => Array.from({ length: n }, (_, i) => ({ name: `Person ${i}` }));
  const hints = { entity_extraction: [{ field: 'name', entity_type: 'PERSON' }] };

  it('resolve_entities writes its results as the final receipt, and a replay answers from it without resolving', async () => {
    const { s, calls, merged } = receiptStore();
    const resolve = entityActions(s, settings).find((h) => h.name === 'resolve_entities');
    const c = withReceipt('resolve_entities', { entities: [{ name: 'Ada Lovelace', type: 'PERSON' }] }, {});
    const out = await resolve!.execute(c);
    expect(calls).toEqual([{ names: ['Ada Lovelace'], final: true, body: { results: [expect.objectContaining({ entityId: 'Ada Lovelace' })] } }]);
    const replayed = await resolve!.replay!(c, calls[0]!.body);
    expect(replayed).toEqual(out);
    expect(calls).toHaveLength(1);
    // Merged into another entity since: the replay answers the entity the record belongs to now.
    merged.set('Ada Lovelace', 'Augusta Ada King');
    expect(await resolve!.replay!(c, calls[0]!.body)).toMatchObject({ resolved: [{ entity_id: 'Augusta Ada King' }], count: 1 });
    await expect(resolve!.replay!(c, { results: [{ entityId: 7 }] })).rejects.toMatchObject({ code: 'INTERNAL', message: 'the receipt of this call holds no resolve results' });
  });

  it('resolve_entities runs without a claim before it (optimistic) only where its write carries the receipt; enrich_knowledge always claims', async () => {
    const named = (receipts: boolean, name: string) => entityActions({ ...store, receipts } as GraphStore, settings).find((h) => h.name === name)!;
    expect([named(true, 'resolve_entities').optimistic, named(false, 'resolve_entities').optimistic]).toEqual([true, false]);
    expect(named(true, 'enrich_knowledge').optimistic).toBeFalsy();
  });

  it('enrich_knowledge checkpoints each batch with the results so far, the last one final', async () => {
    const { s, calls } = receiptStore();
    const enrich = entityActions(s, settings).find((h) => h.name === 'enrich_knowledge')!;
    const out = await enrich.execute(withReceipt('enrich_knowledge', { data: people(1_200) }, hints));
    expect(calls.map((c) => [c.names.length, c.final, (c.body as { results: unknown[] }).results.length])).toEqual([
      [500, false, 500],
      [500, false, 1_000],
      [200, true, 1_200],
    ]);
    expect(out).toMatchObject({ count: 1_200 });
  });

  it('enrich_knowledge taken over after its process died goes on after the last batch that committed', async () => {
    const { s, calls } = receiptStore();
    const enrich = entityActions(s, settings).find((h) => h.name === 'enrich_knowledge')!;
    const prior = { results: people(500).map((p) => ({ entityId: p.name, mentionId: p.name, decision: 'create_new', probability: 0 })) };
    const out = await enrich.execute(withReceipt('enrich_knowledge', { data: people(1_200) }, hints, prior));
    expect(calls.map((c) => [c.names[0], c.names.length, c.final])).toEqual([
      ['Person 500', 500, false],
      ['Person 1000', 200, true],
    ]);
    expect(out).toMatchObject({ count: 1_200 });
    const tooMany = { results: [...prior.results, ...prior.results, ...prior.results] };
    await expect(enrich.execute(withReceipt('enrich_knowledge', { data: people(1_200) }, hints, tooMany))).rejects.toMatchObject({ code: 'INTERNAL' });
  });
});
