// The cases of `node k8s/validate.mjs --self-test`: each breaks one thing in a
// clean render of overlays/dev (or names a known-bad fixture) and gives the
// problem the validator must report for it.

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
];

/** Known-bad fixture directories (under k8s/fixtures/) rendered like real overlays. */
export const FIXTURE_CASES = [
  ['fixture misspelled-key', 'misspelled-key', /containers\[0\]: unknown key "imagePullPolcy"/],
  [
    'fixture selector-mismatch',
    'selector-mismatch',
    /Service\/agent-factory\/gateway: spec\.selector .*matches no Deployment/,
  ],
];

function renameKey(obj, from, to) {
  obj[to] = obj[from];
  delete obj[from];
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
