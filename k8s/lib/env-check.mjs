// Does every service get every variable its config.ts needs, from the right
// kind of source, with values that agree with the rest of the manifests?

import { closest, containersOf, podSpecOf, refOf, selects } from './objects.mjs';
import { knownVariables, parseServiceAddress, RUNTIME_ENV, SERVICE_ENV } from './service-env.mjs';

const LOG_LEVELS = new Set(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']);
const POSITIVE_INTEGER_VARS = new Set(['JWT_TTL_SECONDS', 'RUN_LEASE_MS', 'RUN_CONCURRENCY']);
/** Variables with a closed set of values (a typo would stop the service at start). */
const ENUM_VARS = { SIGNUP: ['open', 'invite', 'closed'] };

/**
 * @param {any[]} objects one rendered overlay
 * @returns {Array<{where: string, message: string}>}
 */
export function envProblems(objects) {
  const out = [];
  const configMaps = objects.filter((o) => o.kind === 'ConfigMap');
  const deployments = objects.filter((o) => o.kind === 'Deployment');
  for (const name of Object.keys(SERVICE_ENV)) {
    if (!deployments.some((d) => appName(d) === name)) {
      out.push({
        where: 'render',
        message: `no Deployment for service "${name}" (label app.kubernetes.io/name=${name})`,
      });
    }
  }
  const sharedConfigMaps = new Set();
  for (const d of deployments) {
    const service = appName(d);
    const needs = SERVICE_ENV[service];
    if (!needs) continue;
    const add = (message) => out.push({ where: refOf(d), message });
    const entry = containersOf(podSpecOf(d)).find(({ container }) => container.name === service);
    if (!entry) {
      add(`no container named "${service}"`);
      continue;
    }
    const env = resolveEnv(entry, d, configMaps, add, sharedConfigMaps);
    checkService(service, needs, entry, env, { objects, deployments, d, add });
  }
  for (const cm of configMaps.filter((c) => sharedConfigMaps.has(refOf(c)))) {
    const known = knownVariables();
    for (const key of Object.keys(cm.data ?? {})) {
      if (!known.has(key)) {
        const hint = closest(key, known);
        out.push({
          where: refOf(cm),
          message: `data.${key} is read by no service${hint ? ` (did you mean ${hint}?)` : ''}`,
        });
      }
    }
  }
  return out;
}

/**
 * The environment values one Deployment's service container gets (ConfigMap
 * and literal values; Secret and field references have no value here).
 * @param {any} d a Deployment
 * @param {any[]} objects the render it belongs to
 * @returns {Map<string, string | undefined>}
 */
export function envValuesOf(d, objects) {
  const service = appName(d);
  const entry = containersOf(podSpecOf(d)).find(({ container }) => container.name === service);
  if (!entry) return new Map();
  const configMaps = objects.filter((o) => o.kind === 'ConfigMap');
  const env = resolveEnv(entry, d, configMaps, () => undefined, new Set());
  return new Map([...env].map(([name, v]) => [name, v.value]));
}

export function appName(d) {
  return d.spec?.template?.metadata?.labels?.['app.kubernetes.io/name'];
}

// Kubernetes semantics: envFrom first, then env entries override.
function resolveEnv({ container, path }, d, configMaps, add, sharedConfigMaps) {
  const env = new Map();
  const findCm = (name) =>
    configMaps.find((c) => c.metadata?.name === name && c.metadata?.namespace === d.metadata?.namespace);
  (container.envFrom ?? []).forEach((src, i) => {
    if (src.secretRef) {
      add(
        `${path}.envFrom[${i}].secretRef: map secret keys one by one with env[].valueFrom.secretKeyRef so the needed keys are visible`,
      );
      return;
    }
    const cm = findCm(src.configMapRef?.name);
    if (!cm) {
      if (!src.configMapRef?.optional)
        add(`${path}.envFrom[${i}]: ConfigMap "${src.configMapRef?.name}" is not in this render`);
      return;
    }
    sharedConfigMaps.add(refOf(cm));
    for (const [key, value] of Object.entries(cm.data ?? {})) {
      env.set(`${src.prefix ?? ''}${key}`, { source: `ConfigMap ${cm.metadata.name}`, value: String(value) });
    }
  });
  const seen = new Set();
  (container.env ?? []).forEach((e, i) => {
    if (seen.has(e.name)) add(`${path}.env[${i}]: ${e.name} is set twice`);
    seen.add(e.name);
    const from = e.valueFrom;
    if (!from)
      return env.set(e.name, {
        source: 'literal',
        value: e.value === undefined ? '' : String(e.value),
        explicit: true,
      });
    if (from.secretKeyRef)
      return env.set(e.name, { source: 'secret', secret: from.secretKeyRef, explicit: true });
    if (from.configMapKeyRef) {
      const { name, key, optional } = from.configMapKeyRef;
      const cm = findCm(name);
      const value = cm?.data?.[key];
      if (value === undefined && !optional)
        add(`${path}.env[${i}] (${e.name}): ConfigMap "${name}" has no key "${key}" in this render`);
      return env.set(e.name, { source: `ConfigMap ${name}`, value, explicit: true });
    }
    return env.set(e.name, { source: from.fieldRef ? 'field' : 'resource', explicit: true });
  });
  return env;
}

function checkService(service, needs, { container, path }, env, ctx) {
  const { add } = ctx;
  for (const name of needs.required) {
    if (!env.has(name))
      add(`${service} needs ${name} (services/${service}/src/config.ts) but ${path} does not set it`);
  }
  for (const name of needs.secret) {
    const v = env.get(name);
    if (v && v.source !== 'secret')
      add(`${name} must come from a Secret (valueFrom.secretKeyRef), not from ${v.source}`);
  }
  const allowed = new Set([...needs.required, ...needs.optional, ...RUNTIME_ENV]);
  for (const [name, v] of env) {
    if (v.explicit && !allowed.has(name)) {
      const hint = closest(name, allowed);
      add(`${path} sets ${name}, which ${service} does not read${hint ? ` (did you mean ${hint}?)` : ''}`);
    }
  }
  const value = (name) => env.get(name)?.value;
  for (const [name, portName] of Object.entries(needs.ports)) {
    const declared = (container.ports ?? []).find((p) => p.name === portName);
    if (!declared) add(`${path} declares no containerPort named "${portName}" (for ${name})`);
    else if (value(name) !== undefined && Number(value(name)) !== declared.containerPort) {
      add(`${name}=${value(name)} but the containerPort named "${portName}" is ${declared.containerPort}`);
    }
  }
  for (const [name, target] of Object.entries(needs.targets)) {
    if (value(name) !== undefined) checkTarget(name, value(name), target, ctx);
  }
  if (value('LOG_LEVEL') !== undefined && !LOG_LEVELS.has(value('LOG_LEVEL'))) {
    add(`LOG_LEVEL=${value('LOG_LEVEL')} is not one of ${[...LOG_LEVELS].join(', ')}`);
  }
  if (value('NATS_URL') !== undefined && !/^(nats|tls):\/\/[^\s]+$/.test(value('NATS_URL'))) {
    add(`NATS_URL=${value('NATS_URL')} must be a nats:// (or tls://) URL`);
  }
  for (const [name, allowed] of Object.entries(ENUM_VARS)) {
    if (value(name) !== undefined && !allowed.includes(value(name)))
      add(`${name}=${value(name)} must be one of ${allowed.join(', ')}`);
  }
  for (const name of POSITIVE_INTEGER_VARS) {
    if (value(name) !== undefined && !/^[1-9][0-9]*$/.test(value(name)))
      add(`${name}=${value(name)} must be a positive integer`);
  }
}

// PLANNER_URL=planner:50051 must name a Service in reach whose pods are the planner's.
function checkTarget(name, raw, target, { objects, deployments, d, add }) {
  const address = parseServiceAddress(raw);
  if (!address) return add(`${name}=${raw} must be host:port of a Service (e.g. ${target}:50051)`);
  const namespace = address.namespace ?? d.metadata?.namespace;
  const svc = objects.find(
    (o) =>
      o.kind === 'Service' && o.metadata?.name === address.service && o.metadata?.namespace === namespace,
  );
  if (!svc)
    return add(
      `${name}=${raw} names Service "${address.service}" in namespace "${namespace}", which is not in this render`,
    );
  if (!(svc.spec?.ports ?? []).some((p) => p.port === address.port)) {
    add(`${name}=${raw}: Service ${address.service} has no port ${address.port}`);
  }
  const backs = deployments.filter(
    (x) =>
      x.metadata?.namespace === namespace && selects(svc.spec?.selector, x.spec?.template?.metadata?.labels),
  );
  if (!backs.some((x) => appName(x) === target))
    add(`${name}=${raw}: Service ${address.service} does not select the ${target} pods`);
}
