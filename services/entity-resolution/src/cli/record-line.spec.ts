import { parseLine } from './record-line.js';

describe('parseLine', () => {
  it('reads a good line with canonical ids', () => {
    expect(
      parseLine(
        '{"record_id": 7, "entity_type": "ORG", "name": "Acme Inc", "external_ids": {"ein": "043568784"}, "state": "CA"}',
        1,
      ),
    ).toEqual({
      ok: true,
      record: {
        recordId: '7',
        entityType: 'ORG',
        name: 'Acme Inc',
        externalIds: { ein: '04-3568784' },
        state: 'CA',
      },
    });
  });
  it('reads context items', () => {
    expect(
      parseLine(
        '{"record_id": "a", "entity_type": "PERSON", "name": "Ann Lee", "context": ["Acme Corp", "doc:1"]}',
        2,
      ),
    ).toMatchObject({ ok: true, record: { context: ['Acme Corp', 'doc:1'] } });
  });
  it('skips blank lines', () => {
    expect(parseLine('   ', 3)).toBeUndefined();
  });
  it.each([
    ['{not json', 'not JSON'],
    [
      '{"record_id": "a", "entity_type": "SHIP", "name": "x"}',
      'entity_type: entity_type must be PERSON or ORG',
    ],
    ['{"record_id": "a", "entity_type": "ORG"}', 'name:'],
    [
      '{"record_id": "a", "entity_type": "ORG", "name": "x", "external_ids": {"ein": "12"}}',
      'external_ids.ein: an EIN has nine digits',
    ],
    ['{"record_id": "a", "entity_type": "ORG", "name": "x", "colour": "red"}', '(line): Unrecognized key'],
    ['{"record_id": "a", "entity_type": "ORG", "name": "x", "context": "acme"}', 'context:'],
    ['{"record_id": "a", "entity_type": "ORG", "name": "x", "context": [""]}', 'context.0:'],
  ])('reports %s with its line number', (text, reason) => {
    const out = parseLine(text, 12);
    expect(out).toMatchObject({ ok: false, line: 12 });
    expect((out as { reason: string }).reason).toContain(reason);
  });
});

describe('entity_id labels', () => {
  it('reads entity_id as the label (a string or a number), apart from the record', () => {
    expect(parseLine('{"record_id":"r1","entity_type":"PERSON","name":"Ada Byron","entity_id":"e7"}', 1)).toEqual({
      ok: true,
      label: 'e7',
      record: { recordId: 'r1', entityType: 'PERSON', name: 'Ada Byron', externalIds: {} },
    });
    expect(parseLine('{"record_id":"r1","entity_type":"ORG","name":"Acme","entity_id":7}', 1)).toMatchObject({ ok: true, label: '7' });
    expect(parseLine('{"record_id":"r1","entity_type":"ORG","name":"Acme"}', 1)).not.toHaveProperty('label');
  });

  it('refuses an empty or non-scalar entity_id, naming it', () => {
    for (const bad of ['""', '["e1"]', '{"id":1}'])
      expect(parseLine(`{"record_id":"r1","entity_type":"ORG","name":"Acme","entity_id":${bad}}`, 4)).toMatchObject({ ok: false, line: 4, reason: expect.stringMatching(/^entity_id: /) });
  });
});
