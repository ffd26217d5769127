import { AppError } from '@af/service-kit';
import type { ConnectorDefinition } from '@af/connectors';
import type { StoredConnector } from '../infra/connector.repository.js';
import type { Connectors } from './connectors.js';
import { Templates } from './templates.js';

/** Connectors kept in a map by `user/id`, as the repository would. */
function fakeConnectors() {
  const saved = new Map<string, StoredConnector>();
  const connectors = {
    async exists(userId: string, id: string) {
      return saved.has(`${userId}/${id}`);
    },
    async create(userId: string, source: { definition: Record<string, unknown> }, credentials: Record<string, string>) {
      const definition = source.definition as unknown as ConnectorDefinition;
      const stored: StoredConnector = { ownerUserId: userId, definition, credentialNames: Object.keys(credentials), createdAt: new Date(0), updatedAt: new Date(0) };
      saved.set(`${userId}/${definition.id}`, stored);
      return stored;
    },
  };
  return { saved, connectors: connectors as unknown as Connectors };
}

const template = { id: 'federal-register', yaml: '', definition: { id: 'federal-register', name: 'Federal Register', type: 'rest_api', version: '1', connection: { base_url: 'https://example.org', auth: { type: 'none' } } } as unknown as ConnectorDefinition };

async function refusal(p: Promise<unknown>): Promise<AppError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof AppError) return e;
    throw e;
  }
  throw new Error('expected an AppError');
}

describe('Templates.createFrom', () => {
  it('copies a template once; the same target again is ALREADY_EXISTS naming connector_id, and nothing is replaced', async () => {
    const { saved, connectors } = fakeConnectors();
    const templates = new Templates([template], connectors);
    const first = await templates.createFrom('alice', 'federal-register', { token: 'a' }, 'my-fedreg');
    expect(first.definition.id).toBe('my-fedreg');
    const again = await refusal(templates.createFrom('alice', 'federal-register', {}, 'my-fedreg'));
    expect(again.code).toBe('ALREADY_EXISTS');
    expect(again.violations).toEqual([{ field: 'connector_id', reason: expect.stringContaining('overwrite: true'), code: 'already_exists' }]);
    expect(saved.get('alice/my-fedreg')!.credentialNames).toEqual(['token']);
  });

  it('the default target is the template id: a second copy without connector_id conflicts too', async () => {
    const { connectors } = fakeConnectors();
    const templates = new Templates([template], connectors);
    await templates.createFrom('alice', 'federal-register', {});
    expect((await refusal(templates.createFrom('alice', 'federal-register', {}))).code).toBe('ALREADY_EXISTS');
  });

  it('overwrite: true replaces the connector', async () => {
    const { saved, connectors } = fakeConnectors();
    const templates = new Templates([template], connectors);
    await templates.createFrom('alice', 'federal-register', { token: 'a' }, 'my-fedreg');
    const replaced = await templates.createFrom('alice', 'federal-register', { other: 'b' }, 'my-fedreg', true);
    expect(replaced.definition.id).toBe('my-fedreg');
    expect(saved.get('alice/my-fedreg')!.credentialNames).toEqual(['other']);
  });

  it("another user's connector of the same id is no conflict", async () => {
    const { connectors } = fakeConnectors();
    const templates = new Templates([template], connectors);
    await templates.createFrom('alice', 'federal-register', {}, 'my-fedreg');
    await expect(templates.createFrom('bob', 'federal-register', {}, 'my-fedreg')).resolves.toMatchObject({ ownerUserId: 'bob' });
  });

  it('still refuses a bad connector_id and an unknown template before looking for conflicts', async () => {
    const { connectors } = fakeConnectors();
    const templates = new Templates([template], connectors);
    expect((await refusal(templates.createFrom('alice', 'federal-register', {}, 'Not Kebab', true))).violations[0]).toMatchObject({ field: 'connector_id' });
    expect((await refusal(templates.createFrom('alice', 'no-such', {}))).code).toBe('NOT_FOUND');
  });
});
