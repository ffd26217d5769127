// Allowed keys for the object kinds our manifests use, as JSON Schemas with
// `additionalProperties: false`. kubernetes-models accepts unknown keys (and the
// API server would silently drop them), so a misspelled `imagePullPolcy` or
// `readinesProbe` would otherwise pass. Types are not repeated here: they are
// kubernetes-models' job. Each shape names the kubernetes-models type it
// mirrors, and `--self-test` checks every key list against that type's
// declaration, so the lists cannot drift or hold a typo themselves.
// `status` is left out on purpose: it is written by the cluster, never by us.

/** Any value; its keys are not checked further. */
const ANY = {};

/** Every shape with the kubernetes-models type it mirrors, for the self-test. */
export const SHAPES = [];

/**
 * @param {string} model "apps/v1/DeploymentSpec" or "meta/v1/ObjectMeta" (apimachinery)
 * @param {Record<string, object>} properties allowed keys and their sub-schemas
 */
function shape(model, properties) {
  const schema = { type: 'object', properties, additionalProperties: false };
  SHAPES.push({ model, keys: Object.keys(properties), schema });
  return schema;
}

const listOf = (items) => ({ type: 'array', items });
const keys = (names, overrides = {}) => Object.fromEntries(names.map((n) => [n, overrides[n] ?? ANY]));

const labelSelector = shape(
  'meta/v1/LabelSelector',
  keys(['matchExpressions', 'matchLabels'], {
    matchExpressions: listOf(shape('meta/v1/LabelSelectorRequirement', keys(['key', 'operator', 'values']))),
  }),
);

// prettier-ignore
const metadata = shape('meta/v1/ObjectMeta', keys([
  'annotations', 'creationTimestamp', 'deletionGracePeriodSeconds', 'deletionTimestamp', 'finalizers',
  'generateName', 'generation', 'labels', 'managedFields', 'name', 'namespace', 'ownerReferences',
  'resourceVersion', 'selfLink', 'uid',
]));

const top = (model, spec, extra = {}) =>
  shape(model, { apiVersion: ANY, kind: ANY, metadata, ...(spec ? { spec } : {}), ...extra });

// --- pod template ----------------------------------------------------------

const seccompProfile = shape('v1/SeccompProfile', keys(['localhostProfile', 'type']));
// prettier-ignore
const containerSecurityContext = shape('v1/SecurityContext', keys([
  'allowPrivilegeEscalation', 'appArmorProfile', 'capabilities', 'privileged', 'procMount',
  'readOnlyRootFilesystem', 'runAsGroup', 'runAsNonRoot', 'runAsUser', 'seLinuxOptions', 'seccompProfile',
  'windowsOptions',
], { capabilities: shape('v1/Capabilities', keys(['add', 'drop'])), seccompProfile }));
// prettier-ignore
const podSecurityContext = shape('v1/PodSecurityContext', keys([
  'appArmorProfile', 'fsGroup', 'fsGroupChangePolicy', 'runAsGroup', 'runAsNonRoot', 'runAsUser',
  'seLinuxChangePolicy', 'seLinuxOptions', 'seccompProfile', 'supplementalGroups', 'supplementalGroupsPolicy',
  'sysctls', 'windowsOptions',
], { seccompProfile }));

const httpGet = shape('v1/HTTPGetAction', keys(['host', 'httpHeaders', 'path', 'port', 'scheme']));
const tcpSocket = shape('v1/TCPSocketAction', keys(['host', 'port']));
const exec = shape('v1/ExecAction', keys(['command']));
// prettier-ignore
const probe = shape('v1/Probe', keys([
  'exec', 'failureThreshold', 'grpc', 'httpGet', 'initialDelaySeconds', 'periodSeconds', 'successThreshold',
  'tcpSocket', 'terminationGracePeriodSeconds', 'timeoutSeconds',
], { exec, grpc: shape('v1/GRPCAction', keys(['port', 'service'])), httpGet, tcpSocket }));
const lifecycleHandler = shape(
  'v1/LifecycleHandler',
  keys(['exec', 'httpGet', 'sleep', 'tcpSocket'], {
    exec,
    httpGet,
    tcpSocket,
    sleep: shape('v1/SleepAction', keys(['seconds'])),
  }),
);
const lifecycle = shape(
  'v1/Lifecycle',
  keys(['postStart', 'preStop', 'stopSignal'], { postStart: lifecycleHandler, preStop: lifecycleHandler }),
);

