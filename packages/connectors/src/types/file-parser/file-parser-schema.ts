/**
 * Definition schema for `file_parser` connectors (seed §4 "Type:
 * file_parser"). The connection says where files come from (`source`:
 * upload, url or directory) and which are accepted; each endpoint names a
 * `parser` (xml, csv, json) with that parser's own options, checked strictly
 * (an `xpath` on a csv endpoint is an error, not ignored).
 *
 * The caller's inputs depend on the source and are the same for every
 * endpoint (see `FILE_SOURCE_INPUTS`); after parsing, each endpoint's
 * `parameters` lists them, so tool schemas built from `parameters` show them.
 * An author may declare them to add a description or default, but not others.
 */
import { z } from 'zod';
import {
  genericConnectorSchema,
  outputSchemaSchema,
  parameterSchema,
  responseMappingSchema,
  type EndpointParameter,
} from '../../connector-definition.schema.js';
import { FILE_FIELD_TYPES } from './file-parser-values.js';

export const FILE_SOURCES = ['upload', 'url', 'directory'] as const;
export type FileSource = (typeof FILE_SOURCES)[number];
export const FILE_FORMATS = ['xml', 'csv', 'json'] as const;
export type FileFormat = (typeof FILE_FORMATS)[number];

export const FILE_DEFAULT_MAX_MB = 10;
export const FILE_MAX_MB_LIMIT = 500;
export const FILE_DEFAULT_TIMEOUT_SECONDS = 30;
export const FILE_DEFAULT_MAX_RECORDS = 10_000;
export const FILE_DEFAULT_MAX_FILES = 100;

const text = z.string().min(1, 'must not be empty');

export const fileParserConnectionSchema = z.strictObject({
  source: z.enum(FILE_SOURCES).default('upload'),
  accepted_formats: z.array(z.enum(FILE_FORMATS)).min(1, 'must list at least one format').optional(),
  max_file_size_mb: z.number().positive().max(FILE_MAX_MB_LIMIT).default(FILE_DEFAULT_MAX_MB),
  timeout_seconds: z.number().positive().max(600).default(FILE_DEFAULT_TIMEOUT_SECONDS),
  /** source url: a fixed file URL; without it the caller passes `url`. */
  url: z.string().optional(),
  /** source directory: a folder below the operator's file root (default: the root itself). */
  directory: z.string().optional(),
  /** source directory: which files, as a glob relative to `directory` (`*.xml`, `**\/*.csv`). */
  pattern: z.string().optional(),
  /** source directory: most files one call reads. */
  max_files: z.number().int().min(1).max(10_000).optional(),
});
export type FileParserConnection = z.output<typeof fileParserConnectionSchema>;

const fieldType = z.enum(FILE_FIELD_TYPES).default('string');

/**
 * A key that belongs to another parser: refused with a reason that says so
 * (the generic unknown-key message would suggest the very same key).
 */
const misplaced = (reason: string) => z.never({ error: reason }).optional();
const ONLY_XML = 'is only used by xml endpoints';
const ONLY_CSV = 'is only used by csv endpoints';

export const xmlFieldSchema = z.strictObject({
  xpath: text,
  field: text,
  type: fieldType,
  column: misplaced('is only used by csv fields; xml fields use xpath'),
});
export const csvFieldSchema = z.strictObject({
  /** Header name, or 1-based column number. */
  column: z.union([text, z.number().int().min(1, 'must be a header name or a column number from 1')]),
  field: text,
  type: fieldType,
  xpath: misplaced('is only used by xml fields; csv fields use column'),
});

const commonEndpointShape = {
  description: z.string().optional(),
  parameters: z.array(parameterSchema).max(10).default([]),
  max_records: z.number().int().min(1).max(100_000).default(FILE_DEFAULT_MAX_RECORDS),
  response_mapping: responseMappingSchema.optional(),
  output_schema: outputSchemaSchema.optional(),
};

export const xmlEndpointSchema = z.strictObject({
  ...commonEndpointShape,
  parser: z.literal('xml'),
  /** XPath of the element the fields are read from (first match); default: the document. */
  root_element: text.optional(),
  /** XPath (relative to root_element) of repeated elements: one record each. */
  list_element: text.optional(),
  /** Prefixes for XPaths that name elements of a non-default namespace. */
  namespaces: z.record(z.string().regex(/^[A-Za-z_][\w.-]*$/, 'must be an XML name prefix'), text).optional(),
  fields: z.array(xmlFieldSchema).min(1, 'must list at least one field').max(500),
  delimiter: misplaced(ONLY_CSV),
  has_header: misplaced(ONLY_CSV),
  skip_rows: misplaced(ONLY_CSV),
});

