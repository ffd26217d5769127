// NetworkPolicy semantics for the validator: which policies isolate a pod, and
// whether they let a given peer reach a given port. Follows the Kubernetes
// rules: a pod is isolated for a direction once any policy of that type
// selects it, and then only the union of those policies' rules is allowed.
// Traffic is only possible when the source's egress and the destination's
// ingress both allow it.
//
// Scope (what our manifests use): pods are identified by namespace and labels;
// ipBlock peers are treated as matching no pod (they are meant for addresses
// outside the cluster, and whether they match pod IPs depends on the CNI).

/**
 * @typedef {object} Pod
 * @property {string} namespace
 * @property {Record<string, string>} labels
 * @property {Array<{name?: string, containerPort: number, protocol?: string}>} ports declared container ports
 */

/**
 * Label-selector semantics: matchLabels and matchExpressions must all hold;
 * an empty selector selects everything.
 * @param {{matchLabels?: Record<string, string>, matchExpressions?: any[]} | undefined} selector
 * @param {Record<string, string> | undefined} labels
 */
export function labelSelectorMatches(selector, labels = {}) {
  const byLabel = Object.entries(selector?.matchLabels ?? {}).every(([k, v]) => labels[k] === v);
  const byExpression = (selector?.matchExpressions ?? []).every(({ key, operator, values = [] }) => {
    const has = Object.hasOwn(labels, key);
    if (operator === 'In') return has && values.includes(labels[key]);
    if (operator === 'NotIn') return !has || !values.includes(labels[key]);
    if (operator === 'Exists') return has;
    if (operator === 'DoesNotExist') return !has;
    return false;
  });
  return byLabel && byExpression;
}

/** The policy types a policy applies to (Ingress always, Egress when it has egress rules, unless listed). */
export function policyTypesOf(policy) {
  const spec = policy.spec ?? {};
  return spec.policyTypes ?? ['Ingress', ...(spec.egress ? ['Egress'] : [])];
}

/**
 * The policies of `direction` that select `pod`.
 * @param {any[]} policies
 * @param {Pod} pod
 * @param {'Ingress'|'Egress'} direction
 */
export function policiesSelecting(policies, pod, direction) {
  return policies.filter(
    (p) =>
      (p.metadata?.namespace ?? '') === pod.namespace &&
      policyTypesOf(p).includes(direction) &&
      labelSelectorMatches(p.spec?.podSelector, pod.labels),
  );
}

/**
 * Does a rule's `ports` list cover `port` of `target` (the pod whose port names count)?
 * @param {any[] | undefined} rulePorts
 * @param {{containerPort: number, name?: string, protocol?: string}} port
 */
export function portsCover(rulePorts, port) {
  if (!rulePorts || rulePorts.length === 0) return true;
  const protocol = port.protocol ?? 'TCP';
  return rulePorts.some((p) => {
    if ((p.protocol ?? 'TCP') !== protocol) return false;
    if (p.port === undefined) return true;
    if (typeof p.port === 'string') return p.port === port.name;
    return p.endPort === undefined
      ? p.port === port.containerPort
      : port.containerPort >= p.port && port.containerPort <= p.endPort;
  });
}

/**
 * Does a rule's peer list (`from` / `to`) include `other`? Peers are read in the policy's namespace.
 * @param {any[] | undefined} peers
 * @param {string} policyNamespace
 * @param {Pod} other
 * @param {(namespace: string) => Record<string, string>} namespaceLabels
 */
export function peersInclude(peers, policyNamespace, other, namespaceLabels) {
  if (!peers || peers.length === 0) return true;
  return peers.some((peer) => {
    if (peer.ipBlock) return false;
    if (peer.namespaceSelector) {
      return (
        labelSelectorMatches(peer.namespaceSelector, namespaceLabels(other.namespace)) &&
        labelSelectorMatches(peer.podSelector, other.labels)
      );
    }
    return other.namespace === policyNamespace && labelSelectorMatches(peer.podSelector, other.labels);
  });
}

/**
 * Whether `from` may open a connection to `port` of `to`, and if not, which side drops it.
 * @param {any[]} policies every NetworkPolicy of the render
 * @param {Pod} from
 * @param {Pod} to
 * @param {{containerPort: number, name?: string, protocol?: string}} port a declared port of `to`
 * @param {(namespace: string) => Record<string, string>} namespaceLabels
 * @returns {{ok: true} | {ok: false, side: 'egress' | 'ingress'}}
 */
export function connectionAllowed(policies, from, to, port, namespaceLabels) {
  const egress = policiesSelecting(policies, from, 'Egress');
  const egressOk =
    egress.length === 0 ||
    egress.some((p) =>
      (p.spec.egress ?? []).some(
        (rule) =>
          portsCover(rule.ports, port) && peersInclude(rule.to, p.metadata.namespace, to, namespaceLabels),
      ),
    );
  if (!egressOk) return { ok: false, side: 'egress' };
  const ingress = policiesSelecting(policies, to, 'Ingress');
  const ingressOk =
    ingress.length === 0 ||
    ingress.some((p) =>
      (p.spec.ingress ?? []).some(
        (rule) =>
          portsCover(rule.ports, port) &&
          peersInclude(rule.from, p.metadata.namespace, from, namespaceLabels),
      ),
    );
  return ingressOk ? { ok: true } : { ok: false, side: 'ingress' };
}

/**
 * Is `port` of `pod` admitted by some ingress rule (from any peer at all)?
 * @param {any[]} policies
 * @param {Pod} pod
 * @param {{containerPort: number, name?: string, protocol?: string}} port
 */
export function ingressAdmitsPort(policies, pod, port) {
  return policiesSelecting(policies, pod, 'Ingress').some((p) =>
    // A rule admits someone on the port whatever its peers (an empty `from` admits everyone).
    (p.spec.ingress ?? []).some((rule) => portsCover(rule.ports, port)),
  );
}
