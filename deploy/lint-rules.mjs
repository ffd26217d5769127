// The checks behind deploy/lint.mjs, as pure functions of file contents so the
// self-test can feed them broken variants. Each returns readable problems.

// prettier-ignore
const COMPOSE_TOP_KEYS = ['name', 'services', 'volumes', 'networks', 'configs', 'secrets', 'include'];
// prettier-ignore
const COMPOSE_SERVICE_KEYS = [
  'image', 'build', 'command', 'entrypoint', 'environment', 'env_file', 'ports', 'expose', 'volumes', 'depends_on',
  'healthcheck', 'restart', 'user', 'working_dir', 'networks', 'labels', 'profiles', 'read_only', 'tmpfs',
  'stop_grace_period', 'stop_signal', 'init', 'deploy', 'logging', 'secrets', 'configs', 'container_name',
];
const COMPOSE_BUILD_KEYS = [
  'context',
  'dockerfile',
  'args',
  'target',
  'cache_from',
  'labels',
  'platforms',
  'tags',
];

/** Paths the image build needs; the .dockerignore must not exclude them. */
// prettier-ignore
export const NEEDED_IN_CONTEXT = [
  'package.json', 'pnpm-lock.yaml', 'pnpm-workspace.yaml', 'turbo.json', 'tsconfig.base.json',
  'packages/contracts/package.json', 'packages/contracts/proto/x.proto', 'services/gateway/src/main.ts',
  'deploy/check-deploy.mjs',
];

/**
 * @typedef {object} ComposeDeps
 * @property {typeof import('yaml')} yaml
 * @property {typeof import('../k8s/lib/service-env.mjs')} env
 * @property {(word: string, candidates: Iterable<string>) => string | undefined} closest
 * @property {(name: string) => boolean} serviceExists whether services/<name>/package.json exists
 */

/**
 * @param {string} text compose.yaml
 * @param {ComposeDeps} deps
 * @returns {string[]}
 */
export function composeProblems(text, { yaml, env, closest, serviceExists }) {
  const out = [];
  const doc = yaml.parseDocument(text, { merge: true });
  if (doc.errors.length > 0) return doc.errors.map((e) => `compose.yaml: ${e.message}`);
  const compose = doc.toJS() ?? {};
  const unknown = (keys, allowed, where) => {
    for (const k of keys) {
      if (allowed.includes(k) || k.startsWith('x-')) continue;
      const hint = closest(k, allowed);
      out.push(`compose.yaml ${where}: unknown key "${k}"${hint ? ` (did you mean "${hint}"?)` : ''}`);
    }
  };
  unknown(Object.keys(compose), COMPOSE_TOP_KEYS, '(top level)');
  const services = compose.services ?? {};
  const volumes = Object.keys(compose.volumes ?? {});
  for (const [name, svc] of Object.entries(services)) {
    unknown(Object.keys(svc), COMPOSE_SERVICE_KEYS, `services.${name}`);
    for (const dep of Object.keys(svc.depends_on ?? {})) {
      if (!services[dep]) out.push(`compose.yaml services.${name}.depends_on: no service "${dep}"`);
    }
    for (const v of svc.volumes ?? []) {
      const source = String(v).split(':')[0];
      if (!/^[./~]/.test(source) && !volumes.includes(source)) {
        out.push(`compose.yaml services.${name}.volumes: volume "${source}" is not declared`);
      }
    }
  }
  for (const [name, needs] of Object.entries(env.SERVICE_ENV)) {
    const svc = services[name];
    const where = `compose.yaml services.${name}`;
    if (!svc) {
      out.push(`${where} is missing`);
      continue;
    }
    if (svc.build) unknown(Object.keys(svc.build), COMPOSE_BUILD_KEYS, `services.${name}.build`);
    if (svc.build?.dockerfile !== 'deploy/Dockerfile' || svc.build?.context !== '..') {
      out.push(`${where}.build must be { context: .., dockerfile: deploy/Dockerfile }`);
    }
    if (svc.build?.args?.SERVICE !== name) out.push(`${where}.build.args.SERVICE must be "${name}"`);
    if (!serviceExists(name)) out.push(`${where}: services/${name}/package.json does not exist`);
    const vars = Object.fromEntries(
      Object.entries(svc.environment ?? {}).map(([k, v]) => [k, withDefaults(String(v))]),
    );
    // The service secret signs every principal token: no default anyone could know.
    const serviceAuth = svc.environment?.SERVICE_AUTH_SECRET;
    if (serviceAuth !== undefined && !/^\$\{SERVICE_AUTH_SECRET:\?[^}]*\}$/.test(String(serviceAuth))) {
      out.push(`${where}.environment.SERVICE_AUTH_SECRET must be required from the shell: \${SERVICE_AUTH_SECRET:?…}, no default`);
    }
    for (const v of needs.required) if (!(v in vars)) out.push(`${where}.environment: ${name} needs ${v}`);
    const allowed = [...needs.required, ...needs.optional, ...env.RUNTIME_ENV];
    for (const v of Object.keys(vars)) {
      if (allowed.includes(v)) continue;
      const hint = closest(v, allowed);
      out.push(`${where}.environment: ${name} does not read ${v}${hint ? ` (did you mean ${hint}?)` : ''}`);
    }
    for (const [v, target] of Object.entries(needs.targets)) {
      if (vars[v] === undefined) continue;
      const address = env.parseServiceAddress(vars[v]);
      const targetPort = withDefaults(String(services[target]?.environment?.GRPC_PORT ?? ''));
      if (!address || address.service !== target || String(address.port) !== targetPort) {
        out.push(`${where}.environment.${v}=${vars[v]} must be ${target}:<its GRPC_PORT>`);
      }
    }
    if (
      vars.CREDENTIALS_KEYS !== undefined &&
      !isRequiredReference(vars.CREDENTIALS_KEYS) &&
      !credentialsKeysValid(vars.CREDENTIALS_KEYS)
    ) {
      out.push(`${where}.environment.CREDENTIALS_KEYS must be kid:base64(32 bytes)[,kid:...]`);
    }
  }
  out.push(...secretProblems(text, services), ...portProblems(services));
  if (!/^postgres:15(\b|$)/.test(services.postgres?.image ?? ''))
    out.push('compose.yaml services.postgres.image must be postgres:15');
  if (!(services.nats?.command ?? []).includes('-js'))
    out.push('compose.yaml services.nats.command must include -js (JetStream)');
  return out;
}

