/**
 * `pnpm --filter @af/planner load-catalog <dir> [--planner host:port] [--user id] [--team id | --shared] [--api-key key --gateway url]`
 * Loads a catalog folder (e.g. catalogs/flex-marketing) into a running
 * planner, owned by the user (default), a team of theirs (`--team`), or —
 * `--shared`, acting as the operator `system:operator` — the shared catalog
 * every user sees. A relative <dir> is read from where pnpm was invoked (INIT_CWD).
 *
 * Calls are authenticated like every call to the planner: with an API key
 * (--api-key / AF_API_KEY, exchanged at --gateway / AF_GATEWAY_URL for a
 * principal token of the key's user), or with SERVICE_AUTH_SECRET in the
 * environment (operators), which signs the --user principal. Only the
 * secret's holders can load the shared catalog.
 * Exit codes: 0 loaded, 1 invalid catalog or refused by the planner, 2 usage or no credentials.
 */
import 'reflect-metadata';
import { resolve } from 'node:path';
import { planner } from '@af/contracts';
import { AppError, cliAuth, CliAuthError, createGrpcClient } from '@af/service-kit';
import { CatalogFolderError } from '../infra/catalog-folder.js';
import { loadCatalog } from './catalog-loader.js';

const OPERATOR = 'system:operator';
const USAGE =
  'usage: load-catalog <catalog dir> [--planner host:port] [--user principal-id] [--team team-id | --shared] [--api-key key] [--gateway url]\n' +
  '  (defaults: $PLANNER_URL or 127.0.0.1:50051, user system:catalog; --shared loads the shared catalog as system:operator;\n' +
  '   credentials: --api-key/$AF_API_KEY with --gateway/$AF_GATEWAY_URL, or $SERVICE_AUTH_SECRET)';

async function main(argv: string[]): Promise<number> {
  const args = [...argv];
  let dir: string | undefined;
  let address = process.env.PLANNER_URL || '127.0.0.1:50051';
  let user = process.env.FLEX_CATALOG_USER || 'system:catalog';
  let userGiven = false;
  let team: string | undefined;
  let shared = false;
  let apiKey = process.env.AF_API_KEY || undefined;
  let gatewayUrl = process.env.AF_GATEWAY_URL || undefined;
  while (args.length) {
    const a = args.shift()!;
    if (a === '--planner') address = args.shift() ?? '';
    else if (a === '--user') {
      user = args.shift() ?? '';
      userGiven = true;
    } else if (a === '--team') team = args.shift() ?? '';
    else if (a === '--shared') shared = true;
    else if (a === '--api-key') apiKey = args.shift() ?? '';
    else if (a === '--gateway') gatewayUrl = args.shift() ?? '';
    else if (a === '--help' || a === '-h') {
      process.stdout.write(`${USAGE}\n`);
      return 0;
    } else if (!dir && !a.startsWith('--')) dir = a;
    else {
      process.stderr.write(`unknown argument '${a}'\n${USAGE}\n`);
      return 2;
    }
  }
  if (!dir || !address || !user || team === '') {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  if (shared && (team !== undefined || (userGiven && user !== OPERATOR))) {
    process.stderr.write(`--shared loads the shared catalog as ${OPERATOR}: it takes neither --team nor another --user\n${USAGE}\n`);
    return 2;
  }
  if (apiKey !== undefined && userGiven) {
    process.stderr.write(`--user cannot be combined with an API key: the key decides the user\n${USAGE}\n`);
    return 2;
  }
  if (apiKey !== undefined && shared) {
    process.stderr.write(`--shared needs SERVICE_AUTH_SECRET (operators): an API key acts for its user only\n${USAGE}\n`);
    return 2;
  }
  // The operator's writes always go to the shared catalog.
  if (user === OPERATOR && team === undefined) shared = true;
  const path = resolve(process.env.INIT_CWD ?? process.cwd(), dir);
  let auth;
  try {
    auth = await cliAuth({ apiKey, gatewayUrl, secret: process.env.SERVICE_AUTH_SECRET || undefined, tool: 'load-catalog' });
  } catch (e) {
    if (!(e instanceof CliAuthError)) throw e;
    process.stderr.write(`load-catalog: ${e.message}\n`);
    return 2;
  }
  // With an API key the planner acts for the key's user, whatever the requests name.
  if (auth.via === 'api-key') user = auth.userId || user;
  const client = createGrpcClient<planner.CapabilityRegistryServiceClient>('planner', planner.CAPABILITY_REGISTRY_SERVICE_NAME, address, { auth: auth.signer, readyWaitMs: 10_000 });
  try {
    const r = await loadCatalog(path, client, shared ? { userId: OPERATOR, shared: true } : { userId: user, ...(team ? { teamId: team } : {}) });
    const into = shared ? 'the shared catalog' : team ? `team ${team}` : `user ${user}`;
    process.stdout.write(`loaded ${r.collection} into ${into}: ${r.facets.length} facets, ${r.capabilities.length} capabilities (${r.capabilities.filter((c) => c.created).length} new), catalog revision ${r.catalogRevision}\n`);
    return 0;
  } catch (e) {
    if (e instanceof CatalogFolderError) process.stderr.write(`${e.message}\n`);
    else if (e instanceof AppError) process.stderr.write(`planner refused: ${e.message}\n${e.violations.map((v) => `  ${v.field}: ${v.reason}`).join('\n')}\n`);
    else process.stderr.write(`load-catalog failed: ${(e as Error).message}\n`);
    return 1;
  }
}

main(process.argv.slice(2)).then((code) => process.exit(code));
