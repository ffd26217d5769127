// Cross-references between rendered objects: do selectors select, do ports
// and probes point at declared container ports, do PDBs and HPAs target real
// workloads without contradicting them, do Ingress backends name real
// Service ports.

import { CLUSTER_SCOPED_KINDS, containersOf, podSpecOf, refOf, selects } from './objects.mjs';

/**
 * @typedef {{where: string, message: string}} Problem
 */

/**
 * @param {any[]} objects one rendered overlay
 * @returns {Problem[]}
 */
export function wiringProblems(objects) {
  const out = [];
  const add = (obj, message) => out.push({ where: refOf(obj), message });
  const seen = new Set();
  for (const obj of objects) {
    const ref = refOf(obj);
    if (seen.has(ref)) add(obj, 'defined more than once');
    seen.add(ref);
    if (!CLUSTER_SCOPED_KINDS.has(obj.kind) && !obj.metadata?.namespace) {
      add(
        obj,
        'has no namespace: it would land in whatever namespace kubectl is pointed at (set `namespace:` in the kustomization)',
      );
    }
  }
  const deployments = objects.filter((o) => o.kind === 'Deployment');
  const hpas = objects.filter((o) => o.kind === 'HorizontalPodAutoscaler');
  for (const d of deployments) checkDeployment(d, add);
  for (const s of objects.filter((o) => o.kind === 'Service')) checkService(s, deployments, add);
  for (const p of objects.filter((o) => o.kind === 'PodDisruptionBudget'))
    checkPdb(p, deployments, hpas, add);
  for (const h of hpas) checkHpa(h, deployments, add);
  const services = objects.filter((o) => o.kind === 'Service');
  for (const i of objects.filter((o) => o.kind === 'Ingress')) checkIngress(i, services, add);
  return out;
}

// Every backend of an Ingress names a Service in its namespace and a port that Service has.
function checkIngress(ing, services, add) {
  const backends = [];
  if (ing.spec?.defaultBackend) backends.push(['spec.defaultBackend', ing.spec.defaultBackend]);
  (ing.spec?.rules ?? []).forEach((rule, r) =>
    (rule.http?.paths ?? []).forEach((path, p) =>
      backends.push([`spec.rules[${r}].http.paths[${p}].backend`, path.backend]),
    ),
  );
  for (const [where, backend] of backends) {
    const ref = backend?.service;
    if (!ref) continue;
    const svc = services.find((s) => sameNamespace(s, ing) && s.metadata?.name === ref.name);
    if (!svc) {
      add(ing, `${where}.service.name "${ref.name}" is not a Service in this render`);
      continue;
    }
    const ok = (svc.spec?.ports ?? []).some((p) =>
      ref.port?.name !== undefined ? p.name === ref.port.name : p.port === ref.port?.number,
    );
    if (!ok) add(ing, `${where}.service.port ${JSON.stringify(ref.port)} is not a port of ${refOf(svc)}`);
  }
  const hosts = new Set((ing.spec?.rules ?? []).map((r) => r.host).filter(Boolean));
  (ing.spec?.tls ?? []).forEach((tls, i) => {
    if (!tls.secretName) add(ing, `spec.tls[${i}].secretName is required: the certificate's Secret`);
    for (const host of tls.hosts ?? []) {
      if (!hosts.has(host))
        add(
          ing,
          `spec.tls[${i}].hosts names "${host}", which no rule serves (rules: ${[...hosts].join(', ')})`,
        );
    }
  });
}

function sameNamespace(a, b) {
  return (a.metadata?.namespace ?? '') === (b.metadata?.namespace ?? '');
}

