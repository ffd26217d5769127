// Files of the embedded PostgreSQL of `pnpm start` (scripts/embedded-pg.mjs):
// its password, its private socket directory and its cluster directory.
// Plain Node, no dependencies.
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A unix socket path (with its NUL) must fit in sockaddr_un.sun_path: 108 bytes on Linux. */
export const MAX_SOCKET_PATH_BYTES = 107;

/**
 * The cluster's password: read from `file`, or generated (32 random bytes,
 * hex, so it needs no escaping in a URL) and written there with mode 0600
 * before the cluster is created, so a crash later never loses it.
 * @param {string} file
 * @returns {{ password: string, created: boolean }}
 */
export function readOrCreatePassword(file) {
  if (existsSync(file)) {
    const password = readFileSync(file, 'utf8').trim();
    if (password.length >= 32) return { password, created: false };
  }
  const password = randomBytes(32).toString('hex');
  const partial = `${file}.${process.pid}.tmp`;
  writeFileSync(partial, `${password}\n`, { mode: 0o600 });
  chmodSync(partial, 0o600);
  renameSync(partial, file);
  return { password, created: true };
}

/**
 * A directory only the server's user can use, for its unix socket (and the
 * password file initdb reads once): `<dataDir>/run` when the socket path fits
 * in a unix socket address, else a fresh `af-pg-*` directory under the
 * system's temporary directory (removed again by `cleanup`). Never the shared
 * `/tmp` itself, where another cluster on the same port holds the same name.
 * @param {string} dataDir
 * @param {number} port
 * @param {{ uid: number, gid: number } | undefined} owner the server's user, when it is not ours (we run as root)
 * @returns {{ dir: string, cleanup: () => void }}
 */
export function privateSocketDir(dataDir, port, owner) {
  const preferred = join(dataDir, 'run');
  const fits = (dir) => Buffer.byteLength(socketPath(dir, port)) <= MAX_SOCKET_PATH_BYTES;
  let dir = preferred;
  let temporary = false;
  if (fits(preferred)) {
    mkdirSync(preferred, { recursive: true, mode: 0o700 });
  } else {
    dir = mkdtempSync(join(tmpdir(), 'af-pg-'));
    temporary = true;
    if (!fits(dir)) throw new Error(`no unix socket path of at most ${MAX_SOCKET_PATH_BYTES} bytes is available (tried ${preferred} and ${dir})`);
  }
  chmodSync(dir, 0o700);
  if (owner) chownSync(dir, owner.uid, owner.gid);
  return { dir, cleanup: () => temporary && rmSync(dir, { recursive: true, force: true }) };
}

/** Where the server puts its socket in `dir`. */
export function socketPath(dir, port) {
  return join(dir, `.s.PGSQL.${port}`);
}

/**
 * What is in the cluster directory `clusterDir`: `ready` (initialised),
 * `missing`, or `broken` (there, but without PG_VERSION: an initdb that did not
 * finish). `<clusterDir>.init`, where a new cluster is created before it is
 * renamed into place, is removed: it is left only by an init that was cut off.
 * @param {string} clusterDir
 * @returns {'ready' | 'missing' | 'broken'}
 */
export function clusterState(clusterDir) {
  rmSync(`${clusterDir}.init`, { recursive: true, force: true });
  if (!existsSync(clusterDir)) return 'missing';
  return existsSync(join(clusterDir, 'PG_VERSION')) ? 'ready' : 'broken';
}
