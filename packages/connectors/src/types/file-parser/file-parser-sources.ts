/**
 * Where a `file_parser` call's files come from, as a list of lazily read
 * entries (a directory of large files is read one file at a time), and whose
 * fault a bad file is: the caller's for an uploaded file or a URL they gave
 * (INVALID_ARGUMENT on that input), the upstream's for the connector's fixed
 * URL (UPSTREAM_ERROR), nobody's for one file of a directory scan (skipped
 * with a warning, so one corrupt filing does not sink the batch).
 */
import { ConnectorError } from '../../connector-error.js';
import type { ExecutionContext } from '../../connector-type.js';
import { invalidInputs } from '../database/database-inputs.js';
import { globToRegExp, listDirectoryFiles, readDirectoryFile } from './file-parser-directory.js';
import { extensionsOf, FileProblem, sizeProblem } from './file-parser-format.js';
import {
  FILE_DEFAULT_MAX_FILES,
  type FileParserConnectorDefinition,
  type FileParserEndpoint,
} from './file-parser-schema.js';
import { downloadFile, fileNameOfUrl, fileUrlProblem, displayUrl } from './file-parser-url.js';

export interface FileEntry {
  /** How messages name the file (file name, URL without query, relative path). */
  display: string;
  /** Name whose extension is checked ('' when unknown). */
  name: string;
  /** Directory sources: the relative path every record of the file carries as `_file`. */
  file?: string;
  read(): Promise<Uint8Array>;
}

export interface FileSet {
  entries: FileEntry[];
  /** The ConnectorError a FileProblem becomes, or 'skip' to go on with a warning. */
  onProblem(problem: FileProblem, entry: FileEntry): ConnectorError | 'skip';
  warnings: string[];
  /** Directory sources: more files matched than were listed. */
  more: boolean;
  /** For download failures: the URL fetched. */
  url?: string;
}

export interface SourceContext {
  def: FileParserConnectorDefinition;
  endpointName: string;
  endpoint: FileParserEndpoint;
  values: ReadonlyMap<string, unknown>;
  ctx: ExecutionContext;
  maxBytes: number;
  signal: AbortSignal;
  label: string;
}

export async function openSource(s: SourceContext): Promise<FileSet> {
  switch (s.def.connection.source) {
    case 'upload':
      return uploadSource(s);
    case 'url':
      return urlSource(s);
    case 'directory':
      return directorySource(s);
  }
}

const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;

function uploadSource(s: SourceContext): FileSet {
  const encoding = s.values.get('encoding') ?? 'text';
  const content = s.values.get('file') as string;
  const filename = s.values.get('filename') as string | undefined;
  if (encoding !== 'text' && encoding !== 'base64') {
    throw invalidInputs(s.endpointName, [{ field: 'inputs.encoding', reason: 'must be "text" or "base64"' }]);
  }
  if (filename !== undefined && (filename.length > 255 || /[\u0000-\u001f/\\]/.test(filename))) {
    throw invalidInputs(s.endpointName, [
      { field: 'inputs.filename', reason: 'must be a file name of at most 255 characters, without folders' },
    ]);
  }
  let bytes: Buffer;
  if (encoding === 'base64') {
    const clean = content.replace(/^data:[^,]*;base64,/, '').replace(/\s+/g, '');
    if (!BASE64.test(clean) || clean.length % 4 === 1) {
      throw invalidInputs(s.endpointName, [{ field: 'inputs.file', reason: 'is not valid base64' }]);
    }
    const estimated = Math.floor((clean.length * 3) / 4);
    if (estimated - 2 > s.maxBytes) throw tooLargeUpload(s, estimated);
    bytes = Buffer.from(clean, 'base64');
  } else {
    bytes = Buffer.from(content, 'utf8');
  }
  if (bytes.length > s.maxBytes) throw tooLargeUpload(s, bytes.length);
  const entry: FileEntry = {
    display: filename ?? 'the uploaded file',
    name: filename ?? '',
    read: async () => bytes,
  };
  return {
    entries: [entry],
    onProblem: (problem) =>
      invalidInputs(s.endpointName, [{ field: 'inputs.file', reason: problem.message }]),
    warnings: [],
    more: false,
  };
}

function tooLargeUpload(s: SourceContext, size: number): ConnectorError {
  return invalidInputs(s.endpointName, [{ field: 'inputs.file', reason: sizeProblem(size, s.maxBytes) }]);
}

function urlSource(s: SourceContext): FileSet {
  const fixed = s.def.connection.url;
  const url = fixed ?? (s.values.get('url') as string);
  const problem = fileUrlProblem(url);
  if (problem) {
    if (fixed !== undefined)
      throw new ConnectorError('FAILED_PRECONDITION', `${s.label}: connection.url ${problem}`);
    throw invalidInputs(s.endpointName, [{ field: 'inputs.url', reason: problem }]);
  }
  const display = displayUrl(url);
  const entry: FileEntry = {
    display,
    name: fileNameOfUrl(url),
    read: () => downloadFile(s.ctx.http, url, s.maxBytes, s.signal, s.label),
  };
  return {
    entries: [entry],
    onProblem: (p) =>
      fixed !== undefined
        ? new ConnectorError('UPSTREAM_ERROR', `${s.label}: the file at ${display} ${p.message}`)
        : invalidInputs(s.endpointName, [
            { field: 'inputs.url', reason: `the file at ${display} ${p.message}` },
          ]),
    warnings: [],
    more: false,
    url,
  };
}

async function directorySource(s: SourceContext): Promise<FileSet> {
  const c = s.def.connection;
  const glob = c.pattern ?? defaultPattern(s.endpoint.parser);
  const listing = await listDirectoryFiles({
    fileRoot: s.ctx.fileRoot,
    directory: c.directory,
    pattern: globToRegExp(glob),
    recursive: glob.includes('/') || glob.includes('**'),
    includeHidden: /(^|\/)\./.test(glob),
    path: s.values.get('path') as string | undefined,
    maxFiles: c.max_files ?? FILE_DEFAULT_MAX_FILES,
    label: s.label,
    endpointName: s.endpointName,
  });
  const entries = listing.files.map<FileEntry>((f) => ({
    display: f.relPath,
    name: f.relPath,
    file: f.relPath,
    read: async () => {
      try {
        return await readDirectoryFile(f, s.maxBytes, s.signal);
      } catch (err) {
        if (err instanceof FileProblem || s.signal.aborted) throw err;
        const code = (err as { code?: unknown }).code;
        throw new FileProblem(`could not be read${typeof code === 'string' ? ` (${code})` : ''}`);
      }
    },
  }));
  return {
    entries,
    onProblem: (p, entry) =>
      listing.single
        ? invalidInputs(s.endpointName, [{ field: 'inputs.path', reason: `"${entry.display}" ${p.message}` }])
        : 'skip',
    warnings: listing.warnings,
    more: listing.more,
  };
}

/** Without a pattern: the top-level files with an extension of the endpoint's format. */
function defaultPattern(parser: FileParserEndpoint['parser']): string {
  const exts = extensionsOf(parser).map((e) => e.slice(1));
  return exts.length === 1 ? `*.${exts[0]}` : `*.{${exts.join(',')}}`;
}
