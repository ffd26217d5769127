// The cases of `node k8s/validate.mjs --self-test`: each breaks one thing in a
// clean render of overlays/dev (or names a known-bad fixture) and gives the
// problem the validator must report for it.

import { connectionAllowed, labelSelectorMatches, portsCover } from './network-policy.mjs';

const find = (objects, kind, name) => objects.find((o) => o.kind === kind && o.metadata.name === name);
const container = (objects, name) => find(objects, 'Deployment', name).spec.template.spec.containers[0];
const envOf = (objects, service) => container(objects, service).env;

/** Mutations of a clean dev render, each with the problem it must produce. */
export const MUTATION_CASES = [
  [
    'misspelled container key',
    (o) => (container(o, 'gateway').imagePullPolcy = 'Always'),
    /unknown key "imagePullPolcy" \(did you mean "imagePullPolicy"\?\)/,
  ],
  [
    'misspelled probe key',
    (o) => (container(o, 'planner').readinessProbe.periodSecond = 5),
    /readinessProbe: unknown key "periodSecond" \(did you mean "periodSeconds"\?\)/,
  ],
  [
    'Service selector mismatch',
    (o) => (find(o, 'Service', 'planner').spec.selector['app.kubernetes.io/name'] = 'planer'),
    /Service\/agent-factory\/planner.*matches no Deployment/,
  ],
  [
    'Service targetPort not declared',
    (o) => (find(o, 'Service', 'gateway').spec.ports[0].targetPort = 'web'),
    /targetPort "web" is not a port declared/,
  ],
  [
    'probe on an undeclared port',
    (o) => (container(o, 'planner').livenessProbe.grpc.port = 50052),
    /livenessProbe\.grpc\.port 50052 is not a declared containerPort/,
  ],
  [
    'Deployment selector vs template labels',
    (o) => (find(o, 'Deployment', 'orchestrator').spec.selector.matchLabels['app.kubernetes.io/name'] = 'x'),
    /matchLabels must be non-empty and match/,
  ],
  [
    'wrong type (kubernetes-models)',
    (o) => (find(o, 'Deployment', 'planner').spec.replicas = 'two'),
    /schema: spec\.replicas: must be integer/,
  ],
  [
    'required env var missing',
    (o) =>
      envOf(o, 'gateway').splice(
        envOf(o, 'gateway').findIndex((e) => e.name === 'JWT_SECRET'),
        1,
      ),
    /gateway needs JWT_SECRET/,
  ],
  [
    'secret given as a literal',
    (o) => (envOf(o, 'connector-runtime').find((e) => e.name === 'CREDENTIALS_KEYS').valueFrom = undefined),
    /CREDENTIALS_KEYS must come from a Secret/,
  ],
  [
    'misspelled ConfigMap key',
    (o) => renameKey(find(o, 'ConfigMap', 'af-config').data, 'NATS_URL', 'NATS_ULR'),
    /data\.NATS_ULR is read by no service \(did you mean NATS_URL\?\)/,
  ],
  [
    'misspelled env var name',
    (o) => envOf(o, 'orchestrator').push({ name: 'RUN_CONCURENCY', value: '4' }),
    /sets RUN_CONCURENCY, which orchestrator does not read \(did you mean RUN_CONCURRENCY\?\)/,
  ],
  [
    'port variable disagrees with containerPort',
    (o) => (find(o, 'ConfigMap', 'af-config').data.GRPC_PORT = '50052'),
    /GRPC_PORT=50052 but the containerPort named "grpc" is 50051/,
  ],
  [
    'service address names no Service',
    (o) => (find(o, 'ConfigMap', 'af-config').data.PLANNER_URL = 'planer:50051'),
    /PLANNER_URL=planer:50051 names Service "planer"/,
  ],
  [
    'service address on the wrong port',
    (o) => (find(o, 'ConfigMap', 'af-config').data.ORCHESTRATOR_URL = 'orchestrator:9000'),
    /Service orchestrator has no port 9000/,
  ],
  [
    'missing Deployment for a service',
    (o) => o.splice(o.indexOf(find(o, 'Deployment', 'connector-runtime')), 1),
    /no Deployment for service "connector-runtime"/,
  ],
  [
    'image tag latest',
    (o) => (container(o, 'planner').image = 'agent-factory/planner:latest'),
    /uses the tag "latest"/,
  ],
  [
    'root filesystem writable',
    (o) => (container(o, 'gateway').securityContext.readOnlyRootFilesystem = false),
    /readOnlyRootFilesystem must be true/,
  ],
  [
    'no memory limit',
    (o) => delete container(o, 'gateway').resources.limits.memory,
    /resources\.limits\.memory is required/,
  ],
  [
    'committed Secret',
    (o) =>
      o.push({
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'af-jwt', namespace: 'agent-factory' },
        stringData: { JWT_SECRET: 'x' },
      }),
    /Secrets are created by the operator/,
  ],
  [
    'object without namespace',
    (o) => delete find(o, 'ConfigMap', 'af-config').metadata.namespace,
    /ConfigMap\/af-config: has no namespace/,
  ],
  [
    'PDB that blocks every drain',
    (o) =>
      (find(o, 'PodDisruptionBudget', 'orchestrator').spec = {
        minAvailable: 2,
        selector: find(o, 'PodDisruptionBudget', 'orchestrator').spec.selector,
      }),
    /never allows an eviction/,
  ],
  [
    'HPA fighting spec.replicas',
    (o) => o.push(hpaFor('planner')),
    /spec\.replicas is set although HorizontalPodAutoscaler\/agent-factory\/planner scales it/,
  ],
  [
    'SIGNUP outside open|invite|closed',
    (o) => (find(o, 'ConfigMap', 'af-config').data.SIGNUP = 'invite-only'),
    /SIGNUP=invite-only must be one of open, invite, closed/,
  ],
  [
    'misspelled NetworkPolicy key',
    (o) => renameKey(find(o, 'NetworkPolicy', 'planner').spec, 'podSelector', 'podSelecter'),
    /NetworkPolicy\/agent-factory\/planner: spec: unknown key "podSelecter" \(did you mean "podSelector"\?\)/,
  ],
  [
    'misspelled Ingress key',
    (o) => renameKey(find(o, 'Ingress', 'gateway').spec, 'ingressClassName', 'ingresClassName'),
    /unknown key "ingresClassName" \(did you mean "ingressClassName"\?\)/,
  ],
  [
    'Ingress backend on a port the Service lacks',
    (o) => (find(o, 'Ingress', 'gateway').spec.rules[0].http.paths[0].backend.service.port = { name: 'web' }),
    /Ingress\/agent-factory\/gateway: spec\.rules\[0\]\.http\.paths\[0\]\.backend\.service\.port \{"name":"web"\} is not a port/,
  ],
  [
    'Ingress TLS for a host no rule serves',
    (o) =>
      (find(o, 'Ingress', 'gateway').spec.tls = [
        { hosts: ['api.example.com'], secretName: 'af-gateway-tls' },
      ]),
    /spec\.tls\[0\]\.hosts names "api\.example\.com", which no rule serves/,
  ],
  [
    'gateway readiness not on its HTTP server',
    (o) => (container(o, 'gateway').readinessProbe = { grpc: { port: 50051 } }),
    /gateway.*readinessProbe must be an httpGet of \/healthz/,
  ],
  [
    'no default-deny NetworkPolicy',
    (o) => o.splice(o.indexOf(find(o, 'NetworkPolicy', 'default-deny')), 1),
    /namespace agent-factory: has no default-deny NetworkPolicy/,
  ],
  [
    "a service's own NetworkPolicy missing",
    (o) => o.splice(o.indexOf(find(o, 'NetworkPolicy', 'planner')), 1),
    /Deployment\/agent-factory\/planner: Service\/agent-factory\/planner spec\.ports\[0\] sends to containerPort 50051 \(grpc\), but no NetworkPolicy ingress rule admits/,
  ],
  [
    'Deployment reachable by no NetworkPolicy ingress rule',
    (o) => {
      for (const name of ['approval', 'allow-metrics-scrape'])
        o.splice(o.indexOf(find(o, 'NetworkPolicy', name)), 1);
    },
    /Deployment\/agent-factory\/approval: is reachable by no NetworkPolicy ingress rule/,
  ],
  [
    'a caller missing from the callee policy',
    (o) => {
      const from = find(o, 'NetworkPolicy', 'orchestrator').spec.ingress[0].from;
      from.splice(
        from.findIndex((p) => p.podSelector?.matchLabels?.['app.kubernetes.io/name'] === 'approval'),
        1,
      );
    },
    /approval calls ORCHESTRATOR_URL=orchestrator:50051, but no NetworkPolicy ingress rule of Deployment\/agent-factory\/orchestrator admits approval's pods on port 50051/,
  ],
  [
    'egress to the other services blocked',
    (o) => o.splice(o.indexOf(find(o, 'NetworkPolicy', 'allow-platform-egress')), 1),
    /gateway calls PLANNER_URL=planner:50051, but no NetworkPolicy egress rule of its pods allows Deployment\/agent-factory\/planner port 50051/,
  ],
  [
    'a new action service that does not admit the orchestrator',
    (o) => {
      o.push(...newService(o, 'reporter', ['gateway']));
      find(o, 'ConfigMap', 'af-config').data.ACTION_SERVICES += ',reporter=reporter:50051';
    },
    /orchestrator calls ACTION_SERVICES reporter=reporter:50051, but no NetworkPolicy ingress rule of Deployment\/agent-factory\/reporter admits orchestrator's pods/,
  ],
];

