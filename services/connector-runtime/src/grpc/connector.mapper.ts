/** Domain ⇄ wire for the connector service. */
import type { connector } from '@af/contracts';
import type { ConnectorDefinitionIssue } from '@af/connectors';
import type { StoredBinding } from '../infra/binding.repository.js';
import type { StoredConnector } from '../infra/connector.repository.js';
import type { UserConnection } from '../infra/user-connection.repository.js';
import type { TemplateView } from '../app/templates.js';

/** Definition → wire; credentials are never part of it, only their names. */
export function connectorToWire(c: StoredConnector): connector.Connector {
  const d = c.definition;
  return {
    id: d.id,
    name: d.name,
    type: d.type,
    version: d.version,
    description: d.description ?? '',
    definition: d as unknown as Record<string, unknown>,
    credentialNames: c.credentialNames,
    createdAt: c.createdAt.toISOString(),
    updatedAt: c.updatedAt.toISOString(),
  };
}

export function issueToWire(i: ConnectorDefinitionIssue): connector.DefinitionIssue {
  return { field: i.field, reason: i.reason, line: i.line ?? 0, column: i.column ?? 0 };
}

export function bindingToWire(b: StoredBinding): connector.Binding {
  return {
    agentProfileId: b.agentProfileId,
    connectorId: b.connectorId,
    configOverrides: b.configOverrides,
    allowedEndpoints: b.allowedEndpoints,
    rateLimitPerMinute: b.rateLimitPerMinute,
    status: b.status,
    statusReason: b.statusReason,
    updatedAt: b.updatedAt.toISOString(),
    credentialNames: b.credentialNames,
  };
}

export function userConnectionToWire(c: UserConnection): connector.UserConnection {
  return {
    connectionId: c.connectionId,
    connectorId: c.connectorId,
    provider: c.provider,
    scopes: c.scopes,
    status: c.status,
    expiresAt: c.expiresAt !== undefined ? new Date(c.expiresAt).toISOString() : '',
    createdAt: c.createdAt.toISOString(),
    updatedAt: c.updatedAt.toISOString(),
  };
}

export function templateToWire(t: TemplateView): connector.Template {
  return {
    id: t.id,
    name: t.definition.name,
    type: t.definition.type,
    description: t.definition.description ?? '',
    category: t.category,
    tags: t.tags,
    authFields: t.authFields,
    definition: t.definition as unknown as Record<string, unknown>,
    yaml: t.yaml,
  };
}