const envVarSource = shape(
  'v1/EnvVarSource',
  keys(['configMapKeyRef', 'fieldRef', 'fileKeyRef', 'resourceFieldRef', 'secretKeyRef'], {
    configMapKeyRef: shape('v1/ConfigMapKeySelector', keys(['key', 'name', 'optional'])),
    fieldRef: shape('v1/ObjectFieldSelector', keys(['apiVersion', 'fieldPath'])),
    resourceFieldRef: shape('v1/ResourceFieldSelector', keys(['containerName', 'divisor', 'resource'])),
    secretKeyRef: shape('v1/SecretKeySelector', keys(['key', 'name', 'optional'])),
  }),
);
const envVar = shape('v1/EnvVar', keys(['name', 'value', 'valueFrom'], { valueFrom: envVarSource }));
const envFromSource = shape(
  'v1/EnvFromSource',
  keys(['configMapRef', 'prefix', 'secretRef'], {
    configMapRef: shape('v1/ConfigMapEnvSource', keys(['name', 'optional'])),
    secretRef: shape('v1/SecretEnvSource', keys(['name', 'optional'])),
  }),
);

// prettier-ignore
const container = shape('v1/Container', keys([
  'args', 'command', 'env', 'envFrom', 'image', 'imagePullPolicy', 'lifecycle', 'livenessProbe', 'name', 'ports',
  'readinessProbe', 'resizePolicy', 'resources', 'restartPolicy', 'restartPolicyRules', 'securityContext',
  'startupProbe', 'stdin', 'stdinOnce', 'terminationMessagePath', 'terminationMessagePolicy', 'tty',
  'volumeDevices', 'volumeMounts', 'workingDir',
], {
  env: listOf(envVar),
  envFrom: listOf(envFromSource),
  lifecycle,
  livenessProbe: probe,
  readinessProbe: probe,
  startupProbe: probe,
  ports: listOf(shape('v1/ContainerPort', keys(['containerPort', 'hostIP', 'hostPort', 'name', 'protocol']))),
  resources: shape('v1/ResourceRequirements', keys(['claims', 'limits', 'requests'])),
  securityContext: containerSecurityContext,
  volumeMounts: listOf(shape('v1/VolumeMount', keys([
    'mountPath', 'mountPropagation', 'name', 'readOnly', 'recursiveReadOnly', 'subPath', 'subPathExpr',
  ]))),
}));

const keyToPath = shape('v1/KeyToPath', keys(['key', 'mode', 'path']));
// prettier-ignore
const volume = shape('v1/Volume', keys([
  'awsElasticBlockStore', 'azureDisk', 'azureFile', 'cephfs', 'cinder', 'configMap', 'csi', 'downwardAPI',
  'emptyDir', 'ephemeral', 'fc', 'flexVolume', 'flocker', 'gcePersistentDisk', 'gitRepo', 'glusterfs', 'hostPath',
  'image', 'iscsi', 'name', 'nfs', 'persistentVolumeClaim', 'photonPersistentDisk', 'portworxVolume', 'projected',
  'quobyte', 'rbd', 'scaleIO', 'secret', 'storageos', 'vsphereVolume',
], {
  emptyDir: shape('v1/EmptyDirVolumeSource', keys(['medium', 'sizeLimit'])),
  configMap: shape('v1/ConfigMapVolumeSource', keys(['defaultMode', 'items', 'name', 'optional'], { items: listOf(keyToPath) })),
  secret: shape('v1/SecretVolumeSource', keys(['defaultMode', 'items', 'optional', 'secretName'], { items: listOf(keyToPath) })),
}));

