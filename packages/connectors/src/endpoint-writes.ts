/**
 * Whether calling an endpoint may change something upstream — what a dry run
 * (`POST /playbooks/{id}/test` without `allow_side_effects`) must not do.
 * Decided from the definition alone, before any request goes out:
 *
 * - rest_api: GET and HEAD read; every other method may write.
 * - graphql: a query reads; a mutation or subscription may act (a document
 *   with several operations is judged by the one `operation_name` picks, or
 *   by all of them when it names none).
 * - database: reads only (its SQL runs in read-only transactions).
 * - web_scraper, rss_feed, file_parser: fetch and read.
 * - existing_tool: calls a plugin tool, which may act.
 */
import type { ConnectorDefinition } from './connector-definition.schema.js';

/** Why calling `endpointName` may change something upstream; null when it only reads (or does not exist). */
export function endpointWriteReason(def: ConnectorDefinition, endpointName: string): string | null {
  const endpoint = (def.endpoints as Record<string, Record<string, unknown> | undefined> | undefined)?.[endpointName];
  if (!endpoint) return null;
  switch (def.type) {
    case 'rest_api': {
      const method = String(endpoint.method ?? 'GET').toUpperCase();
      return method === 'GET' || method === 'HEAD' ? null : `it sends ${method} requests, which may change data`;
    }
    case 'graphql': {
      const kinds = graphqlOperationKinds(String(endpoint.query ?? ''), typeof endpoint.operation_name === 'string' ? endpoint.operation_name : undefined);
      const acting = kinds.filter((k) => k !== 'query');
      return acting.length === 0 ? null : `it runs a GraphQL ${acting[0]}, which may change data`;
    }
    case 'existing_tool':
      return 'it calls a plugin tool, which may act outside the run';
    default:
      return null;
  }
}

/**
 * The kinds (`query` / `mutation` / `subscription`) of the operations a
 * GraphQL document runs: the one named `operationName`, or every operation
 * when no name is given. The shorthand `{ … }` is a query; fragments are not
 * operations. Comments and strings are ignored.
 */
export function graphqlOperationKinds(document: string, operationName?: string): string[] {
  const text = document
    .replace(/"""[\s\S]*?"""/g, ' ')
    .replace(/"(?:[^"\\\n]|\\.)*"/g, ' ')
    .replace(/#[^\n\r]*/g, ' ');
  // Each top-level definition is its header (what precedes its selection set at depth 0) and `{…}`.
  const operations: Array<{ kind: string; name: string | undefined }> = [];
  let depth = 0;
  let header = '';
  for (const ch of text) {
    if (ch === '{') {
      if (depth === 0) {
        const h = header.trim();
        header = '';
        const m = /^(query|mutation|subscription)\b\s*([_A-Za-z][_0-9A-Za-z]*)?/.exec(h);
        if (m) operations.push({ kind: m[1]!, name: m[2] });
        else if (h === '') operations.push({ kind: 'query', name: undefined });
        // anything else (`fragment F on T`, a schema definition) is not an operation
      }
      depth++;
    } else if (ch === '}') {
      depth = Math.max(0, depth - 1);
    } else if (depth === 0) {
      header += ch;
    }
  }
  const chosen = operationName ? operations.filter((o) => o.name === operationName) : operations;
  return chosen.map((o) => o.kind);
}
