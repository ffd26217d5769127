import { deliveryKey, parseDestinations } from './destinations.js';

const F = 'params.destinations';

describe('parseDestinations', () => {
  it('parses every type with defaults', () => {
    const r = parseDestinations(
      [
        { type: 'chat' },
        { type: 'document', config: { filename_template: 'r_{date}.md', folder: 'Reports' } },
        {
          type: 'data_workspace_table',
          config: {
            table_name: 'grants',
            schema_mapping: { name: 'text', amount: 'number' },
            deduplication_key: ['name'],
            upsert_key: 'name',
          },
        },
        { type: 'file_export', format: 'json' },
        { type: 'webhook', config: { url: 'https://example.com/hook', secret: 'x'.repeat(16) } },
        { type: 'notification' },
        { type: 'knowledge_graph' },
      ],
      F,
    );
    expect(r.problems).toEqual([]);
    expect(r.destinations.map((d) => `${d.type}:${d.format}`)).toEqual([
      'chat:markdown',
      'document:markdown',
      'data_workspace_table:json',
      'file_export:json',
      'webhook:json',
      'notification:text',
      'knowledge_graph:json',
    ]);
    const table = r.destinations[2]!;
    expect(table.columns).toEqual([
      { name: 'name', type: 'text' },
      { name: 'amount', type: 'number' },
    ]);
    expect(table.type === 'data_workspace_table' && table.config.workspace_id).toBe('default');
  });

  it('fills the defaults of a destination given without config', () => {
    const r = parseDestinations([{ type: 'notification' }, { type: 'document' }, { type: 'file_export' }, { type: 'folder', config: { folder: 'A' } }], F);
    expect(r.problems).toEqual([]);
    expect(r.destinations.map((d) => d.config)).toEqual([
      { title: 'Output ready', priority: 'normal', channels: ['in_app'] },
      { filename_template: 'agent_output_{date}', create_if_missing: true },
      { filename_template: 'export_{date}' },
      { filename_template: 'agent_output_{date}', folder: 'A', create_if_missing: true },
    ]);
  });

  it('names an unknown destination type', () => {
    expect(parseDestinations([{ type: 'chat' }, { type: 'fax' }], F).problems).toEqual([
      {
        field: 'params.destinations[1].type',
        reason: expect.stringContaining('unknown destination type "fax"'),
      },
    ]);
  });

  it('requires schema_mapping for tables', () => {
    expect(
      parseDestinations([{ type: 'data_workspace_table', config: { table_name: 'x' } }], F).problems,
    ).toEqual([
      {
        field: 'params.destinations[0].config.schema_mapping',
        reason: 'is required for a data_workspace_table destination (columns and their types, or "infer")',
      },
    ]);
  });

  it('names bad identifiers, keys and fields', () => {
    const r = parseDestinations(
      [
        {
          type: 'data_workspace_table',
          config: {
            table_name: 'x; drop',
            schema_mapping: { 'a-b': 'text', ok: 'text' },
            deduplication_key: ['nope'],
            upsert_key: 'zz',
          },
        },
        { type: 'webhook', config: { url: 'ftp://x' } },
        { type: 'document', config: { bogus: 1 } },
      ],
      F,
    );
    const fields = r.problems.map((p) => p.field);
    expect(fields).toContain('params.destinations[0].config.table_name');
    expect(fields).toContain('params.destinations[1].config.url');
    expect(fields).toContain('params.destinations[2].config');
    expect(r.problems.find((p) => p.field === 'params.destinations[0].config.table_name')!.reason).toContain(
      'not a valid identifier',
    );
  });

  it('reports bad schema_mapping columns and keys not in it', () => {
    const r = parseDestinations(
      [
        {
          type: 'data_workspace_table',
          config: {
            table_name: 't',
            schema_mapping: { 'a-b': 'text', ok: 'text' },
            deduplication_key: ['nope'],
            upsert_key: 'zz',
          },
        },
      ],
      F,
    );
    expect(r.problems.map((p) => p.field)).toEqual([
      'params.destinations[0].config.schema_mapping.a-b',
      'params.destinations[0].config.deduplication_key',
      'params.destinations[0].config.upsert_key',
    ]);
  });

  it('refuses an empty or missing list', () => {
    expect(parseDestinations([], F).problems[0]!.reason).toContain('non-empty');
    expect(parseDestinations(undefined, F).problems[0]!.field).toBe(F);
  });
});

describe('deliveryKey', () => {
  it('is stable across attempts', () => {
    expect(deliveryKey('run-1', 'route', 2, 'webhook')).toBe('run-1:route:2-webhook');
  });
});
