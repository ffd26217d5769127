// House rules for what we run: non-root, read-only root filesystem, no
// privilege escalation, resource requests and limits, gRPC health probes
// (readiness on the HTTP server for a service that has one: that is what its
// traffic goes to), pinned image tags, and no Secret values in the repository.

import { containersOf, podSpecOf, refOf } from './objects.mjs';
import { splitImage } from './kustomize-lite.mjs';
import { SERVICE_ENV } from './service-env.mjs';

/**
 * @param {any[]} objects one rendered overlay
 * @returns {Array<{where: string, message: string}>}
 */
export function policyProblems(objects) {
  const out = [];
  for (const obj of objects) {
    const add = (message) => out.push({ where: refOf(obj), message });
    if (obj.kind === 'Secret') {
      add(
        'Secrets are created by the operator (see k8s/README.md), never committed: reference them with secretKeyRef',
      );
    }
    const pod = podSpecOf(obj);
    if (pod)
      checkPod(pod, add, SERVICE_ENV[obj.spec?.template?.metadata?.labels?.['app.kubernetes.io/name']]);
  }
  return out;
}

function checkPod(pod, add, service) {
  const podSc = pod.spec.securityContext ?? {};
  if (pod.spec.automountServiceAccountToken !== false) {
    add(`${pod.path}.automountServiceAccountToken must be false: no service calls the Kubernetes API`);
  }
  for (const { container, path } of containersOf(pod)) {
    const sc = container.securityContext ?? {};
    const runAsNonRoot = sc.runAsNonRoot ?? podSc.runAsNonRoot;
    const runAsUser = sc.runAsUser ?? podSc.runAsUser;
    if (runAsNonRoot !== true) add(`${path}: runAsNonRoot must be true (container or pod securityContext)`);
    if (runAsUser === 0) add(`${path}: runAsUser must not be 0`);
    if (sc.readOnlyRootFilesystem !== true)
      add(`${path}.securityContext.readOnlyRootFilesystem must be true`);
    if (sc.allowPrivilegeEscalation !== false)
      add(`${path}.securityContext.allowPrivilegeEscalation must be false`);
    if (sc.privileged === true) add(`${path}.securityContext.privileged must not be true`);
    if (!(sc.capabilities?.drop ?? []).includes('ALL'))
      add(`${path}.securityContext.capabilities.drop must include ALL`);
    const { requests = {}, limits = {} } = container.resources ?? {};
    for (const r of ['cpu', 'memory']) {
      if (requests[r] === undefined) add(`${path}.resources.requests.${r} is required`);
      if (limits[r] === undefined) add(`${path}.resources.limits.${r} is required`);
    }
    if (!container.livenessProbe?.grpc)
      add(`${path}.livenessProbe must be a grpc probe (every service serves grpc.health.v1)`);
    const ready = container.readinessProbe;
    if (service?.http) {
      if (ready?.httpGet?.path !== '/healthz')
        add(
          `${path}.readinessProbe must be an httpGet of /healthz: traffic goes to the HTTP server, so readiness asks it`,
        );
    } else if (!ready?.grpc) {
      add(`${path}.readinessProbe must be a grpc probe (every service serves grpc.health.v1)`);
    }
    checkImage(container.image, path, add);
  }
}

function checkImage(ref, path, add) {
  if (typeof ref !== 'string' || ref === '') return add(`${path}.image is required`);
  const image = splitImage(ref);
  if (!image.tag && !image.digest) {
    add(`${path}.image "${ref}" has no tag: each overlay pins one with \`images:\` in its kustomization`);
  } else if (image.tag === 'latest' && !image.digest) {
    add(`${path}.image "${ref}" uses the tag "latest": pin a version so rollouts are reproducible`);
  }
}
