/**
 * `source: directory`: the files a call reads, all below the operator's file
 * root (`ctx.fileRoot`, setting CONNECTOR_FILE_ROOT). Paths from the
 * definition and the caller are relative; `..`, absolute paths and symbolic
 * links that resolve outside the root are refused (real paths are compared,
 * so a link cannot smuggle a file out). Hidden files (`.name`) are skipped
 * unless the pattern names them; symlinked folders are not followed, and a
 * symlinked file is read only when it resolves inside the connector's directory.
 */
import type { Dirent } from 'node:fs';
import { readdir, readFile, realpath, stat } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { ConnectorError } from '../../connector-error.js';
import { invalidInputs } from '../database/database-inputs.js';
import { FileProblem, humanSize, sizeProblem } from './file-parser-format.js';

/** Most directory entries one scan looks at, so a huge tree cannot stall a call. */
const MAX_ENTRIES_VISITED = 100_000;

export interface DirectoryFile {
  /** Path relative to the connector's directory, with `/` separators. */
  relPath: string;
  absPath: string;
}

export interface DirectoryListing {
  files: DirectoryFile[];
  /** The input named one file (its problems fail the call instead of being skipped). */
  single: boolean;
  /** More files matched than `maxFiles`. */
  more: boolean;
  warnings: string[];
}

/** Why a relative path from a definition or input is unsafe, or undefined when it is fine. */
export function relativePathProblem(path: string): string | undefined {
  if (path.includes('\0')) return 'must not contain NUL characters';
  if (isAbsolute(path) || /^[A-Za-z]:/.test(path) || path.startsWith('\\')) return 'must be a relative path';
  if (path.split(/[\\/]/).includes('..')) return 'must not contain ".." segments';
  return undefined;
}

/** A glob as a RegExp over `/`-separated relative paths: `*`, `?`, `**`, `{a,b}`. */
export function globToRegExp(glob: string): RegExp {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i] as string;
    if (c === '*') {
      if (glob[i + 1] === '*') {
        const slash = glob[i + 2] === '/';
        re += slash ? '(?:[^/]*/)*' : '.*';
        i += slash ? 2 : 1;
      } else {
        re += '[^/]*';
      }
    } else if (c === '?') {
      re += '[^/]';
    } else if (c === '{') {
      const close = glob.indexOf('}', i);
      if (close < 0) {
        re += '\\{';
        continue;
      }
      const options = glob
        .slice(i + 1, close)
        .split(',')
        .map((o) => o.replace(/[.+^${}()|[\]\\*?]/g, '\\$&'));
      re += `(?:${options.join('|')})`;
      i = close;
    } else {
      re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
    }
  }
  return new RegExp(`^${re}$`);
}

export interface ListOptions {
  fileRoot: string | undefined;
  directory: string | undefined;
  /** Glob relative to the directory (or to `path` when that is a folder). */
  pattern: RegExp;
  recursive: boolean;
  /** Whether names starting with `.` are considered (the glob names one). */
  includeHidden: boolean;
  /** The caller's `path` input. */
  path: string | undefined;
  maxFiles: number;
  label: string;
  endpointName: string;
}

export async function listDirectoryFiles(o: ListOptions): Promise<DirectoryListing> {
  if (!o.fileRoot) {
    throw new ConnectorError(
      'FAILED_PRECONDITION',
      `${o.label}: directory sources need a file root, and this service has none (setting CONNECTOR_FILE_ROOT)`,
    );
  }
  const root = await realpathOr(o.fileRoot, () => {
    throw new ConnectorError(
      'FAILED_PRECONDITION',
      `${o.label}: the file root (CONNECTOR_FILE_ROOT) does not exist`,
    );
  });
  const base = await realpathOr(resolve(root, o.directory ?? '.'), () => {
    throw new ConnectorError(
      'FAILED_PRECONDITION',
      `${o.label}: connection.directory "${o.directory}" does not exist under the file root`,
    );
  });
  if (!inside(root, base)) {
    throw new ConnectorError(
      'FAILED_PRECONDITION',
      `${o.label}: connection.directory resolves outside the file root`,
    );
  }

  let start = base;
  if (o.path !== undefined) {
    const problem = relativePathProblem(o.path);
    if (problem) throw invalidInputs(o.endpointName, [{ field: 'inputs.path', reason: problem }]);
    const target = await realpathOr(resolve(base, o.path), () => {
      throw new ConnectorError('NOT_FOUND', `${o.label}: inputs.path "${o.path}" does not exist`, {
        violations: [{ field: 'inputs.path', reason: 'does not exist' }],
      });
    });
    if (!inside(base, target)) {
      throw invalidInputs(o.endpointName, [
        {
          field: 'inputs.path',
          reason: "resolves outside the connector's directory (through a symbolic link)",
        },
      ]);
    }
    if ((await stat(target)).isFile()) {
      return {
        files: [{ relPath: toPosix(relative(base, target)), absPath: target }],
        single: true,
        more: false,
        warnings: [],
      };
    }
    start = target;
  }

  const warnings: string[] = [];
  const found: DirectoryFile[] = [];
  let visited = 0;
  const walk = async (dir: string): Promise<void> => {
    let entries: Dirent[];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      warnings.push(`could not read folder "${toPosix(relative(base, dir)) || '.'}"; skipped`);
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (++visited > MAX_ENTRIES_VISITED) return;
      const abs = join(dir, entry.name);
      const rel = toPosix(relative(start, abs));
      if (entry.name.startsWith('.') && !o.includeHidden) continue;
      if (entry.isDirectory()) {
        if (o.recursive) await walk(abs);
      } else if (entry.isFile() || entry.isSymbolicLink()) {
        if (!o.pattern.test(rel)) continue;
        const real = await realpathOr(abs, () => undefined);
        if (!real || !inside(base, real) || !(await stat(real)).isFile()) {
          warnings.push(
            `"${toPosix(relative(base, abs))}" links outside the connector's directory or not to a file; skipped`,
          );
          continue;
        }
        found.push({ relPath: toPosix(relative(base, abs)), absPath: real });
      }
    }
  };
  await walk(start);
  if (visited > MAX_ENTRIES_VISITED) {
    warnings.push(
      `stopped looking after ${MAX_ENTRIES_VISITED} directory entries; narrow the pattern or path`,
    );
  }
  const more = found.length > o.maxFiles;
  if (more) warnings.push(`${found.length} files match; only the first ${o.maxFiles} (max_files) were read`);
  return { files: found.slice(0, o.maxFiles), single: false, more, warnings };
}

/** Reads a listed file, refusing it when larger than `maxBytes`. */
export async function readDirectoryFile(
  file: DirectoryFile,
  maxBytes: number,
  signal: AbortSignal,
): Promise<Buffer> {
  const { size } = await stat(file.absPath);
  if (size > maxBytes) {
    throw new FileProblem(sizeProblem(size, maxBytes));
  }
  const bytes = await readFile(file.absPath, { signal });
  if (bytes.length > maxBytes) {
    throw new FileProblem(`grew beyond ${humanSize(maxBytes)} (max_file_size_mb) while being read`);
  }
  return bytes;
}

function inside(root: string, path: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);
}

async function realpathOr<T>(path: string, missing: () => T): Promise<string | T> {
  try {
    return await realpath(path);
  } catch {
    return missing();
  }
}

function toPosix(path: string): string {
  return sep === '/' ? path : path.split(sep).join('/');
}
