/**
 * `af connector validate <file.yaml>`: parses a connector definition the way
 * connector-runtime does and prints each problem as `file:line:column: field:
 * reason` (editors jump to it). Exit 1 when there are errors.
 */
import { readFile } from 'node:fs/promises';
import {
  parseConnectorYaml,
  type ConnectorDefinition,
  type ConnectorDefinitionIssue,
} from '@af/connectors';
import { CliError, type CliIo } from '../io.js';

/** Reads and parses; CliError when the file cannot be read. */
export async function loadConnectorFile(
  file: string,
): Promise<
  | { ok: true; definition: ConnectorDefinition; warnings: ConnectorDefinitionIssue[] }
  | { ok: false; errors: ConnectorDefinitionIssue[] }
> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new CliError(
      `cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
    );
  }
  return parseConnectorYaml(text);
}

export function formatIssue(file: string, issue: ConnectorDefinitionIssue, prefix = ''): string {
  const at = issue.line !== undefined ? `${file}:${issue.line}:${issue.column ?? 1}` : file;
  return `${at}: ${prefix}${issue.field}: ${issue.reason}`;
}

export async function validateConnector(file: string, io: CliIo): Promise<number> {
  const parsed = await loadConnectorFile(file);
  if (!parsed.ok) {
    for (const issue of parsed.errors) io.err(formatIssue(file, issue));
    io.err(`${parsed.errors.length} error${parsed.errors.length === 1 ? '' : 's'} in ${file}`);
    return 1;
  }
  for (const issue of parsed.warnings) io.err(formatIssue(file, issue, 'warning: '));
  const d = parsed.definition;
  const endpoints = Object.keys(d.endpoints);
  io.out(
    `${file}: valid ${d.type} connector "${d.id}" with ${endpoints.length} endpoint${endpoints.length === 1 ? '' : 's'} (${endpoints.join(', ')})`,
  );
  return 0;
}
