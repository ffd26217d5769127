// Network policy checks over one rendered overlay, generic over services:
//  - each namespace with Deployments has a default-deny policy;
//  - every Deployment's pods are admitted by some ingress rule, and every port
//    a Service sends to them is (a service added without its own
//    network-policy.yaml is refused here);
//  - every call the manifests configure (each service's *_URL targets from
//    lib/service-env.mjs and each ACTION_SERVICES entry) is allowed by the
//    caller's egress and the callee's ingress policies.

import { appName, envValuesOf } from './env-check.mjs';
import { connectionAllowed, ingressAdmitsPort, policyTypesOf } from './network-policy.mjs';
import { containersOf, podSpecOf, refOf, selects } from './objects.mjs';
import { parseServiceAddress, SERVICE_ENV } from './service-env.mjs';

/**
 * @param {any[]} objects one rendered overlay
 * @returns {Array<{where: string, message: string}>}
 */
export function networkProblems(objects) {
  const out = [];
  const add = (obj, message) => out.push({ where: refOf(obj), message });
  const policies = objects.filter((o) => o.kind === 'NetworkPolicy');
  const deployments = objects.filter((o) => o.kind === 'Deployment');
  const services = objects.filter((o) => o.kind === 'Service');
  const namespaceLabels = (ns) => ({
    ...(objects.find((o) => o.kind === 'Namespace' && o.metadata?.name === ns)?.metadata?.labels ?? {}),
    'kubernetes.io/metadata.name': ns,
  });
  for (const ns of new Set(deployments.map((d) => d.metadata?.namespace ?? ''))) {
    if (!policies.some((p) => (p.metadata?.namespace ?? '') === ns && isDefaultDeny(p))) {
      out.push({
        where: `namespace ${ns || '(none)'}`,
        message:
          'has no default-deny NetworkPolicy (podSelector: {}, policyTypes: [Ingress, Egress], no rules): every pod would accept any caller',
      });
    }
  }
  for (const d of deployments) {
    const pod = podOf(d);
    if (!pod.ports.some((port) => ingressAdmitsPort(policies, pod, port))) {
      add(
        d,
        `is reachable by no NetworkPolicy ingress rule: no policy admits any traffic to its pods (add k8s/base/${appName(d) ?? '<service>'}/network-policy.yaml naming its callers)`,
      );
      continue;
    }
    for (const { svc, index, port } of servicePortsTo(d, services)) {
      if (!ingressAdmitsPort(policies, pod, port)) {
        add(
          d,
          `${refOf(svc)} spec.ports[${index}] sends to containerPort ${port.containerPort}${port.name ? ` (${port.name})` : ''}, but no NetworkPolicy ingress rule admits traffic on it`,
        );
      }
    }
  }
  for (const d of deployments)
    checkCalls(d, { objects, deployments, services, policies, namespaceLabels, add });
  return out;
}

function isDefaultDeny(p) {
  const spec = p.spec ?? {};
  const types = policyTypesOf(p);
  const selectsAll =
    Object.keys(spec.podSelector?.matchLabels ?? {}).length === 0 &&
    !spec.podSelector?.matchExpressions?.length;
  return (
    selectsAll &&
    types.includes('Ingress') &&
    types.includes('Egress') &&
    !spec.ingress?.length &&
    !spec.egress?.length
  );
}

function podOf(d) {
  return {
    namespace: d.metadata?.namespace ?? '',
    labels: d.spec?.template?.metadata?.labels ?? {},
    ports: containersOf(podSpecOf(d)).flatMap(({ container }) => container.ports ?? []),
  };
}

// Every (Service, port) that sends traffic to d's pods, with the container port it lands on.
function servicePortsTo(d, services) {
  const pod = podOf(d);
  const out = [];
  for (const svc of services) {
    if ((svc.metadata?.namespace ?? '') !== pod.namespace || !selects(svc.spec?.selector, pod.labels))
      continue;
    (svc.spec?.ports ?? []).forEach((sp, index) => {
      const port = containerPortFor(pod, sp);
      if (port) out.push({ svc, index, port });
    });
  }
  return out;
}

function containerPortFor(pod, servicePort) {
  const target = servicePort.targetPort ?? servicePort.port;
  return pod.ports.find((p) => (typeof target === 'string' ? p.name === target : p.containerPort === target));
}

// The addresses a service is configured to call: its *_URL targets and each ACTION_SERVICES entry.
function callsOf(d, objects) {
  const env = envValuesOf(d, objects);
  const needs = SERVICE_ENV[appName(d)];
  if (!needs) return [];
  const calls = Object.keys(needs.targets)
    .filter((name) => env.get(name))
    .map((name) => ({ name, raw: env.get(name) }));
  // The shared ConfigMap gives ACTION_SERVICES to every pod; only the services that read it call them.
  const readsActions = [...needs.required, ...needs.optional].includes('ACTION_SERVICES');
  const actions = readsActions ? (env.get('ACTION_SERVICES') ?? '') : '';
  for (const entry of actions.split(',').filter((e) => e.trim())) {
    const [service, address] = entry.split('=').map((x) => x.trim());
    if (address) calls.push({ name: `ACTION_SERVICES ${service}`, raw: address });
  }
  return calls;
}

function checkCalls(d, { objects, deployments, services, policies, namespaceLabels, add }) {
  const caller = podOf(d);
  const who = appName(d) ?? d.metadata?.name;
  for (const { name, raw } of callsOf(d, objects)) {
    const address = parseServiceAddress(raw);
    // Malformed or unknown addresses are env-check's to report; other namespaces are not in this render.
    if (!address) continue;
    const namespace = address.namespace ?? caller.namespace;
    const svc = services.find(
      (s) => s.metadata?.name === address.service && (s.metadata?.namespace ?? '') === namespace,
    );
    const servicePort = svc?.spec?.ports?.find((p) => p.port === address.port);
    if (!servicePort) continue;
    for (const backend of deployments) {
      const callee = podOf(backend);
      if (callee.namespace !== namespace || !selects(svc.spec.selector, callee.labels)) continue;
      const port = containerPortFor(callee, servicePort);
      if (!port) continue;
      const verdict = connectionAllowed(policies, caller, callee, port, namespaceLabels);
      if (verdict.ok) continue;
      const target = `${refOf(backend)} port ${port.containerPort}`;
      add(
        d,
        verdict.side === 'egress'
          ? `${who} calls ${name}=${raw}, but no NetworkPolicy egress rule of its pods allows ${target}`
          : `${who} calls ${name}=${raw}, but no NetworkPolicy ingress rule of ${refOf(backend)} admits ${who}'s pods on port ${port.containerPort} (add them to its network-policy.yaml)`,
      );
    }
  }
}
