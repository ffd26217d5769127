/**
 * Parse connector definitions (YAML text or an already-decoded object) into a
 * validated `ConnectorDefinition`, or a list of problems each naming the field
 * path (`endpoints.search.path`, `connection.base_url`, …) and, for YAML, the
 * line and column.
 *
 * Unknown keys are errors, not warnings (see `connector-definition.schema.ts`
 * for why); the reason suggests the closest known key.
 */
import { LineCounter, parseDocument, type Document } from 'yaml';
import type { z } from 'zod';
import {
  CONNECTOR_TYPES,
  genericConnectorSchema,
  type ConnectorDefinition,
  type ConnectorType,
} from './connector-definition.schema.js';
import { checkDefinitionRules } from './connector-definition.rules.js';
import { CONNECTOR_TYPE_MODULES } from './types/index.js';
import { formatFieldPath, parseDotPath, type PathSegment } from './dot-path.js';

/** One problem with a definition. `line`/`column` (1-based) are set for YAML input when known. */
export interface ConnectorDefinitionIssue {
  field: string;
  reason: string;
  line?: number;
  column?: number;
}

export type ParseConnectorResult =
  | { ok: true; definition: ConnectorDefinition; warnings: ConnectorDefinitionIssue[] }
  | { ok: false; errors: ConnectorDefinitionIssue[] };

/** Largest YAML document accepted; connector definitions are small. */
export const MAX_CONNECTOR_YAML_BYTES = 256 * 1024;

/** Validates a decoded definition (JSON body, JSONB row, parsed YAML). */
export function parseConnectorDefinition(input: unknown): ParseConnectorResult {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    return { ok: false, errors: [{ field: 'definition', reason: 'must be a mapping of connector fields' }] };
  }
  const type = (input as Record<string, unknown>).type;
  const typeErrors: ConnectorDefinitionIssue[] = [];
  if (type === undefined)
    typeErrors.push({ field: 'type', reason: `is required; one of ${CONNECTOR_TYPES.join(', ')}` });
  else if (!(CONNECTOR_TYPES as readonly unknown[]).includes(type)) {
    typeErrors.push({ field: 'type', reason: `must be one of ${CONNECTOR_TYPES.join(', ')}` });
  }

  const module = typeErrors.length === 0 ? CONNECTOR_TYPE_MODULES[type as ConnectorType] : undefined;
  const schema = module?.schema ?? genericConnectorSchema;
  const parsed = schema.safeParse(input, { reportInput: true });
  if (!parsed.success || typeErrors.length > 0) {
    const shapeErrors = parsed.success ? [] : parsed.error.issues.flatMap(toIssues);
    // With a bad `type` the fallback schema's own complaint about it is noise.
    const rest = typeErrors.length > 0 ? shapeErrors.filter((e) => e.field !== 'type') : shapeErrors;
    return { ok: false, errors: [...typeErrors, ...rest] };
  }
  const definition = parsed.data as ConnectorDefinition;
  const { errors, warnings } = (module?.checkRules ?? checkDefinitionRules)(definition);
  if (errors.length > 0) return { ok: false, errors };
  return { ok: true, definition, warnings };
}

/** Parses connector YAML (seed §4) and validates it; problems carry line/column where known. */
export function parseConnectorYaml(text: string): ParseConnectorResult {
  if (Buffer.byteLength(text, 'utf8') > MAX_CONNECTOR_YAML_BYTES) {
    return {
      ok: false,
      errors: [{ field: 'yaml', reason: `must be at most ${MAX_CONNECTOR_YAML_BYTES} bytes` }],
    };
  }
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, uniqueKeys: true, prettyErrors: false });
  if (doc.errors.length > 0) {
    return {
      ok: false,
      errors: doc.errors.map((e) => {
        const pos = lineCounter.linePos(e.pos[0]);
        return { field: 'yaml', reason: firstLine(e.message), line: pos.line, column: pos.col };
      }),
    };
  }
  let value: unknown;
  try {
    // The alias cap stops "billion laughs" documents from expanding.
    value = doc.toJS({ maxAliasCount: 100 });
  } catch (err) {
    return {
      ok: false,
      errors: [{ field: 'yaml', reason: firstLine(err instanceof Error ? err.message : String(err)) }],
    };
  }
  if (value === null || value === undefined) {
    return { ok: false, errors: [{ field: 'yaml', reason: 'is empty; expected a connector definition' }] };
  }
  const result = parseConnectorDefinition(value);
  const locate = (issue: ConnectorDefinitionIssue) => withPosition(issue, doc, lineCounter);
  return result.ok
    ? { ...result, warnings: byPosition(result.warnings.map(locate)) }
    : { ok: false, errors: byPosition(result.errors.map(locate)) };
}

