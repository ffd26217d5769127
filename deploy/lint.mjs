#!/usr/bin/env node
// Static checks for deploy/. No Docker engine is needed (none runs on our
// machines), so this reads the files and checks what is knowable without a build:
//   - compose.yaml parses (YAML merge keys included), uses only known keys,
//     builds each service from deploy/Dockerfile with SERVICE=<its folder>,
//     gives every service every variable it needs (k8s/lib/service-env.mjs),
//     and points *_URL variables at services that exist; ships no secret (every
//     *SECRET/*PASSWORD/*TOKEN/*KEY(S) variable is required with ${NAME:?…},
//     never defaulted or written in the file) and publishes ports on 127.0.0.1
//     by default;
//   - Dockerfile pins the pnpm version the repository declares, installs with
//     the frozen lockfile, and ends as a numeric non-root user running dist/main.js;
//   - Dockerfile.dockerignore keeps node_modules/.git/dist out and the sources in.
//
//   node deploy/lint.mjs              exit 0 clean, 1 problems, 2 could not run
//   node deploy/lint.mjs --self-test  prove the checks catch known-bad variants

import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { composeProblems, dockerfileProblems, dockerignoreProblems } from './lint-rules.mjs';

const deployDir = dirname(fileURLToPath(import.meta.url));
const root = join(deployDir, '..');
const read = (name) => readFileSync(join(deployDir, name), 'utf8');

async function main(argv) {
  let deps;
  try {
    const [yaml, env, objects] = await Promise.all([
      import('yaml'),
      import('../k8s/lib/service-env.mjs'),
      import('../k8s/lib/objects.mjs'),
    ]);
    deps = {
      yaml,
      env,
      closest: objects.closest,
      serviceExists: (n) => existsSync(join(root, 'services', n, 'package.json')),
    };
  } catch (e) {
    console.error(
      `deploy/lint: ${String(e.message).split('\n')[0]}: run \`pnpm install\` at the repository root first`,
    );
    return 2;
  }
  const pnpmVersion = String(
    JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).packageManager ?? '',
  ).replace(/^pnpm@/, '');
  const files = {
    compose: read('compose.yaml'),
    dockerfile: read('Dockerfile'),
    dockerignore: read('Dockerfile.dockerignore'),
  };
  const lint = (f) => [
    ...composeProblems(f.compose, deps),
    ...dockerfileProblems(f.dockerfile, pnpmVersion),
    ...dockerignoreProblems(f.dockerignore),
  ];
  if (argv.includes('--self-test')) return selfTest(files, lint) ? 0 : 1;
  const problems = lint(files);
  for (const p of problems) console.log(`deploy/lint: ${p}`);
  console.log(
    problems.length === 0
      ? 'deploy/lint: compose.yaml, Dockerfile and Dockerfile.dockerignore look right'
      : `deploy/lint: ${problems.length} problem(s)`,
  );
  return problems.length === 0 ? 0 : 1;
}

