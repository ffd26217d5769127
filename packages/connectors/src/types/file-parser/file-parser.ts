/**
 * `file_parser` connectors (seed §4 "Type: file_parser"): parse XML (XPath
 * fields, e.g. IRS Form 990 e-file returns), CSV (columns) or JSON
 * (response_mapping) files that the caller uploads, that sit at a URL, or
 * that lie in a folder below the operator's file root.
 *
 * Inputs by source (they also appear as each endpoint's `parameters`):
 * - upload: `file` (content; text, or base64 with `encoding: base64`, a
 *   `data:…;base64,` prefix is accepted), `encoding`, `filename`;
 * - url: `url`, unless `connection.url` fixes it;
 * - directory: `path` (optional file or folder below `connection.directory`).
 *
 * Every file must fit `max_file_size_mb` and be of an accepted format by
 * both its extension and its content (and be what the endpoint's parser
 * reads). Records from directory sources carry `_file`, the relative path of
 * the file they came from. At most `max_records` records are returned;
 * `has_more` says whether more existed.
 */
import type { ConnectorDefinition } from '../../connector-definition.schema.js';
import { ConnectorError } from '../../connector-error.js';
import type { ConnectorTypeModule, ExecutionContext } from '../../connector-type.js';
import { applyResponseMapping, type EndpointResult } from '../../response-mapping.js';
import type { ConnectorCredentials } from '../rest-api/rest-request.js';
import { findEndpoint, resolveDeclaredInputs } from '../database/database-inputs.js';
import { extractCsvRecords } from './file-parser-csv.js';
import { checkFormat, decodeText, FileProblem } from './file-parser-format.js';
import { checkFileParserRules } from './file-parser-rules.js';
import {
  FILE_PARSER_KNOWN_KEYS,
  fileParserConnectorSchema,
  type FileParserConnectorDefinition,
  type FileParserEndpoint,
} from './file-parser-schema.js';
import { openSource, type FileEntry } from './file-parser-sources.js';
import { downloadFailure } from './file-parser-url.js';
import { TypeMisses } from './file-parser-values.js';
import { extractXmlRecords, parseXml } from './file-parser-xml.js';

export const fileParserType: ConnectorTypeModule = {
  type: 'file_parser',
  schema: fileParserConnectorSchema,
  knownKeys: FILE_PARSER_KNOWN_KEYS,
  checkRules: (def) => checkFileParserRules(def as unknown as FileParserConnectorDefinition),
  requiredCredentials: () => [],
  timeoutMs: (def) => (def as unknown as FileParserConnectorDefinition).connection.timeout_seconds * 1000,
  execute: (def, endpoint, inputs, credentials, ctx) =>
    executeFileParserEndpoint(def, endpoint, inputs, credentials, ctx),
};

