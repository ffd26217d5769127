// Small facts about Kubernetes objects shared by the renderer and the checks:
// identity, scope, where the pod template lives, label selection.

/** Kinds that live outside any namespace (the ones a kustomization here could plausibly hold). */
export const CLUSTER_SCOPED_KINDS = new Set([
  'Namespace',
  'ClusterRole',
  'ClusterRoleBinding',
  'CustomResourceDefinition',
  'PersistentVolume',
  'PriorityClass',
  'StorageClass',
  'IngressClass',
  'ValidatingWebhookConfiguration',
  'MutatingWebhookConfiguration',
]);

/** Workload kinds and the path of their pod spec. */
const POD_SPEC_PATHS = {
  Pod: ['spec'],
  Deployment: ['spec', 'template', 'spec'],
  StatefulSet: ['spec', 'template', 'spec'],
  DaemonSet: ['spec', 'template', 'spec'],
  ReplicaSet: ['spec', 'template', 'spec'],
  Job: ['spec', 'template', 'spec'],
  CronJob: ['spec', 'jobTemplate', 'spec', 'template', 'spec'],
};

/**
 * A stable, readable identity: "Kind/namespace/name" (or "Kind/name" when cluster-scoped).
 * @param {{kind?: string, metadata?: {name?: string, namespace?: string}}} obj
 * @returns {string}
 */
export function refOf(obj) {
  const kind = obj?.kind ?? '<no kind>';
  const name = obj?.metadata?.name ?? '<no name>';
  const ns = obj?.metadata?.namespace;
  return ns ? `${kind}/${ns}/${name}` : `${kind}/${name}`;
}

/**
 * The pod spec of a workload, or undefined for other kinds.
 * @param {any} obj
 * @returns {{spec: any, path: string} | undefined}
 */
export function podSpecOf(obj) {
  const path = POD_SPEC_PATHS[obj?.kind];
  if (!path) return undefined;
  let node = obj;
  for (const key of path) node = node?.[key];
  return node && typeof node === 'object' ? { spec: node, path: path.join('.') } : undefined;
}

/**
 * Every container of a pod spec (init containers included), with its field path.
 * @param {{spec: any, path: string} | undefined} pod
 * @returns {Array<{container: any, path: string}>}
 */
export function containersOf(pod) {
  // A workload without a pod template is reported by the schema check; nothing to walk here.
  if (!pod) return [];
  const out = [];
  for (const field of ['initContainers', 'containers']) {
    (pod.spec[field] ?? []).forEach((container, i) =>
      out.push({ container, path: `${pod.path}.${field}[${i}]` }),
    );
  }
  return out;
}

/**
 * True when every matchLabels pair of `selector` is present in `labels`.
 * matchExpressions are not used in our manifests and are reported by the caller.
 * @param {Record<string, string> | undefined} matchLabels
 * @param {Record<string, string> | undefined} labels
 * @returns {boolean}
 */
export function selects(matchLabels, labels) {
  const pairs = Object.entries(matchLabels ?? {});
  return pairs.length > 0 && pairs.every(([k, v]) => labels?.[k] === v);
}

/**
 * The Levenshtein-closest candidate within distance 3, for "did you mean" hints.
 * @param {string} word
 * @param {Iterable<string>} candidates
 * @returns {string | undefined}
 */
export function closest(word, candidates) {
  let best;
  let bestDistance = 4;
  for (const candidate of candidates) {
    const d = distance(word.toLowerCase(), candidate.toLowerCase());
    if (d < bestDistance) [best, bestDistance] = [candidate, d];
  }
  return best;
}

function distance(a, b) {
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[b.length];
}