// prettier-ignore
const podSpec = shape('v1/PodSpec', keys([
  'activeDeadlineSeconds', 'affinity', 'automountServiceAccountToken', 'containers', 'dnsConfig', 'dnsPolicy',
  'enableServiceLinks', 'ephemeralContainers', 'hostAliases', 'hostIPC', 'hostNetwork', 'hostPID', 'hostUsers',
  'hostname', 'hostnameOverride', 'imagePullSecrets', 'initContainers', 'nodeName', 'nodeSelector', 'os', 'overhead',
  'preemptionPolicy', 'priority', 'priorityClassName', 'readinessGates', 'resourceClaims', 'resources',
  'restartPolicy', 'runtimeClassName', 'schedulerName', 'schedulingGates', 'schedulingGroup', 'securityContext',
  'serviceAccount', 'serviceAccountName', 'setHostnameAsFQDN', 'shareProcessNamespace', 'subdomain',
  'terminationGracePeriodSeconds', 'tolerations', 'topologySpreadConstraints', 'volumes',
], {
  containers: listOf(container),
  initContainers: listOf(container),
  securityContext: podSecurityContext,
  volumes: listOf(volume),
  topologySpreadConstraints: listOf(shape('v1/TopologySpreadConstraint', keys([
    'labelSelector', 'matchLabelKeys', 'maxSkew', 'minDomains', 'nodeAffinityPolicy', 'nodeTaintsPolicy',
    'topologyKey', 'whenUnsatisfiable',
  ], { labelSelector }))),
}));

const podTemplate = shape('v1/PodTemplateSpec', { metadata, spec: podSpec });

// --- kinds -----------------------------------------------------------------

// prettier-ignore
const deploymentSpec = shape('apps/v1/DeploymentSpec', keys([
  'minReadySeconds', 'paused', 'progressDeadlineSeconds', 'replicas', 'revisionHistoryLimit', 'selector',
  'strategy', 'template',
], {
  selector: labelSelector,
  template: podTemplate,
  strategy: shape('apps/v1/DeploymentStrategy', keys(['rollingUpdate', 'type'], {
    rollingUpdate: shape('apps/v1/RollingUpdateDeployment', keys(['maxSurge', 'maxUnavailable'])),
  })),
}));

// prettier-ignore
const serviceSpec = shape('v1/ServiceSpec', keys([
  'allocateLoadBalancerNodePorts', 'clusterIP', 'clusterIPs', 'externalIPs', 'externalName',
  'externalTrafficPolicy', 'healthCheckNodePort', 'internalTrafficPolicy', 'ipFamilies', 'ipFamilyPolicy',
  'loadBalancerClass', 'loadBalancerIP', 'loadBalancerSourceRanges', 'ports', 'publishNotReadyAddresses',
  'selector', 'sessionAffinity', 'sessionAffinityConfig', 'trafficDistribution', 'type',
], {
  ports: listOf(shape('v1/ServicePort', keys(['appProtocol', 'name', 'nodePort', 'port', 'protocol', 'targetPort']))),
}));

const pdbSpec = shape(
  'policy/v1/PodDisruptionBudgetSpec',
  keys(['maxUnavailable', 'minAvailable', 'selector', 'unhealthyPodEvictionPolicy'], {
    selector: labelSelector,
  }),
);

const scalingRules = shape(
  'autoscaling/v2/HPAScalingRules',
  keys(['policies', 'selectPolicy', 'stabilizationWindowSeconds', 'tolerance'], {
    policies: listOf(shape('autoscaling/v2/HPAScalingPolicy', keys(['periodSeconds', 'type', 'value']))),
  }),
);
const hpaSpec = shape(
  'autoscaling/v2/HorizontalPodAutoscalerSpec',
  keys(['behavior', 'maxReplicas', 'metrics', 'minReplicas', 'scaleTargetRef'], {
    behavior: shape(
      'autoscaling/v2/HorizontalPodAutoscalerBehavior',
      keys(['scaleDown', 'scaleUp'], {
        scaleDown: scalingRules,
        scaleUp: scalingRules,
      }),
    ),
    scaleTargetRef: shape('autoscaling/v2/CrossVersionObjectReference', keys(['apiVersion', 'kind', 'name'])),
    metrics: listOf(
      shape(
        'autoscaling/v2/MetricSpec',
        keys(['containerResource', 'external', 'object', 'pods', 'resource', 'type'], {
          resource: shape(
            'autoscaling/v2/ResourceMetricSource',
            keys(['name', 'target'], {
              target: shape(
                'autoscaling/v2/MetricTarget',
                keys(['averageUtilization', 'averageValue', 'type', 'value']),
              ),
            }),
          ),
        }),
      ),
    ),
  }),
);