export const csvEndpointSchema = z.strictObject({
  ...commonEndpointShape,
  parser: z.literal('csv'),
  delimiter: z
    .string()
    .refine((d) => d.length === 1 && !/["\r\n]/.test(d), 'must be one character (not a quote or line break)')
    .default(','),
  has_header: z.boolean().default(true),
  /** Lines before the header (or the first record) to skip, e.g. a title line. */
  skip_rows: z.number().int().min(0).max(1000).default(0),
  fields: z.array(csvFieldSchema).min(1, 'must list at least one field').max(500).optional(),
  root_element: misplaced(ONLY_XML),
  list_element: misplaced(ONLY_XML),
  namespaces: misplaced(ONLY_XML),
});

export const jsonEndpointSchema = z.strictObject({
  ...commonEndpointShape,
  parser: z.literal('json'),
  fields: misplaced('is not used by json endpoints: map fields with response_mapping.fields'),
  root_element: misplaced(ONLY_XML),
  list_element: misplaced(ONLY_XML),
  namespaces: misplaced(ONLY_XML),
  delimiter: misplaced(ONLY_CSV),
  has_header: misplaced(ONLY_CSV),
  skip_rows: misplaced(ONLY_CSV),
});

export const fileParserEndpointSchema = z.discriminatedUnion('parser', [
  xmlEndpointSchema,
  csvEndpointSchema,
  jsonEndpointSchema,
]);
export type FileParserEndpoint = z.output<typeof fileParserEndpointSchema>;
export type XmlEndpoint = z.output<typeof xmlEndpointSchema>;
export type CsvEndpoint = z.output<typeof csvEndpointSchema>;

const ENDPOINT_NAME = /^[A-Za-z][A-Za-z0-9_-]*$/;

const fileParserShapeSchema = genericConnectorSchema.extend({
  type: z.literal('file_parser'),
  connection: fileParserConnectionSchema,
  endpoints: z
    .record(
      z.string().regex(ENDPOINT_NAME, 'endpoint names start with a letter and use letters, digits, _ or -'),
      fileParserEndpointSchema,
    )
    .refine((eps) => Object.keys(eps).length > 0, 'must declare at least one endpoint')
    .refine((eps) => Object.keys(eps).length <= 200, 'must declare at most 200 endpoints'),
});

/**
 * The inputs each source takes (all strings):
 * - upload: `file` (the content: text, or base64 with `encoding: base64`),
 *   `encoding` (`text` default, or `base64`), `filename` (its extension is
 *   checked against accepted_formats);
 * - url: `url` (http or https), unless `connection.url` fixes it;
 * - directory: `path` (a file or folder below `connection.directory`;
 *   default: every file matching `pattern`).
 */
export function sourceInputs(connection: FileParserConnection): EndpointParameter[] {
  switch (connection.source) {
    case 'upload':
      return [
        {
          name: 'file',
          type: 'string',
          required: true,
          description: 'The file content: text, or base64 when encoding is base64',
        },
        { name: 'encoding', type: 'string', required: false, default: 'text', description: 'text or base64' },
        {
          name: 'filename',
          type: 'string',
          required: false,
          description: "The file's name; its extension must be an accepted format",
        },
      ];
    case 'url':
      return connection.url !== undefined
        ? []
        : [{ name: 'url', type: 'string', required: true, description: 'http(s) URL of the file to parse' }];
    case 'directory':
      return [
        {
          name: 'path',
          type: 'string',
          required: false,
          description: "A file or folder below the connector's directory; default: every matching file",
        },
      ];
  }
}

/** Fills each endpoint's `parameters` with the source's inputs the author did not declare. */
export const fileParserConnectorSchema = fileParserShapeSchema.transform((def) => {
  const implicit = sourceInputs(def.connection);
  const endpoints = Object.fromEntries(
    Object.entries(def.endpoints).map(([name, ep]) => {
      const declared = new Set(ep.parameters.map((p) => p.name));
      return [
        name,
        { ...ep, parameters: [...ep.parameters, ...implicit.filter((p) => !declared.has(p.name))] },
      ];
    }),
  );
  return { ...def, endpoints };
});
export type FileParserConnectorDefinition = z.output<typeof fileParserConnectorSchema>;

export const FILE_PARSER_KNOWN_KEYS = [
  'source',
  'accepted_formats',
  'max_file_size_mb',
  'url',
  'directory',
  'pattern',
  'max_files',
  'parser',
  'root_element',
  'list_element',
  'namespaces',
  'xpath',
  'field',
  'column',
  'delimiter',
  'has_header',
  'skip_rows',
  'max_records',
] as const;