function checkDeployment(d, add) {
  const selector = d.spec?.selector ?? {};
  const labels = d.spec?.template?.metadata?.labels;
  if (selector.matchExpressions)
    add(d, 'spec.selector.matchExpressions is not supported by these checks; use matchLabels');
  if (!selects(selector.matchLabels, labels)) {
    add(d, 'spec.selector.matchLabels must be non-empty and match spec.template.metadata.labels');
  }
  for (const { container, path } of containersOf(podSpecOf(d))) {
    const declared = container.ports ?? [];
    const names = new Set(declared.map((p) => p.name).filter(Boolean));
    const numbers = new Set(declared.map((p) => p.containerPort));
    for (const kind of ['startupProbe', 'readinessProbe', 'livenessProbe']) {
      const probe = container[kind];
      if (!probe) continue;
      if (probe.grpc) {
        // The kubelet's gRPC probe takes a number only; it cannot resolve port names.
        if (!numbers.has(probe.grpc.port)) {
          add(
            d,
            `${path}.${kind}.grpc.port ${probe.grpc.port} is not a declared containerPort of ${container.name}`,
          );
        }
      }
      for (const action of ['httpGet', 'tcpSocket']) {
        const port = probe[action]?.port;
        if (port === undefined) continue;
        if (!(typeof port === 'string' ? names.has(port) : numbers.has(port))) {
          add(
            d,
            `${path}.${kind}.${action}.port ${JSON.stringify(port)} is not a declared port of ${container.name}`,
          );
        }
      }
    }
  }
}

function checkService(s, deployments, add) {
  const selector = s.spec?.selector;
  if (!selector || Object.keys(selector).length === 0) {
    add(s, 'spec.selector is empty: the Service would have no endpoints');
    return;
  }
  const backends = deployments.filter(
    (d) => sameNamespace(d, s) && selects(selector, d.spec?.template?.metadata?.labels),
  );
  if (backends.length === 0) {
    add(s, `spec.selector ${JSON.stringify(selector)} matches no Deployment's pod labels`);
    return;
  }
  (s.spec.ports ?? []).forEach((port, i) => {
    const target = port.targetPort ?? port.port;
    for (const d of backends) {
      const declared = containersOf(podSpecOf(d)).flatMap(({ container }) => container.ports ?? []);
      const ok = declared.some((p) =>
        typeof target === 'string' ? p.name === target : p.containerPort === target,
      );
      if (!ok)
        add(s, `spec.ports[${i}].targetPort ${JSON.stringify(target)} is not a port declared by ${refOf(d)}`);
    }
  });
}

function replicasOf(d, hpas) {
  const hpa = hpas.find(
    (h) =>
      sameNamespace(h, d) &&
      h.spec?.scaleTargetRef?.kind === d.kind &&
      h.spec?.scaleTargetRef?.name === d.metadata?.name,
  );
  return hpa ? (hpa.spec.minReplicas ?? 1) : (d.spec?.replicas ?? 1);
}

function checkPdb(p, deployments, hpas, add) {
  const selector = p.spec?.selector ?? {};
  const targets = deployments.filter(
    (d) => sameNamespace(d, p) && selects(selector.matchLabels, d.spec?.template?.metadata?.labels),
  );
  if (targets.length === 0) {
    add(p, `spec.selector ${JSON.stringify(selector)} matches no Deployment's pods`);
    return;
  }
  const { minAvailable, maxUnavailable } = p.spec;
  for (const d of targets) {
    const replicas = replicasOf(d, hpas);
    const blocks =
      maxUnavailable === 0 ||
      maxUnavailable === '0%' ||
      minAvailable === '100%' ||
      (Number.isInteger(minAvailable) && minAvailable >= replicas);
    if (blocks)
      add(
        p,
        `with ${replicas} replica(s) of ${refOf(d)} this budget never allows an eviction, so node drains hang`,
      );
  }
}

function checkHpa(h, deployments, add) {
  const ref = h.spec?.scaleTargetRef ?? {};
  const d = deployments.find(
    (x) => sameNamespace(x, h) && ref.kind === 'Deployment' && x.metadata?.name === ref.name,
  );
  if (!d) {
    add(h, `spec.scaleTargetRef ${ref.kind}/${ref.name} does not exist in this render`);
    return;
  }
  if ((h.spec.minReplicas ?? 1) > h.spec.maxReplicas)
    add(h, 'spec.minReplicas is greater than spec.maxReplicas');
  if (d.spec?.replicas !== undefined) {
    add(
      d,
      `spec.replicas is set although ${refOf(h)} scales it: every kubectl apply would reset the HPA's count (remove it in the overlay)`,
    );
  }
  const resources = (h.spec.metrics ?? []).filter((m) => m.type === 'Resource').map((m) => m.resource?.name);
  for (const resource of resources) {
    for (const { container, path } of containersOf(podSpecOf(d))) {
      if (!container.resources?.requests?.[resource]) {
        add(
          d,
          `${path}.resources.requests.${resource} is needed: ${refOf(h)} scales on ${resource} utilisation`,
        );
      }
    }
  }
}