/** One broken variant per rule family, each with the problem it must produce. */
const CASES = [
  ['clean files', (f) => f, null],
  [
    'misspelled compose key',
    (f) => ({ ...f, compose: f.compose.replace('  restart: unless-stopped', '  restrat: unless-stopped') }),
    /unknown key "restrat" \(did you mean "restart"\?\)/,
  ],
  [
    'misspelled env var',
    (f) => ({ ...f, compose: f.compose.replace('RUN_CONCURRENCY:', 'RUN_CONCURENCY:') }),
    /orchestrator needs RUN_CONCURRENCY/,
  ],
  [
    'wrong SERVICE build arg',
    (f) => ({ ...f, compose: f.compose.replace('SERVICE: planner', 'SERVICE: planer') }),
    /services\.planner\.build\.args\.SERVICE must be "planner"/,
  ],
  [
    'service address on the wrong port',
    (f) => ({
      ...f,
      compose: f.compose.replace(
        'ORCHESTRATOR_URL: orchestrator:50051',
        'ORCHESTRATOR_URL: orchestrator:5051',
      ),
    }),
    /ORCHESTRATOR_URL=orchestrator:5051 must be orchestrator/,
  ],
  [
    'JWT secret with a default',
    (f) => ({
      ...f,
      compose: f.compose.replace(
        /\$\{JWT_SECRET:\?[^}]*\}/,
        '${JWT_SECRET:-dev-only-jwt-secret-change-me-0123456789}',
      ),
    }),
    /ships a default for JWT_SECRET/,
  ],
  [
    'credentials key written in the file',
    (f) => ({
      ...f,
      compose: f.compose.replace(
        /CREDENTIALS_KEYS: \$\{CREDENTIALS_KEYS:\?[^}]*\}/,
        'CREDENTIALS_KEYS: dev1:ZGV2LW9ubHktY3JlZGVudGlhbHMta2V5LTAwMDAwMDA=',
      ),
    }),
    /environment\.CREDENTIALS_KEYS must come from the environment/,
  ],
  [
    'database password with a default',
    (f) => ({
      ...f,
      compose: f.compose.replaceAll(/POSTGRES_PASSWORD:\?[^}]*/g, 'POSTGRES_PASSWORD:-af-dev-password'),
    }),
    /ships a default for POSTGRES_PASSWORD/,
  ],
  [
    'gateway published on every interface',
    (f) => ({
      ...f,
      compose: f.compose.replace(/- '\$\{GATEWAY_BIND:-127\.0\.0\.1\}:8080:8080'/, "- '8080:8080'"),
    }),
    /"8080:8080" must bind to 127\.0\.0\.1/,
  ],
  [
    'gateway bind default on every interface',
    (f) => ({ ...f, compose: f.compose.replace('GATEWAY_BIND:-127.0.0.1', 'GATEWAY_BIND:-0.0.0.0') }),
    /must bind to 127\.0\.0\.1 by default/,
  ],
  [
    'service auth secret with a default',
    (f) => ({ ...f, compose: f.compose.replace(/SERVICE_AUTH_SECRET:\?[^}]+/, 'SERVICE_AUTH_SECRET:-known-to-everyone-0123456789abcdef') }),
    /SERVICE_AUTH_SECRET must be required from the shell/,
  ],
  [
    'NATS without JetStream',
    (f) => ({ ...f, compose: f.compose.replace(/command: \[['"]-js['"], /, 'command: [') }),
    /must include -js/,
  ],
  [
    'pnpm version drift',
    (f) => ({ ...f, dockerfile: f.dockerfile.replace(/pnpm@[0-9.]+/, 'pnpm@9.0.0') }),
    /must install pnpm@/,
  ],
  [
    'non-numeric USER',
    (f) => ({ ...f, dockerfile: f.dockerfile.replace(/^USER .*$/m, 'USER node') }),
    /numeric non-root USER/,
  ],
  [
    'shell-form CMD',
    (f) => ({ ...f, dockerfile: f.dockerfile.replace(/^CMD .*$/m, 'CMD node dist/main.js') }),
    /CMD \["node", "dist\/main\.js"\]/,
  ],
  [
    'sources excluded from the context',
    (f) => ({ ...f, dockerignore: `${f.dockerignore}\nservices\n` }),
    /must not exclude services\/gateway\/src\/main\.ts/,
  ],
  [
    'node_modules in the context',
    (f) => ({ ...f, dockerignore: f.dockerignore.replace('**/node_modules', '') }),
    /must exclude node_modules/,
  ],
];

function selfTest(files, lint) {
  let failed = 0;
  for (const [name, mutate, expected] of CASES) {
    const problems = lint(mutate(files));
    const ok = expected ? problems.some((p) => expected.test(p)) : problems.length === 0;
    if (!ok) failed++;
    console.log(
      `${ok ? 'ok  ' : 'FAIL'} ${name}${ok ? '' : `\n  expected ${expected ?? 'no problems'}, got:\n  ${problems.join('\n  ') || '(none)'}`}`,
    );
  }
  console.log(`deploy/lint self-test: ${CASES.length - failed}/${CASES.length} passed`);
  return failed === 0;
}

process.exitCode = await main(process.argv.slice(2));