/** Variable names that hold secrets: none of them may have a value or a default in the file. */
export const SECRET_NAME = /(SECRET|PASSWORD|PASSWD|TOKEN|KEY|KEYS)$/;
/** Host addresses a published port may bind to by default. */
const LOOPBACK = ['127.0.0.1', '::1', '[::1]', 'localhost'];

/**
 * No secret ships with the file: every `${SECRET...}` reference is required
 * (`${NAME:?message}`), never defaulted (`${NAME:-value}`), and every secret
 * variable a service gets is such a reference, not a value written in the file.
 * @param {string} text compose.yaml
 * @param {Record<string, any>} services
 * @returns {string[]}
 */
export function secretProblems(text, services) {
  const out = [];
  const defaulted = new Set();
  for (const m of text.matchAll(/\$\{([A-Za-z0-9_]+)(:?-)[^}]*\}/g)) {
    if (SECRET_NAME.test(m[1]) && !defaulted.has(m[1])) {
      defaulted.add(m[1]);
      out.push(`compose.yaml ships a default for ${m[1]}; require it instead: \${${m[1]}:?set ${m[1]}}`);
    }
  }
  for (const [name, svc] of Object.entries(services)) {
    for (const [key, value] of Object.entries(svc?.environment ?? {})) {
      if (SECRET_NAME.test(key) && !isRequiredReference(String(value))) {
        out.push(
          `compose.yaml services.${name}.environment.${key} must come from the environment as \${${key}:?…}, not a value in the file`,
        );
      }
    }
  }
  return out;
}

/**
 * Published ports bind to the loopback interface unless the operator says
 * otherwise: "8080:8080" publishes on every interface.
 * @param {Record<string, any>} services
 * @returns {string[]}
 */
export function portProblems(services) {
  const out = [];
  for (const [name, svc] of Object.entries(services)) {
    for (const port of svc?.ports ?? []) {
      const where = `compose.yaml services.${name}.ports`;
      if (port !== null && typeof port === 'object') {
        const ip = withDefaults(String(port.host_ip ?? ''));
        if (!LOOPBACK.includes(ip)) out.push(`${where}: ${JSON.stringify(port)} must set host_ip: 127.0.0.1`);
        continue;
      }
      const spec = withDefaults(String(port));
      const m = /^(?:(\[[^\]]+\]|[^:[\]]+):)?(\d+(?:-\d+)?):(\d+(?:-\d+)?)(?:\/\w+)?$/.exec(spec);
      if (!m || !m[1] || !LOOPBACK.includes(m[1])) {
        out.push(
          `${where}: "${port}" must bind to 127.0.0.1 by default (e.g. "\${GATEWAY_BIND:-127.0.0.1}:8080:8080")`,
        );
      }
    }
  }
  return out;
}

