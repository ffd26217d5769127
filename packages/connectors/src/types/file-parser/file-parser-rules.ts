/**
 * Cross-field rules for `file_parser` definitions: source-specific
 * connection keys, safe paths and URLs, parsers within accepted_formats,
 * XPaths that compile, unique field names, and only the source's inputs as
 * parameters. Each problem names its field path.
 */
import type { DefinitionIssue } from '../../connector-definition.rules.js';
import { checkParameterDeclarations } from '../database/database-inputs.js';
import { relativePathProblem } from './file-parser-directory.js';
import {
  sourceInputs,
  type FileParserConnectorDefinition,
  type FileParserEndpoint,
  type FileSource,
} from './file-parser-schema.js';
import { fileUrlProblem } from './file-parser-url.js';
import { compileXPath } from './file-parser-xml.js';

const SOURCE_KEYS: Record<'url' | 'directory' | 'pattern' | 'max_files', FileSource> = {
  url: 'url',
  directory: 'directory',
  pattern: 'directory',
  max_files: 'directory',
};

export function checkFileParserRules(def: FileParserConnectorDefinition): {
  errors: DefinitionIssue[];
  warnings: DefinitionIssue[];
} {
  const errors: DefinitionIssue[] = [];
  const warnings: DefinitionIssue[] = [];
  const c = def.connection;
  for (const [key, source] of Object.entries(SOURCE_KEYS)) {
    if (c[key as keyof typeof SOURCE_KEYS] !== undefined && c.source !== source) {
      errors.push({ field: `connection.${key}`, reason: `is only used with source: ${source}` });
    }
  }
  if (c.url !== undefined) {
    const problem = fileUrlProblem(c.url);
    if (problem) errors.push({ field: 'connection.url', reason: problem });
  }
  if (c.directory !== undefined) {
    const problem = relativePathProblem(c.directory);
    if (problem) errors.push({ field: 'connection.directory', reason: `${problem} (below the file root)` });
  }
  if (c.pattern !== undefined) {
    const problem = c.pattern === '' ? 'must not be empty' : relativePathProblem(c.pattern);
    if (problem) errors.push({ field: 'connection.pattern', reason: problem });
  }
  const inputs = sourceInputs(c);
  for (const [name, endpoint] of Object.entries(def.endpoints)) {
    const at = `endpoints.${name}`;
    if (c.accepted_formats && !c.accepted_formats.includes(endpoint.parser)) {
      errors.push({
        field: `${at}.parser`,
        reason: `${endpoint.parser} is not in connection.accepted_formats (${c.accepted_formats.join(', ')})`,
      });
    }
    checkParameterDeclarations(endpoint.parameters, `${at}.parameters`, errors);
    endpoint.parameters.forEach((p, i) => {
      const input = inputs.find((q) => q.name === p.name);
      if (!input) {
        const names = inputs.map((q) => q.name).join(', ') || 'none';
        errors.push({
          field: `${at}.parameters[${i}].name`,
          reason: `"${p.name}" is not an input of source ${c.source} (inputs: ${names})`,
        });
      } else if (p.type !== input.type) {
        errors.push({ field: `${at}.parameters[${i}].type`, reason: `must be ${input.type}` });
      }
    });
    checkEndpoint(endpoint, at, errors);
  }
  return { errors, warnings };
}

function checkEndpoint(endpoint: FileParserEndpoint, at: string, errors: DefinitionIssue[]): void {
  if (endpoint.parser !== 'json' && endpoint.response_mapping?.results_path !== undefined) {
    errors.push({
      field: `${at}.response_mapping.results_path`,
      reason: `is not used by ${endpoint.parser} endpoints: every extracted record is one result`,
    });
  }
  if (endpoint.parser === 'json') return;
  const seen = new Set<string>();
  endpoint.fields?.forEach((f, i) => {
    if (seen.has(f.field))
      errors.push({ field: `${at}.fields[${i}].field`, reason: `duplicate field "${f.field}"` });
    seen.add(f.field);
  });
  if (endpoint.parser === 'csv') {
    if (!endpoint.has_header) {
      endpoint.fields?.forEach((f, i) => {
        if (typeof f.column === 'string') {
          errors.push({
            field: `${at}.fields[${i}].column`,
            reason: 'must be a column number: without has_header there are no column names',
          });
        }
      });
    }
    return;
  }
  const ns = endpoint.namespaces;
  const check = (expression: string, field: string, nodes: boolean) => {
    const result = compileXPath(expression, ns, nodes);
    if ('problem' in result) errors.push({ field, reason: result.problem });
  };
  if (endpoint.root_element !== undefined) check(endpoint.root_element, `${at}.root_element`, true);
  if (endpoint.list_element !== undefined) check(endpoint.list_element, `${at}.list_element`, true);
  endpoint.fields.forEach((f, i) => check(f.xpath, `${at}.fields[${i}].xpath`, false));
}
