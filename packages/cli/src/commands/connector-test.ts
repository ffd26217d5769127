/**
 * `af connector test <file.yaml> <endpoint> --param k=v … [--credential k=v …]`:
 * runs one endpoint locally through connector-runtime's `executeEndpoint`
 * (the same code the service runs) and prints the mapped records and an
 * `output_schema` inferred from them, ready to paste into the definition.
 * A paginated endpoint reports each page on stderr as it arrives.
 */
import {
  ConnectorError,
  executeEndpoint,
  inferOutputSchema,
  requiredCredentials,
  type HttpRequestFn,
} from '@af/connectors';
import { stringify } from 'yaml';
import { CliError, type CliIo } from '../io.js';
import { parseKeyValues } from '../key-values.js';
import { formatIssue, loadConnectorFile } from './connector-validate.js';

export interface ConnectorTestOptions {
  params?: string[];
  credentials?: string[];
  /** Overrides the connector's timeout (ms). */
  timeoutMs?: number;
  /** One JSON document on stdout instead of the readable report. */
  json?: boolean;
}

export async function testConnector(
  file: string,
  endpoint: string,
  options: ConnectorTestOptions,
  io: CliIo,
  http: () => Promise<HttpRequestFn>,
): Promise<number> {
  const inputs = parseKeyValues(options.params ?? [], '--param');
  const credentials = parseKeyValues(options.credentials ?? [], '--credential');
  const parsed = await loadConnectorFile(file);
  if (!parsed.ok) {
    for (const issue of parsed.errors) io.err(formatIssue(file, issue));
    io.err(`${file} is not a valid connector; fix it first (af connector validate ${file})`);
    return 1;
  }
  const def = parsed.definition;
  if (!Object.hasOwn(def.endpoints, endpoint)) {
    throw new CliError(
      `connector "${def.id}" has no endpoint "${endpoint}"; it has ${Object.keys(def.endpoints).join(', ')}`,
    );
  }
  const missing = requiredCredentials(def).filter((name) => !credentials[name]);
  if (missing.length > 0) {
    throw new CliError(`connector "${def.id}" needs ${missing.map((m) => `--credential ${m}=…`).join(' ')}`);
  }
  const warnings: string[] = [];
  const started = Date.now();
  let result;
  try {
    result = await executeEndpoint(def, endpoint, inputs, credentials, {
      http: await http(),
      ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
      warn: (message) => warnings.push(message),
      // Long listings show where they are, on stderr (stdout stays the result).
      onPage: ({ page, records, totalRecords }) =>
        io.err(`page ${page}: ${records} record${records === 1 ? '' : 's'} (${totalRecords} so far)`),
    });
  } catch (err) {
    if (!(err instanceof ConnectorError)) throw err;
    throw new CliError(
      `${err.code}: ${err.message}`,
      err.violations.map((v) => `${v.field}: ${v.reason}`),
    );
  }
  const durationMs = Date.now() - started;
  const records = Array.isArray(result.results) ? result.results : [];
  const schema = inferOutputSchema(records);
  const allWarnings = [...warnings, ...(result.warnings ?? [])];
  if (options.json) {
    io.out(
      JSON.stringify(
        { result, inferred_output_schema: schema, duration_ms: durationMs, warnings: allWarnings },
        null,
        2,
      ),
    );
    return 0;
  }
  for (const w of allWarnings) io.err(`warning: ${w}`);
  io.out(
    `${def.id} ${endpoint}: ${records.length} record${records.length === 1 ? '' : 's'} in ${durationMs} ms${result.has_more ? ` (more: next_cursor ${result.next_cursor ?? '?'})` : ''}`,
  );
  io.out(JSON.stringify(records, null, 2));
  io.out(
    `\n# inferred from ${records.length} record${records.length === 1 ? '' : 's'}; paste under endpoints.${endpoint}:`,
  );
  // `presence` is a hint for the author, not part of the seed's output_schema.
  const pasteable = {
    output_schema: { type: schema.type, fields: schema.fields.map(({ name, type }) => ({ name, type })) },
  };
  io.out(stringify(pasteable).trimEnd());
  const partial = schema.fields.filter((f) => f.presence < 1);
  if (partial.length > 0)
    io.out(
      `# not in every record: ${partial.map((f) => `${f.name} (${Math.round(f.presence * 100)}%)`).join(', ')}`,
    );
  return 0;
}