/** Known-bad fixture directories (under k8s/fixtures/) rendered like real overlays. */
export const FIXTURE_CASES = [
  ['fixture misspelled-key', 'misspelled-key', /containers\[0\]: unknown key "imagePullPolcy"/],
  [
    'fixture selector-mismatch',
    'selector-mismatch',
    /Service\/agent-factory\/gateway: spec\.selector .*matches no Deployment/,
  ],
  [
    'fixture unreachable-deployment',
    'unreachable-deployment',
    /Deployment\/agent-factory\/reporter: is reachable by no NetworkPolicy ingress rule/,
  ],
];

/**
 * NetworkPolicy semantics on a clean dev render: each returns undefined when
 * the evaluator answers as Kubernetes would, else what it got.
 */
export const POLICY_CASES = [
  [
    'a namespace labelled agent-factory.io/grpc-peer reaches the planner, an unlabelled one does not',
    (o) => {
      const { policies, pod, labelsOf } = policyWorld(o);
      const plugin = { namespace: 'team-x', labels: { app: 'plugin' }, ports: [] };
      const planner = pod('planner');
      const grpc = planner.ports.find((p) => p.name === 'grpc');
      const open = connectionAllowed(
        policies,
        plugin,
        planner,
        grpc,
        labelsOf({ 'agent-factory.io/grpc-peer': 'true' }),
      );
      const closed = connectionAllowed(policies, plugin, planner, grpc, labelsOf({}));
      return open.ok && !closed.ok && closed.side === 'ingress'
        ? undefined
        : `got ${JSON.stringify([open, closed])}`;
    },
  ],
  [
    'the monitoring namespace reaches the metrics port, not the gRPC port',
    (o) => {
      const { policies, pod, labelsOf } = policyWorld(o);
      const prometheus = { namespace: 'monitoring', labels: { app: 'prometheus' }, ports: [] };
      const orchestrator = pod('orchestrator');
      const port = (name) => orchestrator.ports.find((p) => p.name === name);
      const got = ['metrics', 'grpc'].map(
        (n) => connectionAllowed(policies, prometheus, orchestrator, port(n), labelsOf({})).ok,
      );
      return JSON.stringify(got) === '[true,false]' ? undefined : `got ${JSON.stringify(got)}`;
    },
  ],
  [
    'the gateway may call the planner but the planner may not call the gateway',
    (o) => {
      const { policies, pod, labelsOf } = policyWorld(o);
      const [gateway, planner] = [pod('gateway'), pod('planner')];
      const grpcOf = (p) => p.ports.find((x) => x.name === 'grpc');
      const got = [
        connectionAllowed(policies, gateway, planner, grpcOf(planner), labelsOf({})),
        connectionAllowed(policies, planner, gateway, grpcOf(gateway), labelsOf({})),
      ];
      return got[0].ok && !got[1].ok ? undefined : `got ${JSON.stringify(got)}`;
    },
  ],
  [
    'selector expressions, port ranges, protocols and named ports',
    () => {
      const sel = {
        matchExpressions: [
          { key: 'tier', operator: 'In', values: ['api'] },
          { key: 'debug', operator: 'DoesNotExist' },
          { key: 'zone', operator: 'NotIn', values: ['a'] },
        ],
      };
      const got = [
        labelSelectorMatches(sel, { tier: 'api' }),
        labelSelectorMatches(sel, { tier: 'api', debug: '1' }),
        labelSelectorMatches(sel, { tier: 'api', zone: 'a' }),
        labelSelectorMatches({}, {}),
        portsCover([{ port: 50000, endPort: 50100 }], { containerPort: 50051 }),
        portsCover([{ port: 50000, endPort: 50010 }], { containerPort: 50051 }),
        portsCover([{ protocol: 'UDP', port: 50051 }], { containerPort: 50051 }),
        portsCover([{ port: 'grpc' }], { containerPort: 50051, name: 'grpc' }),
        portsCover([{ port: 'grpc' }], { containerPort: 50051, name: 'metrics' }),
        portsCover(undefined, { containerPort: 1 }),
      ];
      const want = [true, false, false, true, true, false, false, true, false, true];
      return JSON.stringify(got) === JSON.stringify(want) ? undefined : `got ${JSON.stringify(got)}`;
    },
  ],
];