// --- networking ------------------------------------------------------------

const networkPolicyPeer = shape(
  'networking.k8s.io/v1/NetworkPolicyPeer',
  keys(['ipBlock', 'namespaceSelector', 'podSelector'], {
    ipBlock: shape('networking.k8s.io/v1/IPBlock', keys(['cidr', 'except'])),
    namespaceSelector: labelSelector,
    podSelector: labelSelector,
  }),
);
const networkPolicyPorts = listOf(
  shape('networking.k8s.io/v1/NetworkPolicyPort', keys(['endPort', 'port', 'protocol'])),
);
const networkPolicySpec = shape(
  'networking.k8s.io/v1/NetworkPolicySpec',
  keys(['egress', 'ingress', 'podSelector', 'policyTypes'], {
    podSelector: labelSelector,
    ingress: listOf(
      shape(
        'networking.k8s.io/v1/NetworkPolicyIngressRule',
        keys(['from', 'ports'], { from: listOf(networkPolicyPeer), ports: networkPolicyPorts }),
      ),
    ),
    egress: listOf(
      shape(
        'networking.k8s.io/v1/NetworkPolicyEgressRule',
        keys(['ports', 'to'], { to: listOf(networkPolicyPeer), ports: networkPolicyPorts }),
      ),
    ),
  }),
);

const ingressBackend = shape(
  'networking.k8s.io/v1/IngressBackend',
  keys(['resource', 'service'], {
    resource: shape('v1/TypedLocalObjectReference', keys(['apiGroup', 'kind', 'name'])),
    service: shape(
      'networking.k8s.io/v1/IngressServiceBackend',
      keys(['name', 'port'], {
        port: shape('networking.k8s.io/v1/ServiceBackendPort', keys(['name', 'number'])),
      }),
    ),
  }),
);
const ingressSpec = shape(
  'networking.k8s.io/v1/IngressSpec',
  keys(['defaultBackend', 'ingressClassName', 'rules', 'tls'], {
    defaultBackend: ingressBackend,
    rules: listOf(
      shape(
        'networking.k8s.io/v1/IngressRule',
        keys(['host', 'http'], {
          http: shape(
            'networking.k8s.io/v1/HTTPIngressRuleValue',
            keys(['paths'], {
              paths: listOf(
                shape(
                  'networking.k8s.io/v1/HTTPIngressPath',
                  keys(['backend', 'path', 'pathType'], { backend: ingressBackend }),
                ),
              ),
            }),
          ),
        }),
      ),
    ),
    tls: listOf(shape('networking.k8s.io/v1/IngressTLS', keys(['hosts', 'secretName']))),
  }),
);

/** Strict schema per "apiVersion kind". Kinds missing here are reported, not skipped. */
export const STRICT_SCHEMAS = {
  'apps/v1 Deployment': top('apps/v1/Deployment', deploymentSpec),
  'v1 Service': top('v1/Service', serviceSpec),
  'v1 ConfigMap': top('v1/ConfigMap', undefined, { binaryData: ANY, data: ANY, immutable: ANY }),
  'v1 Namespace': top('v1/Namespace', shape('v1/NamespaceSpec', keys(['finalizers']))),
  'policy/v1 PodDisruptionBudget': top('policy/v1/PodDisruptionBudget', pdbSpec),
  'autoscaling/v2 HorizontalPodAutoscaler': top('autoscaling/v2/HorizontalPodAutoscaler', hpaSpec),
  'networking.k8s.io/v1 NetworkPolicy': top('networking.k8s.io/v1/NetworkPolicy', networkPolicySpec),
  'networking.k8s.io/v1 Ingress': top('networking.k8s.io/v1/Ingress', ingressSpec),
};

/** Keys a model declares that our shapes leave out on purpose. */
export const OMITTED_KEYS = new Set(['status']);
