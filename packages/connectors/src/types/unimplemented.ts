/**
 * A connector type whose definitions parse (the seed's loose shape) but cannot
 * run yet: every call is UNIMPLEMENTED with the type named.
 */
import { genericConnectorSchema, type ConnectorType } from '../connector-definition.schema.js';
import { ConnectorError } from '../connector-error.js';
import type { ConnectorTypeModule } from '../connector-type.js';

export function unimplementedType(type: ConnectorType): ConnectorTypeModule {
  return {
    type,
    schema: genericConnectorSchema,
    requiredCredentials: () => [],
    timeoutMs: () => 30_000,
    execute: async (def) => {
      throw new ConnectorError('UNIMPLEMENTED', `connector "${def.id}" is of type ${type}, which cannot be executed yet`);
    },
  };
}