/** Document order reads best next to the YAML; issues without a position keep their order at the end. */
function byPosition(issues: ConnectorDefinitionIssue[]): ConnectorDefinitionIssue[] {
  const key = (i: ConnectorDefinitionIssue) => (i.line ?? Number.MAX_SAFE_INTEGER) * 1e6 + (i.column ?? 0);
  return issues
    .map((issue, index) => ({ issue, index }))
    .sort((a, b) => key(a.issue) - key(b.issue) || a.index - b.index)
    .map((x) => x.issue);
}

function withPosition(
  issue: ConnectorDefinitionIssue,
  doc: Document,
  lineCounter: LineCounter,
): ConnectorDefinitionIssue {
  const segments: PathSegment[] = issue.field === 'definition' ? [] : (parseDotPath(issue.field) ?? []);
  // A missing field has no node; point at the closest ancestor that exists.
  for (let n = segments.length; n >= 0; n--) {
    const node = doc.getIn(segments.slice(0, n), true) as { range?: [number, number, number] } | undefined;
    if (node && typeof node === 'object' && node.range) {
      const pos = lineCounter.linePos(node.range[0]);
      return { ...issue, line: pos.line, column: pos.col };
    }
  }
  return issue;
}

function toIssues(issue: z.core.$ZodIssue): ConnectorDefinitionIssue[] {
  const path = issue.path as PropertyKey[];
  switch (issue.code) {
    case 'unrecognized_keys':
      return issue.keys.map((key) => ({
        field: formatFieldPath([...path, key]),
        reason: unknownKeyReason(key),
      }));
    case 'invalid_union':
      if (issue.discriminator !== undefined && 'options' in issue && issue.options) {
        return [
          { field: formatFieldPath(path), reason: `must be one of ${issue.options.map(String).join(', ')}` },
        ];
      }
      break;
    case 'invalid_key':
      return [{ field: formatFieldPath(path), reason: issue.issues[0]?.message ?? 'is not a valid key' }];
    case 'invalid_value':
      if (issue.values.length > 1)
        return [
          { field: formatFieldPath(path), reason: `must be one of ${issue.values.map(String).join(', ')}` },
        ];
      return [{ field: formatFieldPath(path), reason: `must be ${String(issue.values[0])}` }];
    case 'invalid_type':
      if (issue.input === undefined) return [{ field: formatFieldPath(path), reason: 'is required' }];
      if (issue.message.startsWith('Invalid input')) {
        return [
          {
            field: formatFieldPath(path),
            reason: `must be ${article(issue.expected)}, got ${kindOf(issue.input)}`,
          },
        ];
      }
      break;
    default:
      break;
  }
  return [{ field: formatFieldPath(path), reason: issue.message }];
}

const KNOWN_KEYS = [
  'id',
  'name',
  'type',
  'version',
  'description',
  'connection',
  'endpoints',
  'category',
  'tags',
  'icon',
  'auth_fields',
  'base_url',
  'auth',
  'headers',
  'timeout_seconds',
  'rate_limit',
  'key_param',
  'in',
  'header_name',
  'env_var',
  'requests_per_second',
  'requests_per_minute',
  'requests_per_hour',
  'requests_per_day',
  'method',
  'path',
  'parameters',
  'response_mapping',
  'output_schema',
  'pagination',
  'cache_ttl_seconds',
  'required',
  'default',
  'entity_type',
  'results_path',
  'fields',
  'entity_extraction',
  'metadata_fields',
  'next_cursor_path',
  'has_more_path',
  'cursor_param',
  // rest_api parameters, bodies, auth and pagination
  'body_format',
  'grant_type',
  'token_url',
  'authorize_url',
  'scopes',
  'client_auth',
  'page_param',
  'start_page',
  'page_size_param',
  'page_size',
  'offset_param',
  'limit_param',
  'limit',
  'total_path',
  'max_pages',
  'inject_into',
];

function unknownKeyReason(key: string): string {
  let best: string | undefined;
  let bestDistance = 3;
  for (const known of [...KNOWN_KEYS, ...Object.values(CONNECTOR_TYPE_MODULES).flatMap((m) => m.knownKeys ?? [])]) {
    const d = editDistance(key.toLowerCase(), known);
    if (d < bestDistance) [best, bestDistance] = [known, d];
  }
  return best ? `is not a known field; did you mean "${best}"?` : 'is not a known field';
}

/** Levenshtein distance, for "did you mean" hints on short key names. */
function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row[j] = Math.min((prev[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, (prev[j - 1] ?? 0) + cost);
    }
    prev = row;
  }
  return prev[b.length] ?? 0;
}

function article(expected: string): string {
  if (expected === 'object' || expected === 'record') return 'a mapping';
  if (expected === 'array') return 'a list';
  return /^[aeiou]/.test(expected) ? `an ${expected}` : `a ${expected}`;
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  return typeof value;
}

function firstLine(message: string): string {
  return message.split('\n')[0]?.trim() ?? message;
}
