import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  parseConnectorDefinition,
  parseConnectorYaml,
  type ParseConnectorResult,
} from '../../connector-definition.js';
import { rssFeedType } from './rss-feed.js';
import { feedName, type RssFeedConnectorDefinition } from './rss-feed-schema.js';

const seedYaml = readFileSync(join(__dirname, '../../fixtures/seed-rss-feed.connector.yaml'), 'utf8');

function base(patch: (d: Record<string, any>) => void = () => {}): Record<string, any> {
  const d: Record<string, any> = {
    id: 'news',
    name: 'News',
    type: 'rss_feed',
    connection: { feeds: [{ url: 'https://x.test/rss', name: 'main' }, 'https://y.test/atom.xml'] },
    endpoints: {
      recent: {
        parameters: [
          { name: 'feed_name', type: 'string', default: 'all' },
          { name: 'since_hours', type: 'integer', default: 24 },
          { name: 'max_items', type: 'integer' },
        ],
      },
    },
  };
  patch(d);
  return d;
}

function errorsOf(result: ParseConnectorResult) {
  if (result.ok) throw new Error(`expected errors, got ${JSON.stringify(result.definition)}`);
  return result.errors;
}

describe('rss_feed definitions', () => {
  it('parses the seed example without warnings', () => {
    const result = parseConnectorYaml(seedYaml);

    expect(result).toMatchObject({ ok: true, warnings: [] });
    if (!result.ok) return;
    const def = result.definition as RssFeedConnectorDefinition;
    expect(def.connection.max_items_per_poll).toBe(50);
    expect(def.connection.feeds?.map(feedName)).toEqual(['rules', 'notices']);
    expect(rssFeedType.requiredCredentials(def)).toEqual([]);
    expect(rssFeedType.timeoutMs(def)).toBe(30_000);
  });

  it('accepts plain URL feeds, named by host and path', () => {
    const result = parseConnectorDefinition(base());

    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const def = result.definition as RssFeedConnectorDefinition;
    expect(def.connection.feeds).toEqual([
      { url: 'https://x.test/rss', name: 'main' },
      { url: 'https://y.test/atom.xml' },
    ]);
    expect(def.connection.feeds?.map(feedName)).toEqual(['main', 'y.test/atom.xml']);
  });

  it.each([
    [
      'connection.feeds[0].url',
      (d: any) => (d.connection.feeds[0].url = 'file:///etc/passwd'),
      'must use http or https, not "file"',
    ],
    [
      'connection.feeds[1].url',
      (d: any) => (d.connection.feeds[1] = 'not a url'),
      'must be an absolute http or https URL',
    ],
    ['connection.feeds[0].nmae', (d: any) => (d.connection.feeds[0].nmae = 'x'), 'did you mean "name"?'],
    [
      'connection.feeds[0].name',
      (d: any) => (d.connection.feeds[0].name = 'has space'),
      'must start with a letter or digit',
    ],
    ['connection.feeds', (d: any) => (d.connection.feeds = []), 'must list at least one feed'],
    [
      'connection.max_items_per_poll',
      (d: any) => (d.connection.max_items_per_poll = 0),
      'must be at least 1',
    ],
    [
      'connection.max_items_per_poll',
      (d: any) => (d.connection.max_items_per_poll = 2.5),
      'must be a whole number',
    ],
    [
      'connection.poll_interval_minutes',
      (d: any) => (d.connection.poll_interval_minutes = -1),
      'must be positive',
    ],
    [
      'connection.headers.Cookie',
      (d: any) => (d.connection.headers = { Cookie: 'a=b' }),
      'must not carry credentials',
    ],
    ['connection.feedz', (d: any) => (d.connection.feedz = []), 'did you mean "feeds"?'],
    [
      'endpoints.recent.response_mapping.results_path',
      (d: any) => (d.endpoints.recent.response_mapping = { results_path: 'items' }),
      'is not used by rss_feed connectors',
    ],
    [
      'endpoints.recent.parameters[3].name',
      (d: any) => d.endpoints.recent.parameters.push({ name: 'keyword', type: 'string' }),
      '"keyword" is not understood by rss_feed endpoints; use feed_name, since_hours, max_items',
    ],
    [
      'endpoints.recent.parameters[1].type',
      (d: any) => (d.endpoints.recent.parameters[1].type = 'string'),
      'must be integer or number for "since_hours"',
    ],
    [
      'endpoints.recent.parameters[1].default',
      (d: any) => (d.endpoints.recent.parameters[1].default = 'soon'),
      'does not fit type integer',
    ],
    [
      'connection.feeds[1].name',
      (d: any) => (d.connection.feeds[1] = { url: 'https://z.test/', name: 'main' }),
      'duplicate feed name "main"',
    ],
    ['connection.feeds[0].name', (d: any) => (d.connection.feeds[0].name = 'all'), '"all" is reserved'],
  ])('refuses %s (%#)', (field, patch, reason) => {
    expect(errorsOf(parseConnectorDefinition(base(patch)))).toContainEqual({
      field,
      reason: expect.stringContaining(reason),
    });
  });

  it('needs connection.feeds unless every endpoint has its own', () => {
    const missing = errorsOf(
      parseConnectorDefinition(
        base((d) => {
          delete d.connection.feeds;
          d.endpoints.other = { parameters: [] };
        }),
      ),
    );
    expect(missing).toEqual([
      { field: 'connection.feeds', reason: 'is required unless every endpoint lists its own feeds' },
    ]);

    const own = parseConnectorDefinition(
      base((d) => {
        delete d.connection.feeds;
        d.endpoints.recent.feeds = ['https://x.test/a.xml'];
      }),
    );
    expect(own.ok).toBe(true);
  });

  it('checks entity_extraction and output_schema against the mapped (or record) fields', () => {
    const unmapped = errorsOf(
      parseConnectorDefinition(
        base((d) => {
          d.endpoints.recent.response_mapping = {
            fields: { headline: 'title' },
            entity_extraction: [{ field: 'title', entity_type: 'auto' }],
          };
        }),
      ),
    );
    expect(unmapped).toEqual([
      {
        field: 'endpoints.recent.response_mapping.entity_extraction[0].field',
        reason: '"title" is not a field of response_mapping.fields',
      },
    ]);

    const record = errorsOf(
      parseConnectorDefinition(
        base((d) => {
          d.endpoints.recent.output_schema = {
            type: 'record_set',
            fields: [{ name: 'headline', type: 'string' }],
          };
        }),
      ),
    );
    expect(record).toEqual([
      {
        field: 'endpoints.recent.output_schema.fields[0].name',
        reason: expect.stringContaining('"headline" is not a field of the rss_feed record'),
      },
    ]);
  });
});