export async function executeFileParserEndpoint(
  definition: ConnectorDefinition,
  endpointName: string,
  inputs: Readonly<Record<string, unknown>>,
  _credentials: ConnectorCredentials,
  ctx: ExecutionContext,
): Promise<EndpointResult> {
  const def = definition as unknown as FileParserConnectorDefinition;
  const label = `${def.id}/${endpointName}`;
  const endpoint = findEndpoint<FileParserEndpoint>(def, endpointName);
  const values = resolveDeclaredInputs(endpoint.parameters, endpointName, inputs);
  const timeoutMs = ctx.timeoutMs ?? def.connection.timeout_seconds * 1000;
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) {
    throw new ConnectorError(
      'INVALID_ARGUMENT',
      `${label}: the timeout must be a positive number of milliseconds`,
    );
  }
  if (ctx.signal?.aborted)
    throw new ConnectorError('CANCELLED', `${label}: cancelled before any file was read`);

  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, timeoutMs);
  const onCallerAbort = () => controller.abort();
  ctx.signal?.addEventListener('abort', onCallerAbort, { once: true });
  const stopped = () =>
    timedOut
      ? new ConnectorError('TIMEOUT', `${label}: the files were not read within ${timeoutMs} ms`)
      : new ConnectorError('CANCELLED', `${label}: cancelled by the caller`);
  let url: string | undefined;
  try {
    const set = await openSource({
      def,
      endpointName,
      endpoint,
      values,
      ctx,
      maxBytes: Math.floor(def.connection.max_file_size_mb * 1024 * 1024),
      signal: controller.signal,
      label,
    });
    url = set.url;
    const multi = def.connection.source === 'directory';
    const results: Record<string, unknown>[] = [];
    const warnings = [...set.warnings];
    let hasMore = set.more;
    for (const [i, entry] of set.entries.entries()) {
      if (controller.signal.aborted) throw stopped();
      const remaining = endpoint.max_records - results.length;
      if (remaining <= 0) {
        hasMore = true;
        warnings.push(
          `max_records (${endpoint.max_records}) reached; ${set.entries.length - i} file(s) not read`,
        );
        break;
      }
      let part: FilePart;
      try {
        part = parseFile(await entry.read(), entry, endpoint, def.connection.accepted_formats, remaining);
      } catch (err) {
        if (!(err instanceof FileProblem) || controller.signal.aborted) throw err;
        const outcome = set.onProblem(err, entry);
        if (outcome !== 'skip') throw outcome;
        warnings.push(`"${entry.display}" ${err.message}; skipped`);
        continue;
      }
      for (const record of part.results)
        results.push(entry.file !== undefined ? { ...record, _file: entry.file } : record);
      warnings.push(...part.warnings.map((w) => (multi ? `"${entry.display}": ${w}` : w)));
      if (part.truncated) {
        hasMore = true;
        warnings.push(
          `${multi ? `"${entry.display}": ` : ''}more records than max_records (${endpoint.max_records}); only the first ${endpoint.max_records} are returned`,
        );
        break;
      }
    }
    return {
      results,
      count: results.length,
      has_more: hasMore,
      ...(warnings.length > 0 ? { warnings } : {}),
    };
  } catch (err) {
    if (controller.signal.aborted) throw stopped();
    if (err instanceof ConnectorError) throw err;
    if (url !== undefined) throw downloadFailure(err, label, url, false, false, timeoutMs);
    throw err;
  } finally {
    clearTimeout(timer);
    ctx.signal?.removeEventListener('abort', onCallerAbort);
  }
}

interface FilePart {
  results: Record<string, unknown>[];
  truncated: boolean;
  warnings: string[];
}

/** One file's mapped records (at most `max`), or a FileProblem. */
export function parseFile(
  bytes: Uint8Array,
  entry: Pick<FileEntry, 'name'>,
  endpoint: FileParserEndpoint,
  accepted: FileParserConnectorDefinition['connection']['accepted_formats'],
  max: number,
): FilePart {
  const format = checkFormat(entry.name, bytes, endpoint.parser, accepted);
  const text = decodeText(bytes, format);
  const mapping = endpoint.response_mapping;
  if (endpoint.parser === 'json') {
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch (err) {
      throw new FileProblem(`is not valid JSON: ${err instanceof Error ? err.message : String(err)}`);
    }
    const mapped = applyResponseMapping(body, mapping);
    return {
      results: mapped.results.slice(0, max),
      truncated: mapped.results.length > max,
      warnings: mapped.warnings ?? [],
    };
  }
  const misses = new TypeMisses();
  const extracted =
    endpoint.parser === 'xml'
      ? extractXmlRecords(parseXml(text), endpoint, max, misses)
      : extractCsvRecords(text, endpoint, max, misses);
  // results_path is refused for xml/csv by the rules: the records are already the list.
  const mapped = mapping?.fields
    ? applyResponseMapping(extracted.records, { fields: mapping.fields })
    : undefined;
  return {
    results: mapped ? mapped.results : extracted.records,
    truncated: extracted.truncated,
    warnings: [...extracted.warnings, ...misses.warnings()],
  };
}