function policyWorld(objects) {
  const policies = objects.filter((x) => x.kind === 'NetworkPolicy');
  const pod = (name) => {
    const d = find(objects, 'Deployment', name);
    return {
      namespace: d.metadata.namespace,
      labels: d.spec.template.metadata.labels,
      ports: d.spec.template.spec.containers.flatMap((c) => c.ports ?? []),
    };
  };
  // Namespace labels as the API server sets them, plus `extra` on every namespace but ours.
  const labelsOf = (extra) => (ns) =>
    ns === 'agent-factory'
      ? { ...find(objects, 'Namespace', 'agent-factory').metadata.labels, 'kubernetes.io/metadata.name': ns }
      : { ...extra, 'kubernetes.io/metadata.name': ns };
  return { policies, pod, labelsOf };
}

function renameKey(obj, from, to) {
  obj[to] = obj[from];
  delete obj[from];
}

// A copy of the planner's Deployment, Service and NetworkPolicy under another name, admitting `callers`.
function newService(objects, name, callers) {
  const rename = (obj) => {
    const copy = structuredClone(obj);
    copy.metadata.name = name;
    const relabel = (labels) => labels && (labels['app.kubernetes.io/name'] = name);
    relabel(copy.metadata.labels);
    relabel(copy.spec.selector?.matchLabels ?? copy.spec.selector);
    relabel(copy.spec.template?.metadata?.labels);
    relabel(copy.spec.podSelector?.matchLabels);
    return copy;
  };
  const policy = rename(find(objects, 'NetworkPolicy', 'planner'));
  policy.spec.ingress[0].from = callers.map((c) => ({
    podSelector: { matchLabels: { 'app.kubernetes.io/name': c } },
  }));
  return [
    rename(find(objects, 'Deployment', 'planner')),
    rename(find(objects, 'Service', 'planner')),
    policy,
  ];
}

function hpaFor(name) {
  return {
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata: { name, namespace: 'agent-factory' },
    spec: {
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name },
      minReplicas: 2,
      maxReplicas: 4,
    },
  };
}
