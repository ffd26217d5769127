/** The template library (seed §7) and copies of templates as a user's connectors. */
import { AppError } from '@af/service-kit';
import { requiredCredentials } from '@af/connectors';
import type { StoredConnector } from '../infra/connector.repository.js';
import type { ConnectorTemplate } from '../infra/template-catalog.js';
import type { Connectors } from './connectors.js';
import { requireUser } from './connector-input.js';

const KEBAB_ID = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

export interface TemplateView extends ConnectorTemplate {
  category: string;
  tags: string[];
  authFields: string[];
}

export class Templates {
  private readonly byId: Map<string, TemplateView>;

  constructor(
    templates: ConnectorTemplate[],
    private readonly connectors: Connectors,
  ) {
    this.byId = new Map(
      templates.map((t) => [
        t.id,
        {
          ...t,
          category: t.definition.category ?? '',
          tags: t.definition.tags ?? [],
          authFields: requiredCredentials(t.definition),
        },
      ]),
    );
  }

  list(userId: string, category = ''): TemplateView[] {
    requireUser(userId);
    return [...this.byId.values()].filter((t) => !category || t.category === category);
  }

  get(templateId: string): TemplateView {
    const t = this.byId.get(templateId);
    if (!t) throw new AppError('NOT_FOUND', `connector template ${templateId} not found; templates: ${[...this.byId.keys()].join(', ')}`);
    return t;
  }

  /**
   * Saves a copy of a template as the user's connector (id defaults to the
   * template's). A connector of the user's with that id already is
   * ALREADY_EXISTS naming `connector_id`, unless `overwrite` replaces it.
   */
  async createFrom(userId: string, templateId: string, credentials: Record<string, string>, connectorId = '', overwrite = false): Promise<StoredConnector> {
    requireUser(userId);
    if (!templateId) throw AppError.invalid('template_id', 'is required');
    const template = this.get(templateId);
    if (connectorId && !KEBAB_ID.test(connectorId)) throw AppError.invalid('connector_id', 'must be kebab-case, e.g. fec-contributions');
    const id = connectorId || template.id;
    const taken = () => {
      const reason = `you already have a connector '${id}': send overwrite: true to replace it, or another connector_id`;
      return new AppError('ALREADY_EXISTS', `connector_id ${reason}`, { violations: [{ field: 'connector_id', reason, code: 'already_exists' }] });
    };
    const definition = { ...template.definition, id };
    // Whether the id is taken is decided by the insert (concurrent copies of one template: one wins, the other is 409).
    return this.connectors.create(userId, { definition: definition as unknown as Record<string, unknown> }, credentials, overwrite ? {} : { onlyIfNew: taken });
  }
}