// "${NAME:?message}" (or "${NAME?message}"): compose stops when NAME is unset.
function isRequiredReference(value) {
  return /^\$\{[A-Za-z0-9_]+:?\?[^}]*\}$/.test(value.trim());
}

// "${JWT_SECRET:-default}" -> "default": what the service sees when the variable is unset.
function withDefaults(value) {
  return value.replace(/\$\{[A-Z0-9_]+:?-([^}]*)\}/g, '$1');
}

function credentialsKeysValid(value) {
  return value.split(',').every((pair) => {
    const m = /^([A-Za-z0-9_-]+):([A-Za-z0-9+/=]+)$/.exec(pair);
    return m !== null && Buffer.from(m[2], 'base64').length === 32;
  });
}

/**
 * @param {string} text deploy/Dockerfile
 * @param {string} pnpmVersion from the root package.json "packageManager"
 * @returns {string[]}
 */
export function dockerfileProblems(text, pnpmVersion) {
  const out = [];
  if (!text.startsWith('# syntax=docker/dockerfile:1')) {
    out.push(
      'Dockerfile: first line must be a # syntax=docker/dockerfile:1.x directive (cache mounts need it)',
    );
  }
  if (!text.includes(`npm i -g pnpm@${pnpmVersion}`))
    out.push(`Dockerfile: must install pnpm@${pnpmVersion} (package.json packageManager)`);
  if (!/pnpm install --frozen-lockfile/.test(text))
    out.push('Dockerfile: pnpm install must use --frozen-lockfile');
  if (!/^ARG SERVICE$/m.test(text)) out.push('Dockerfile: needs ARG SERVICE');
  const stages = [...text.matchAll(/^FROM\s+\S+/gm)];
  if (stages.length < 2) out.push('Dockerfile: needs a build stage and a runtime stage');
  const finalStage = text.slice(text.lastIndexOf('\nFROM '));
  const user = /^USER\s+(\S+)/m.exec(finalStage)?.[1];
  if (!user || !/^[1-9][0-9]*(:[0-9]+)?$/.test(user)) {
    out.push('Dockerfile: the final stage must set a numeric non-root USER (runAsNonRoot needs a number)');
  }
  if (!/^CMD \["node", "dist\/main\.js"\]$/m.test(finalStage)) {
    out.push(
      'Dockerfile: the final stage must run CMD ["node", "dist/main.js"] (exec form, so node gets SIGTERM)',
    );
  }
  if (!/^COPY --from=build \/out /m.test(finalStage))
    out.push('Dockerfile: the runtime stage must copy only the pnpm deploy output (/out)');
  const nodeMajor = /node:(\d+)/.exec(text)?.[1];
  if (nodeMajor !== '20') out.push(`Dockerfile: base image must be node:20 (found node:${nodeMajor})`);
  return out;
}

/**
 * @param {string} text deploy/Dockerfile.dockerignore
 * @returns {string[]}
 */
export function dockerignoreProblems(text) {
  const out = [];
  const patterns = text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  const excluded = (path) => {
    let result = false;
    for (const p of patterns) {
      const negate = p.startsWith('!');
      if (globToRegExp(negate ? p.slice(1) : p).test(path)) result = !negate;
    }
    return result;
  };
  for (const path of ['node_modules', 'packages/plan/node_modules', '.git', 'services/gateway/dist']) {
    if (!excluded(path)) out.push(`Dockerfile.dockerignore must exclude ${path}`);
  }
  for (const path of NEEDED_IN_CONTEXT)
    if (excluded(path)) out.push(`Dockerfile.dockerignore must not exclude ${path}`);
  return out;
}

/**
 * Docker's matching: "**" spans any number of path segments, "*" and "?" stay
 * within one; a pattern that matches a directory excludes everything below it.
 * @param {string} pattern
 * @returns {RegExp}
 */
export function globToRegExp(pattern) {
  const body = pattern
    .replace(/^\/+/, '')
    .split(/(\*\*\/?|\*|\?)/)
    .map((part) => {
      if (part.startsWith('**')) return part.endsWith('/') ? '(?:.*/)?' : '.*';
      if (part === '*') return '[^/]*';
      if (part === '?') return '[^/]';
      return part.replace(/[.+^${}()|[\]\\]/g, '\\$&');
    })
    .join('');
  return new RegExp(`^${body}(?:/.*)?$`);
}
