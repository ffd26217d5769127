/** Checks shared by the connector use cases: the caller, credentials, definition errors. */
import { AppError } from '@af/service-kit';
import type { ConnectorDefinitionIssue } from '@af/connectors';

const CREDENTIAL_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
const MAX_CREDENTIAL_BYTES = 16 * 1024;

export function requireUser(userId: string): void {
  if (!userId) throw new AppError('UNAUTHENTICATED', 'principal.user_id is required');
}

export function checkCredentials(credentials: Record<string, string>, field = 'credentials'): void {
  for (const [name, value] of Object.entries(credentials)) {
    if (!CREDENTIAL_NAME.test(name)) throw AppError.invalid(`${field}.${name}`, 'credential names are letters, digits and _');
    if (typeof value !== 'string' || value.length === 0) throw AppError.invalid(`${field}.${name}`, 'must be a non-empty string');
    if (Buffer.byteLength(value) > MAX_CREDENTIAL_BYTES) throw AppError.invalid(`${field}.${name}`, 'is too large');
  }
}

export function invalidDefinition(errors: ConnectorDefinitionIssue[]): AppError {
  const violations = errors.map((e) => ({
    field: e.field,
    reason: e.line !== undefined ? `${e.reason} (line ${e.line}${e.column !== undefined ? `, column ${e.column}` : ''})` : e.reason,
  }));
  return new AppError('INVALID_ARGUMENT', `invalid connector: ${violations.map((v) => `${v.field}: ${v.reason}`).join('; ')}`, { violations });
}
