/**
 * TestConnector (seed `POST /connectors/{id}/test`): call one endpoint of a
 * saved or inline connector once — no idempotency record, no binding — and
 * infer an `output_schema` from the records that came back, so an author can
 * paste it into the definition.
 */
import { AppError } from '@af/service-kit';
import { inferOutputSchema } from '@af/connectors';
import type { ConnectorRepository } from '../infra/connector.repository.js';
import { checkCredentials, invalidDefinition, requireUser } from './connector-input.js';
import { parseSource, type Connectors } from './connectors.js';

export interface TestConnectorCommand {
  userId: string;
  connectorId: string;
  yaml: string;
  definition: Record<string, unknown> | undefined;
  credentials: Record<string, string>;
  endpoint: string;
  inputs: Record<string, unknown>;
}

export interface TestConnectorResult {
  result: Record<string, unknown>;
  inferredOutputSchema: Record<string, unknown>;
  durationMs: number;
  warnings: string[];
}

export class TestConnector {
  constructor(
    private readonly connectors: Connectors,
    private readonly repo: ConnectorRepository,
  ) {}

  async execute(cmd: TestConnectorCommand): Promise<TestConnectorResult> {
    requireUser(cmd.userId);
    if (!cmd.endpoint) throw AppError.invalid('endpoint', 'is required');
    checkCredentials(cmd.credentials);
    let definition;
    let credentials = cmd.credentials;
    if (cmd.yaml || cmd.definition) {
      const parsed = parseSource({ yaml: cmd.yaml, definition: cmd.definition });
      if (!parsed.ok) throw invalidDefinition(parsed.errors);
      definition = parsed.definition;
    } else if (cmd.connectorId) {
      definition = (await this.connectors.get(cmd.userId, cmd.connectorId)).definition;
      // Stored credentials, with any given in the request taking precedence (try a new key before saving it).
      credentials = { ...(await this.repo.credentials(cmd.userId, cmd.connectorId)), ...cmd.credentials };
    } else {
      throw AppError.invalid('connector_id', 'give connector_id, yaml or definition');
    }
    const started = Date.now();
    const result = await this.connectors.callOnce(cmd.userId, definition, cmd.endpoint, cmd.inputs, credentials);
    const records = Array.isArray(result.results) ? (result.results as unknown[]) : [];
    return {
      result,
      inferredOutputSchema: inferOutputSchema(records) as unknown as Record<string, unknown>,
      durationMs: Date.now() - started,
      warnings: Array.isArray(result.warnings) ? (result.warnings as string[]) : [],
    };
  }
}
