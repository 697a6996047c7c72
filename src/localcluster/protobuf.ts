/**
 * Enough of the Kubernetes protobuf encoding to accept what kubectl's imperative commands send
 * (`kubectl create deployment|service|configmap|secret|namespace`, `--dry-run=server`): the
 * `k8s\0` envelope around a runtime.Unknown, and the messages of the kinds this cluster serves
 * that those commands can produce (Namespace, ConfigMap, Secret, Service, Endpoints, Pod,
 * Deployment, ReplicaSet), with the pod template in depth.
 *
 * Field numbers are those of the Kubernetes API's generated.proto files (k8s.io/api core/v1 and
 * apps/v1, k8s.io/apimachinery meta/v1, intstr, resource). The result is the object's JSON form,
 * the way Go's encoding/json writes the same struct: a zero scalar is left out unless the Go
 * field is a pointer or has no omitempty (`keep` below), a nested struct that was sent is kept
 * even when empty (`resources: {}`), and a zero Time (`creationTimestamp: null`) is left out.
 *
 * A field number this table does not know, inside a message it does, is an error: storing the
 * object without it would silently drop what the client meant. Kinds not listed are errors too.
 * Either way the server answers 415 and says to send JSON (`kubectl apply -f FILE`).
 */
import { kubeTime } from '../kube';

type Scalar = 'string' | 'bytes' | 'bool' | 'int32' | 'int64';
/** Messages whose JSON form is not an object of their fields. */
type Special = 'time' | 'quantity' | 'intOrString' | 'fieldsV1';
type FieldType = Scalar | Special | Message | { map: Scalar | Special };
type Flag = 'repeated' | 'keep' | 'inline';

interface Field {
  name: string;
  type: FieldType;
  repeated: boolean;
  /** Written even when zero: a Go pointer, or a field without omitempty. */
  keep: boolean;
  /** An embedded struct whose fields the JSON form puts in the enclosing object. */
  inline: boolean;
}
interface Message {
  name: string;
  fields: ReadonlyMap<number, Field>;
}

type FieldSpec = readonly [name: string, type: FieldType, ...flags: Flag[]];

function message(name: string, fields: Record<number, FieldSpec>): Message {
  const table = new Map<number, Field>();
  for (const [n, [fieldName, type, ...flags]] of Object.entries(fields)) {
    table.set(Number(n), {
      name: fieldName,
      type,
      repeated: flags.includes('repeated'),
      keep: flags.includes('keep'),
      inline: flags.includes('inline'),
    });
  }
  return { name, fields: table };
}

const stringMap = { map: 'string' } as const;
const quantityMap = { map: 'quantity' } as const;

// --- k8s.io/apimachinery meta/v1 --------------------------------------------------------------

const ownerReference = message('OwnerReference', {
  1: ['kind', 'string', 'keep'],
  3: ['name', 'string', 'keep'],
  4: ['uid', 'string', 'keep'],
  5: ['apiVersion', 'string', 'keep'],
  6: ['controller', 'bool', 'keep'],
  7: ['blockOwnerDeletion', 'bool', 'keep'],
});

const managedFieldsEntry = message('ManagedFieldsEntry', {
  1: ['manager', 'string'],
  2: ['operation', 'string'],
  3: ['apiVersion', 'string'],
  4: ['time', 'time'],
  6: ['fieldsType', 'string'],
  7: ['fieldsV1', 'fieldsV1'],
  8: ['subresource', 'string'],
});

const objectMeta = message('ObjectMeta', {
  1: ['name', 'string'],
  2: ['generateName', 'string'],
  3: ['namespace', 'string'],
  4: ['selfLink', 'string'],
  5: ['uid', 'string'],
  6: ['resourceVersion', 'string'],
  7: ['generation', 'int64'],
  8: ['creationTimestamp', 'time'],
  9: ['deletionTimestamp', 'time'],
  10: ['deletionGracePeriodSeconds', 'int64', 'keep'],
  11: ['labels', stringMap],
  12: ['annotations', stringMap],
  13: ['ownerReferences', ownerReference, 'repeated'],
  14: ['finalizers', 'string', 'repeated'],
  17: ['managedFields', managedFieldsEntry, 'repeated'],
});

const labelSelector = message('LabelSelector', {
  1: ['matchLabels', stringMap],
  2: [
    'matchExpressions',
    message('LabelSelectorRequirement', {
      1: ['key', 'string', 'keep'],
      2: ['operator', 'string', 'keep'],
      3: ['values', 'string', 'repeated'],
    }),
    'repeated',
  ],
});

const condition = message('Condition', {
  1: ['type', 'string', 'keep'],
  2: ['status', 'string', 'keep'],
  3: ['observedGeneration', 'int64'],
  4: ['lastTransitionTime', 'time'],
  5: ['reason', 'string', 'keep'],
  6: ['message', 'string', 'keep'],
});

// --- k8s.io/api core/v1: what a pod template is made of ----------------------------------------

const localObjectReference = message('LocalObjectReference', { 1: ['name', 'string'] });

const objectReference = message('ObjectReference', {
  1: ['kind', 'string'],
  2: ['namespace', 'string'],
  3: ['name', 'string'],
  4: ['uid', 'string'],
  5: ['apiVersion', 'string'],
  6: ['resourceVersion', 'string'],
  7: ['fieldPath', 'string'],
});

const objectFieldSelector = message('ObjectFieldSelector', { 1: ['apiVersion', 'string'], 2: ['fieldPath', 'string', 'keep'] });
const resourceFieldSelector = message('ResourceFieldSelector', {
  1: ['containerName', 'string'],
  2: ['resource', 'string', 'keep'],
  3: ['divisor', 'quantity'],
});

const keySelector = (name: string) =>
  message(name, {
    1: ['localObjectReference', localObjectReference, 'inline'],
    2: ['key', 'string', 'keep'],
    3: ['optional', 'bool', 'keep'],
  });
const envSource = (name: string) =>
  message(name, { 1: ['localObjectReference', localObjectReference, 'inline'], 2: ['optional', 'bool', 'keep'] });

const envVar = message('EnvVar', {
  1: ['name', 'string', 'keep'],
  2: ['value', 'string'],
  3: [
    'valueFrom',
    message('EnvVarSource', {
      1: ['fieldRef', objectFieldSelector],
      2: ['resourceFieldRef', resourceFieldSelector],
      3: ['configMapKeyRef', keySelector('ConfigMapKeySelector')],
      4: ['secretKeyRef', keySelector('SecretKeySelector')],
      5: [
        'fileKeyRef',
        message('FileKeySelector', {
          1: ['volumeName', 'string', 'keep'],
          2: ['path', 'string', 'keep'],
          3: ['key', 'string', 'keep'],
          4: ['optional', 'bool', 'keep'],
        }),
      ],
    }),
  ],
});

const envFromSource = message('EnvFromSource', {
  1: ['prefix', 'string'],
  2: ['configMapRef', envSource('ConfigMapEnvSource')],
  3: ['secretRef', envSource('SecretEnvSource')],
});

const containerPort = message('ContainerPort', {
  1: ['name', 'string'],
  2: ['hostPort', 'int32'],
  3: ['containerPort', 'int32', 'keep'],
  4: ['protocol', 'string'],
  5: ['hostIP', 'string'],
});

const resourceRequirements = message('ResourceRequirements', {
  1: ['limits', quantityMap],
  2: ['requests', quantityMap],
  3: ['claims', message('ResourceClaim', { 1: ['name', 'string', 'keep'], 2: ['request', 'string'] }), 'repeated'],
});

const volumeMount = message('VolumeMount', {
  1: ['name', 'string', 'keep'],
  2: ['readOnly', 'bool'],
  3: ['mountPath', 'string', 'keep'],
  4: ['subPath', 'string'],
  5: ['mountPropagation', 'string', 'keep'],
  6: ['subPathExpr', 'string'],
  7: ['recursiveReadOnly', 'string', 'keep'],
});

const execAction = message('ExecAction', { 1: ['command', 'string', 'repeated'] });
const httpGetAction = message('HTTPGetAction', {
  1: ['path', 'string'],
  2: ['port', 'intOrString', 'keep'],
  3: ['host', 'string'],
  4: ['scheme', 'string'],
  5: ['httpHeaders', message('HTTPHeader', { 1: ['name', 'string', 'keep'], 2: ['value', 'string', 'keep'] }), 'repeated'],
});
const tcpSocketAction = message('TCPSocketAction', { 1: ['port', 'intOrString', 'keep'], 2: ['host', 'string'] });

const probe = message('Probe', {
  1: [
    'handler',
    message('ProbeHandler', {
      1: ['exec', execAction],
      2: ['httpGet', httpGetAction],
      3: ['tcpSocket', tcpSocketAction],
      4: ['grpc', message('GRPCAction', { 1: ['port', 'int32', 'keep'], 2: ['service', 'string', 'keep'] })],
    }),
    'inline',
  ],
  2: ['initialDelaySeconds', 'int32'],
  3: ['timeoutSeconds', 'int32'],
  4: ['periodSeconds', 'int32'],
  5: ['successThreshold', 'int32'],
  6: ['failureThreshold', 'int32'],
  7: ['terminationGracePeriodSeconds', 'int64', 'keep'],
});

const lifecycleHandler = message('LifecycleHandler', {
  1: ['exec', execAction],
  2: ['httpGet', httpGetAction],
  3: ['tcpSocket', tcpSocketAction],
  4: ['sleep', message('SleepAction', { 1: ['seconds', 'int64', 'keep'] })],
});

const seLinuxOptions = message('SELinuxOptions', {
  1: ['user', 'string'],
  2: ['role', 'string'],
  3: ['type', 'string'],
  4: ['level', 'string'],
});
const windowsOptions = message('WindowsSecurityContextOptions', {
  1: ['gmsaCredentialSpecName', 'string', 'keep'],
  2: ['gmsaCredentialSpec', 'string', 'keep'],
  3: ['runAsUserName', 'string', 'keep'],
  4: ['hostProcess', 'bool', 'keep'],
});
const profile = (name: string) => message(name, { 1: ['type', 'string', 'keep'], 2: ['localhostProfile', 'string', 'keep'] });

const securityContext = message('SecurityContext', {
  1: ['capabilities', message('Capabilities', { 1: ['add', 'string', 'repeated'], 2: ['drop', 'string', 'repeated'] })],
  2: ['privileged', 'bool', 'keep'],
  3: ['seLinuxOptions', seLinuxOptions],
  4: ['runAsUser', 'int64', 'keep'],
  5: ['runAsNonRoot', 'bool', 'keep'],
  6: ['readOnlyRootFilesystem', 'bool', 'keep'],
  7: ['allowPrivilegeEscalation', 'bool', 'keep'],
  8: ['runAsGroup', 'int64', 'keep'],
  9: ['procMount', 'string', 'keep'],
  10: ['windowsOptions', windowsOptions],
  11: ['seccompProfile', profile('SeccompProfile')],
  12: ['appArmorProfile', profile('AppArmorProfile')],
});

const container = message('Container', {
  1: ['name', 'string', 'keep'],
  2: ['image', 'string'],
  3: ['command', 'string', 'repeated'],
  4: ['args', 'string', 'repeated'],
  5: ['workingDir', 'string'],
  6: ['ports', containerPort, 'repeated'],
  7: ['env', envVar, 'repeated'],
  8: ['resources', resourceRequirements],
  9: ['volumeMounts', volumeMount, 'repeated'],
  10: ['livenessProbe', probe],
  11: ['readinessProbe', probe],
  12: [
    'lifecycle',
    message('Lifecycle', { 1: ['postStart', lifecycleHandler], 2: ['preStop', lifecycleHandler], 3: ['stopSignal', 'string', 'keep'] }),
  ],
  13: ['terminationMessagePath', 'string'],
  14: ['imagePullPolicy', 'string'],
  15: ['securityContext', securityContext],
  16: ['stdin', 'bool'],
  17: ['stdinOnce', 'bool'],
  18: ['tty', 'bool'],
  19: ['envFrom', envFromSource, 'repeated'],
  20: ['terminationMessagePolicy', 'string'],
  21: ['volumeDevices', message('VolumeDevice', { 1: ['name', 'string', 'keep'], 2: ['devicePath', 'string', 'keep'] }), 'repeated'],
  22: ['startupProbe', probe],
  23: [
    'resizePolicy',
    message('ContainerResizePolicy', { 1: ['resourceName', 'string', 'keep'], 2: ['restartPolicy', 'string', 'keep'] }),
    'repeated',
  ],
  24: ['restartPolicy', 'string', 'keep'],
});

const keyToPath = message('KeyToPath', { 1: ['key', 'string', 'keep'], 2: ['path', 'string', 'keep'], 3: ['mode', 'int32', 'keep'] });
const downwardAPIVolumeFile = message('DownwardAPIVolumeFile', {
  1: ['path', 'string', 'keep'],
  2: ['fieldRef', objectFieldSelector],
  3: ['resourceFieldRef', resourceFieldSelector],
  4: ['mode', 'int32', 'keep'],
});

const volumeSource = message('VolumeSource', {
  1: ['hostPath', message('HostPathVolumeSource', { 1: ['path', 'string', 'keep'], 2: ['type', 'string', 'keep'] })],
  2: ['emptyDir', message('EmptyDirVolumeSource', { 1: ['medium', 'string'], 2: ['sizeLimit', 'quantity', 'keep'] })],
  6: [
    'secret',
    message('SecretVolumeSource', {
      1: ['secretName', 'string'],
      2: ['items', keyToPath, 'repeated'],
      3: ['defaultMode', 'int32', 'keep'],
      4: ['optional', 'bool', 'keep'],
    }),
  ],
  7: ['nfs', message('NFSVolumeSource', { 1: ['server', 'string', 'keep'], 2: ['path', 'string', 'keep'], 3: ['readOnly', 'bool'] })],
  10: [
    'persistentVolumeClaim',
    message('PersistentVolumeClaimVolumeSource', { 1: ['claimName', 'string', 'keep'], 2: ['readOnly', 'bool'] }),
  ],
  16: [
    'downwardAPI',
    message('DownwardAPIVolumeSource', { 1: ['items', downwardAPIVolumeFile, 'repeated'], 2: ['defaultMode', 'int32', 'keep'] }),
  ],
  19: [
    'configMap',
    message('ConfigMapVolumeSource', {
      1: ['localObjectReference', localObjectReference, 'inline'],
      2: ['items', keyToPath, 'repeated'],
      3: ['defaultMode', 'int32', 'keep'],
      4: ['optional', 'bool', 'keep'],
    }),
  ],
  26: [
    'projected',
    message('ProjectedVolumeSource', {
      1: [
        'sources',
        message('VolumeProjection', {
          1: [
            'secret',
            message('SecretProjection', {
              1: ['localObjectReference', localObjectReference, 'inline'],
              2: ['items', keyToPath, 'repeated'],
              4: ['optional', 'bool', 'keep'],
            }),
          ],
          2: ['downwardAPI', message('DownwardAPIProjection', { 1: ['items', downwardAPIVolumeFile, 'repeated'] })],
          3: [
            'configMap',
            message('ConfigMapProjection', {
              1: ['localObjectReference', localObjectReference, 'inline'],
              2: ['items', keyToPath, 'repeated'],
              4: ['optional', 'bool', 'keep'],
            }),
          ],
          4: [
            'serviceAccountToken',
            message('ServiceAccountTokenProjection', {
              1: ['audience', 'string'],
              2: ['expirationSeconds', 'int64', 'keep'],
              3: ['path', 'string', 'keep'],
            }),
          ],
        }),
        'repeated',
      ],
      2: ['defaultMode', 'int32', 'keep'],
    }),
  ],
  28: [
    'csi',
    message('CSIVolumeSource', {
      1: ['driver', 'string', 'keep'],
      2: ['readOnly', 'bool', 'keep'],
      3: ['fsType', 'string', 'keep'],
      4: ['volumeAttributes', stringMap],
      5: ['nodePublishSecretRef', localObjectReference],
    }),
  ],
  30: ['image', message('ImageVolumeSource', { 1: ['reference', 'string'], 2: ['pullPolicy', 'string'] })],
});

const volume = message('Volume', { 1: ['name', 'string', 'keep'], 2: ['volumeSource', volumeSource, 'inline'] });

const nodeSelectorRequirement = message('NodeSelectorRequirement', {
  1: ['key', 'string', 'keep'],
  2: ['operator', 'string', 'keep'],
  3: ['values', 'string', 'repeated'],
});
const nodeSelectorTerm = message('NodeSelectorTerm', {
  1: ['matchExpressions', nodeSelectorRequirement, 'repeated'],
  2: ['matchFields', nodeSelectorRequirement, 'repeated'],
});
const podAffinityTerm = message('PodAffinityTerm', {
  1: ['labelSelector', labelSelector],
  2: ['namespaces', 'string', 'repeated'],
  3: ['topologyKey', 'string', 'keep'],
  4: ['namespaceSelector', labelSelector],
  5: ['matchLabelKeys', 'string', 'repeated'],
  6: ['mismatchLabelKeys', 'string', 'repeated'],
});
const podAffinity = (name: string) =>
  message(name, {
    1: ['requiredDuringSchedulingIgnoredDuringExecution', podAffinityTerm, 'repeated'],
    2: [
      'preferredDuringSchedulingIgnoredDuringExecution',
      message('WeightedPodAffinityTerm', { 1: ['weight', 'int32', 'keep'], 2: ['podAffinityTerm', podAffinityTerm] }),
      'repeated',
    ],
  });
const affinity = message('Affinity', {
  1: [
    'nodeAffinity',
    message('NodeAffinity', {
      1: [
        'requiredDuringSchedulingIgnoredDuringExecution',
        message('NodeSelector', { 1: ['nodeSelectorTerms', nodeSelectorTerm, 'repeated'] }),
      ],
      2: [
        'preferredDuringSchedulingIgnoredDuringExecution',
        message('PreferredSchedulingTerm', { 1: ['weight', 'int32', 'keep'], 2: ['preference', nodeSelectorTerm] }),
        'repeated',
      ],
    }),
  ],
  2: ['podAffinity', podAffinity('PodAffinity')],
  3: ['podAntiAffinity', podAffinity('PodAntiAffinity')],
});

const podSecurityContext = message('PodSecurityContext', {
  1: ['seLinuxOptions', seLinuxOptions],
  2: ['runAsUser', 'int64', 'keep'],
  3: ['runAsNonRoot', 'bool', 'keep'],
  4: ['supplementalGroups', 'int64', 'repeated'],
  5: ['fsGroup', 'int64', 'keep'],
  6: ['runAsGroup', 'int64', 'keep'],
  7: ['sysctls', message('Sysctl', { 1: ['name', 'string', 'keep'], 2: ['value', 'string', 'keep'] }), 'repeated'],
  8: ['windowsOptions', windowsOptions],
  9: ['fsGroupChangePolicy', 'string', 'keep'],
  10: ['seccompProfile', profile('SeccompProfile')],
  11: ['appArmorProfile', profile('AppArmorProfile')],
  12: ['supplementalGroupsPolicy', 'string', 'keep'],
  13: ['seLinuxChangePolicy', 'string', 'keep'],
});

const podSpec = message('PodSpec', {
  1: ['volumes', volume, 'repeated'],
  2: ['containers', container, 'repeated'],
  3: ['restartPolicy', 'string'],
  4: ['terminationGracePeriodSeconds', 'int64', 'keep'],
  5: ['activeDeadlineSeconds', 'int64', 'keep'],
  6: ['dnsPolicy', 'string'],
  7: ['nodeSelector', stringMap],
  8: ['serviceAccountName', 'string'],
  9: ['serviceAccount', 'string'],
  10: ['nodeName', 'string'],
  11: ['hostNetwork', 'bool'],
  12: ['hostPID', 'bool'],
  13: ['hostIPC', 'bool'],
  14: ['securityContext', podSecurityContext],
  15: ['imagePullSecrets', localObjectReference, 'repeated'],
  16: ['hostname', 'string'],
  17: ['subdomain', 'string'],
  18: ['affinity', affinity],
  19: ['schedulerName', 'string'],
  20: ['initContainers', container, 'repeated'],
  21: ['automountServiceAccountToken', 'bool', 'keep'],
  22: [
    'tolerations',
    message('Toleration', {
      1: ['key', 'string'],
      2: ['operator', 'string'],
      3: ['value', 'string'],
      4: ['effect', 'string'],
      5: ['tolerationSeconds', 'int64', 'keep'],
    }),
    'repeated',
  ],
  23: ['hostAliases', message('HostAlias', { 1: ['ip', 'string', 'keep'], 2: ['hostnames', 'string', 'repeated'] }), 'repeated'],
  24: ['priorityClassName', 'string'],
  25: ['priority', 'int32', 'keep'],
  26: [
    'dnsConfig',
    message('PodDNSConfig', {
      1: ['nameservers', 'string', 'repeated'],
      2: ['searches', 'string', 'repeated'],
      3: ['options', message('PodDNSConfigOption', { 1: ['name', 'string'], 2: ['value', 'string', 'keep'] }), 'repeated'],
    }),
  ],
  27: ['shareProcessNamespace', 'bool', 'keep'],
  28: ['readinessGates', message('PodReadinessGate', { 1: ['conditionType', 'string', 'keep'] }), 'repeated'],
  29: ['runtimeClassName', 'string', 'keep'],
  30: ['enableServiceLinks', 'bool', 'keep'],
  31: ['preemptionPolicy', 'string', 'keep'],
  32: ['overhead', quantityMap],
  33: [
    'topologySpreadConstraints',
    message('TopologySpreadConstraint', {
      1: ['maxSkew', 'int32', 'keep'],
      2: ['topologyKey', 'string', 'keep'],
      3: ['whenUnsatisfiable', 'string', 'keep'],
      4: ['labelSelector', labelSelector],
      5: ['minDomains', 'int32', 'keep'],
      6: ['nodeAffinityPolicy', 'string', 'keep'],
      7: ['nodeTaintsPolicy', 'string', 'keep'],
      8: ['matchLabelKeys', 'string', 'repeated'],
    }),
    'repeated',
  ],
  35: ['setHostnameAsFQDN', 'bool', 'keep'],
  36: ['os', message('PodOS', { 1: ['name', 'string', 'keep'] })],
  37: ['hostUsers', 'bool', 'keep'],
  38: ['schedulingGates', message('PodSchedulingGate', { 1: ['name', 'string', 'keep'] }), 'repeated'],
  39: [
    'resourceClaims',
    message('PodResourceClaim', {
      1: ['name', 'string', 'keep'],
      3: ['resourceClaimName', 'string', 'keep'],
      4: ['resourceClaimTemplateName', 'string', 'keep'],
    }),
    'repeated',
  ],
  40: ['resources', resourceRequirements],
  41: ['hostnameOverride', 'string', 'keep'],
});

const podTemplateSpec = message('PodTemplateSpec', { 1: ['metadata', objectMeta], 2: ['spec', podSpec] });

const podStatus = message('PodStatus', {
  1: ['phase', 'string'],
  2: [
    'conditions',
    message('PodCondition', {
      1: ['type', 'string', 'keep'],
      2: ['status', 'string', 'keep'],
      3: ['lastProbeTime', 'time'],
      4: ['lastTransitionTime', 'time'],
      5: ['reason', 'string'],
      6: ['message', 'string'],
      7: ['observedGeneration', 'int64'],
    }),
    'repeated',
  ],
  3: ['message', 'string'],
  4: ['reason', 'string'],
  5: ['hostIP', 'string'],
  6: ['podIP', 'string'],
  7: ['startTime', 'time'],
  9: ['qosClass', 'string'],
  11: ['nominatedNodeName', 'string'],
  12: ['podIPs', message('PodIP', { 1: ['ip', 'string', 'keep'] }), 'repeated'],
  16: ['hostIPs', message('HostIP', { 1: ['ip', 'string', 'keep'] }), 'repeated'],
  17: ['observedGeneration', 'int64'],
});

// --- core/v1 Service and Endpoints -------------------------------------------------------------

const serviceSpec = message('ServiceSpec', {
  1: [
    'ports',
    message('ServicePort', {
      1: ['name', 'string'],
      2: ['protocol', 'string'],
      3: ['port', 'int32', 'keep'],
      // The JSON form of an unset targetPort is 0, which the API server defaults to the port;
      // leaving it out lets the local cluster's defaulting do the same.
      4: ['targetPort', 'intOrString'],
      5: ['nodePort', 'int32'],
      6: ['appProtocol', 'string', 'keep'],
    }),
    'repeated',
  ],
  2: ['selector', stringMap],
  3: ['clusterIP', 'string'],
  4: ['type', 'string'],
  5: ['externalIPs', 'string', 'repeated'],
  7: ['sessionAffinity', 'string'],
  8: ['loadBalancerIP', 'string'],
  9: ['loadBalancerSourceRanges', 'string', 'repeated'],
  10: ['externalName', 'string'],
  11: ['externalTrafficPolicy', 'string'],
  12: ['healthCheckNodePort', 'int32'],
  13: ['publishNotReadyAddresses', 'bool'],
  14: [
    'sessionAffinityConfig',
    message('SessionAffinityConfig', { 1: ['clientIP', message('ClientIPConfig', { 1: ['timeoutSeconds', 'int32', 'keep'] })] }),
  ],
  17: ['ipFamilyPolicy', 'string', 'keep'],
  18: ['clusterIPs', 'string', 'repeated'],
  19: ['ipFamilies', 'string', 'repeated'],
  20: ['allocateLoadBalancerNodePorts', 'bool', 'keep'],
  21: ['loadBalancerClass', 'string', 'keep'],
  22: ['internalTrafficPolicy', 'string', 'keep'],
  23: ['trafficDistribution', 'string', 'keep'],
});

const serviceStatus = message('ServiceStatus', {
  1: [
    'loadBalancer',
    message('LoadBalancerStatus', {
      1: [
        'ingress',
        message('LoadBalancerIngress', {
          1: ['ip', 'string'],
          2: ['hostname', 'string'],
          3: ['ipMode', 'string', 'keep'],
          4: [
            'ports',
            message('PortStatus', { 1: ['port', 'int32', 'keep'], 2: ['protocol', 'string', 'keep'], 3: ['error', 'string', 'keep'] }),
            'repeated',
          ],
        }),
        'repeated',
      ],
    }),
  ],
  2: ['conditions', condition, 'repeated'],
});

const endpointAddress = message('EndpointAddress', {
  1: ['ip', 'string', 'keep'],
  2: ['targetRef', objectReference],
  3: ['hostname', 'string'],
  4: ['nodeName', 'string', 'keep'],
});
const endpointSubset = message('EndpointSubset', {
  1: ['addresses', endpointAddress, 'repeated'],
  2: ['notReadyAddresses', endpointAddress, 'repeated'],
  3: [
    'ports',
    message('EndpointPort', {
      1: ['name', 'string'],
      2: ['port', 'int32', 'keep'],
      3: ['protocol', 'string'],
      4: ['appProtocol', 'string', 'keep'],
    }),
    'repeated',
  ],
});

// --- apps/v1 -----------------------------------------------------------------------------------

const deploymentSpec = message('DeploymentSpec', {
  1: ['replicas', 'int32', 'keep'],
  2: ['selector', labelSelector],
  3: ['template', podTemplateSpec],
  4: [
    'strategy',
    message('DeploymentStrategy', {
      1: ['type', 'string'],
      2: [
        'rollingUpdate',
        message('RollingUpdateDeployment', { 1: ['maxUnavailable', 'intOrString', 'keep'], 2: ['maxSurge', 'intOrString', 'keep'] }),
      ],
    }),
  ],
  5: ['minReadySeconds', 'int32'],
  6: ['revisionHistoryLimit', 'int32', 'keep'],
  7: ['paused', 'bool'],
  9: ['progressDeadlineSeconds', 'int32', 'keep'],
  10: ['podReplacementPolicy', 'string', 'keep'],
});

const workloadCondition = (name: string, timeFields: Record<number, FieldSpec>) =>
  message(name, {
    1: ['type', 'string', 'keep'],
    2: ['status', 'string', 'keep'],
    4: ['reason', 'string'],
    5: ['message', 'string'],
    ...timeFields,
  });

const deploymentStatus = message('DeploymentStatus', {
  1: ['observedGeneration', 'int64'],
  2: ['replicas', 'int32'],
  3: ['updatedReplicas', 'int32'],
  4: ['availableReplicas', 'int32'],
  5: ['unavailableReplicas', 'int32'],
  6: [
    'conditions',
    workloadCondition('DeploymentCondition', { 6: ['lastUpdateTime', 'time'], 7: ['lastTransitionTime', 'time'] }),
    'repeated',
  ],
  7: ['readyReplicas', 'int32'],
  8: ['collisionCount', 'int32', 'keep'],
  9: ['terminatingReplicas', 'int32', 'keep'],
});

const replicaSetSpec = message('ReplicaSetSpec', {
  1: ['replicas', 'int32', 'keep'],
  2: ['selector', labelSelector],
  3: ['template', podTemplateSpec],
  4: ['minReadySeconds', 'int32'],
});

const replicaSetStatus = message('ReplicaSetStatus', {
  1: ['replicas', 'int32', 'keep'],
  2: ['fullyLabeledReplicas', 'int32'],
  3: ['observedGeneration', 'int64'],
  4: ['readyReplicas', 'int32'],
  5: ['availableReplicas', 'int32'],
  6: ['conditions', workloadCondition('ReplicaSetCondition', { 3: ['lastTransitionTime', 'time'] }), 'repeated'],
  7: ['terminatingReplicas', 'int32', 'keep'],
});

// --- authentication, authorization and RBAC (what `kubectl create token|role|rolebinding|sa` and `kubectl auth` send)

const requirement = (name: string) =>
  message(name, { 1: ['key', 'string', 'keep'], 2: ['operator', 'string', 'keep'], 3: ['values', 'string', 'repeated'] });
const resourceAttributes = message('ResourceAttributes', {
  1: ['namespace', 'string'],
  2: ['verb', 'string'],
  3: ['group', 'string'],
  4: ['version', 'string'],
  5: ['resource', 'string'],
  6: ['subresource', 'string'],
  7: ['name', 'string'],
  8: [
    'fieldSelector',
    message('FieldSelectorAttributes', {
      1: ['rawSelector', 'string'],
      2: ['requirements', requirement('FieldSelectorRequirement'), 'repeated'],
    }),
  ],
  9: [
    'labelSelector',
    message('LabelSelectorAttributes', {
      1: ['rawSelector', 'string'],
      2: ['requirements', requirement('LabelSelectorRequirement'), 'repeated'],
    }),
  ],
});
const accessReviewStatus = message('SubjectAccessReviewStatus', {
  1: ['allowed', 'bool', 'keep'],
  2: ['reason', 'string'],
  3: ['evaluationError', 'string'],
  4: ['denied', 'bool'],
});
const policyRule = message('PolicyRule', {
  1: ['verbs', 'string', 'repeated'],
  2: ['apiGroups', 'string', 'repeated'],
  3: ['resources', 'string', 'repeated'],
  4: ['resourceNames', 'string', 'repeated'],
  5: ['nonResourceURLs', 'string', 'repeated'],
});
const rbacSubject = message('Subject', {
  1: ['kind', 'string', 'keep'],
  2: ['apiGroup', 'string'],
  3: ['name', 'string', 'keep'],
  4: ['namespace', 'string'],
});
const roleRef = message('RoleRef', { 1: ['apiGroup', 'string', 'keep'], 2: ['kind', 'string', 'keep'], 3: ['name', 'string', 'keep'] });

// --- the kinds ---------------------------------------------------------------------------------

const kinds: Record<string, Message> = {
  'v1/Namespace': message('Namespace', {
    1: ['metadata', objectMeta],
    2: ['spec', message('NamespaceSpec', { 1: ['finalizers', 'string', 'repeated'] })],
    3: [
      'status',
      message('NamespaceStatus', {
        1: ['phase', 'string'],
        2: [
          'conditions',
          message('NamespaceCondition', {
            1: ['type', 'string', 'keep'],
            2: ['status', 'string', 'keep'],
            4: ['lastTransitionTime', 'time'],
            5: ['reason', 'string'],
            6: ['message', 'string'],
          }),
          'repeated',
        ],
      }),
    ],
  }),
  'v1/ConfigMap': message('ConfigMap', {
    1: ['metadata', objectMeta],
    2: ['data', stringMap],
    3: ['binaryData', { map: 'bytes' }],
    4: ['immutable', 'bool', 'keep'],
  }),
  'v1/Secret': message('Secret', {
    1: ['metadata', objectMeta],
    2: ['data', { map: 'bytes' }],
    3: ['type', 'string'],
    4: ['stringData', stringMap],
    5: ['immutable', 'bool', 'keep'],
  }),
  'v1/Service': message('Service', { 1: ['metadata', objectMeta], 2: ['spec', serviceSpec], 3: ['status', serviceStatus] }),
  'v1/Endpoints': message('Endpoints', { 1: ['metadata', objectMeta], 2: ['subsets', endpointSubset, 'repeated'] }),
  'v1/Pod': message('Pod', { 1: ['metadata', objectMeta], 2: ['spec', podSpec], 3: ['status', podStatus] }),
  'apps/v1/Deployment': message('Deployment', {
    1: ['metadata', objectMeta],
    2: ['spec', deploymentSpec],
    3: ['status', deploymentStatus],
  }),
  'apps/v1/ReplicaSet': message('ReplicaSet', {
    1: ['metadata', objectMeta],
    2: ['spec', replicaSetSpec],
    3: ['status', replicaSetStatus],
  }),
  'v1/ServiceAccount': message('ServiceAccount', {
    1: ['metadata', objectMeta],
    2: ['secrets', objectReference, 'repeated'],
    3: ['imagePullSecrets', localObjectReference, 'repeated'],
    4: ['automountServiceAccountToken', 'bool', 'keep'],
  }),
  'authentication.k8s.io/v1/TokenRequest': message('TokenRequest', {
    1: ['metadata', objectMeta],
    2: [
      'spec',
      message('TokenRequestSpec', {
        1: ['audiences', 'string', 'repeated'],
        3: [
          'boundObjectRef',
          message('BoundObjectReference', {
            1: ['kind', 'string'],
            2: ['apiVersion', 'string'],
            3: ['name', 'string'],
            4: ['uid', 'string'],
          }),
        ],
        4: ['expirationSeconds', 'int64', 'keep'],
      }),
    ],
    3: ['status', message('TokenRequestStatus', { 1: ['token', 'string', 'keep'], 2: ['expirationTimestamp', 'time'] })],
  }),
  'authentication.k8s.io/v1/SelfSubjectReview': message('SelfSubjectReview', {
    1: ['metadata', objectMeta],
    2: [
      'status',
      message('SelfSubjectReviewStatus', {
        1: ['userInfo', message('UserInfo', { 1: ['username', 'string'], 2: ['uid', 'string'], 3: ['groups', 'string', 'repeated'] })],
      }),
    ],
  }),
  'authorization.k8s.io/v1/SelfSubjectAccessReview': message('SelfSubjectAccessReview', {
    1: ['metadata', objectMeta],
    2: [
      'spec',
      message('SelfSubjectAccessReviewSpec', {
        1: ['resourceAttributes', resourceAttributes],
        2: ['nonResourceAttributes', message('NonResourceAttributes', { 1: ['path', 'string'], 2: ['verb', 'string'] })],
      }),
    ],
    3: ['status', accessReviewStatus],
  }),
  'authorization.k8s.io/v1/SelfSubjectRulesReview': message('SelfSubjectRulesReview', {
    1: ['metadata', objectMeta],
    2: ['spec', message('SelfSubjectRulesReviewSpec', { 1: ['namespace', 'string'] })],
    3: [
      'status',
      message('SubjectRulesReviewStatus', {
        1: [
          'resourceRules',
          message('ResourceRule', {
            1: ['verbs', 'string', 'repeated'],
            2: ['apiGroups', 'string', 'repeated'],
            3: ['resources', 'string', 'repeated'],
            4: ['resourceNames', 'string', 'repeated'],
          }),
          'repeated',
        ],
        2: [
          'nonResourceRules',
          message('NonResourceRule', { 1: ['verbs', 'string', 'repeated'], 2: ['nonResourceURLs', 'string', 'repeated'] }),
          'repeated',
        ],
        3: ['incomplete', 'bool', 'keep'],
        4: ['evaluationError', 'string'],
      }),
    ],
  }),
  'rbac.authorization.k8s.io/v1/Role': message('Role', { 1: ['metadata', objectMeta], 2: ['rules', policyRule, 'repeated'] }),
  'rbac.authorization.k8s.io/v1/ClusterRole': message('ClusterRole', {
    1: ['metadata', objectMeta],
    2: ['rules', policyRule, 'repeated'],
    3: ['aggregationRule', message('AggregationRule', { 1: ['clusterRoleSelectors', labelSelector, 'repeated'] })],
  }),
  'rbac.authorization.k8s.io/v1/RoleBinding': message('RoleBinding', {
    1: ['metadata', objectMeta],
    2: ['subjects', rbacSubject, 'repeated'],
    3: ['roleRef', roleRef],
  }),
  'rbac.authorization.k8s.io/v1/ClusterRoleBinding': message('ClusterRoleBinding', {
    1: ['metadata', objectMeta],
    2: ['subjects', rbacSubject, 'repeated'],
    3: ['roleRef', roleRef],
  }),
};

/** runtime.Unknown: the object's type, its bytes, and how they are encoded. */
const envelope = message('Unknown', {
  1: ['typeMeta', message('TypeMeta', { 1: ['apiVersion', 'string'], 2: ['kind', 'string'] })],
  2: ['raw', 'bytes'],
  3: ['contentEncoding', 'string'],
  4: ['contentType', 'string'],
});

// --- the wire format ---------------------------------------------------------------------------

export class ProtobufError extends Error {}

const WIRE_VARINT = 0;
const WIRE_BYTES = 2;

class Reader {
  pos = 0;
  constructor(readonly buf: Buffer) {}
  get done(): boolean {
    return this.pos >= this.buf.length;
  }
  /** An unsigned varint of up to 64 bits. */
  varint(): bigint {
    let result = 0n;
    for (let shift = 0n; shift < 70n; shift += 7n) {
      if (this.pos >= this.buf.length) throw new ProtobufError('truncated varint');
      const b = this.buf[this.pos++]!;
      result |= BigInt(b & 0x7f) << shift;
      if (b < 0x80) return result;
    }
    throw new ProtobufError('varint too long');
  }
  /** A small varint: a tag or a length. */
  size(): number {
    const v = this.varint();
    if (v > BigInt(Number.MAX_SAFE_INTEGER)) throw new ProtobufError('length out of range');
    return Number(v);
  }
  bytes(): Buffer {
    const len = this.size();
    if (this.pos + len > this.buf.length) throw new ProtobufError('truncated field');
    const out = this.buf.subarray(this.pos, this.pos + len);
    this.pos += len;
    return out;
  }
}

const wireNames: Record<number, string> = {
  0: 'a varint',
  1: 'a 64-bit value',
  2: 'length-delimited bytes',
  3: 'a group',
  4: 'a group end',
  5: 'a 32-bit value',
};

/** A value read from the wire, before the JSON-form rules for zero values are applied. */
interface Decoded {
  value: unknown;
  /** The Go zero value of the field's type: omitted from the JSON form unless `keep`. */
  zero: boolean;
}

function integer(v: bigint, bits: 32 | 64): number {
  // Negative int32 and int64 values arrive as ten-byte two's complement varints.
  const n = BigInt.asIntN(bits, BigInt.asIntN(64, v));
  if (n > BigInt(Number.MAX_SAFE_INTEGER) || n < BigInt(Number.MIN_SAFE_INTEGER))
    throw new ProtobufError(`integer ${n} does not fit in a JSON number`);
  return Number(n);
}

function scalarValue(type: Scalar, r: Reader, wireType: number, where: string): Decoded {
  if (type === 'bool' || type === 'int32' || type === 'int64') {
    if (wireType !== WIRE_VARINT)
      throw new ProtobufError(`${where}: expected a varint, got ${wireNames[wireType] ?? `wire type ${wireType}`}`);
    const v = r.varint();
    if (type === 'bool') return { value: v !== 0n, zero: v === 0n };
    const n = integer(v, type === 'int32' ? 32 : 64);
    return { value: n, zero: n === 0 };
  }
  if (wireType !== WIRE_BYTES)
    throw new ProtobufError(`${where}: expected length-delimited bytes, got ${wireNames[wireType] ?? `wire type ${wireType}`}`);
  const b = r.bytes();
  if (type === 'string') return { value: b.toString('utf8'), zero: b.length === 0 };
  return { value: b.toString('base64'), zero: b.length === 0 };
}

/** The RFC 3339 form metav1.Time has in JSON (whole seconds, UTC). */
function rfc3339(seconds: number): string {
  const d = new Date(seconds * 1000);
  if (Number.isNaN(d.getTime())) throw new ProtobufError(`time ${seconds} is out of range`);
  return kubeTime(d);
}

const timeMessage = message('Time', { 1: ['seconds', 'int64'], 2: ['nanos', 'int32'] });
const quantityMessage = message('Quantity', { 1: ['string', 'string'] });
const intOrStringMessage = message('IntOrString', { 1: ['type', 'int64'], 2: ['intVal', 'int32'], 3: ['strVal', 'string'] });
const fieldsV1Message = message('FieldsV1', { 1: ['Raw', 'bytes'] });

function specialValue(type: Special, bytes: Buffer, path: string): Decoded {
  switch (type) {
    case 'time': {
      const t = decodeFields(bytes, timeMessage, path);
      const seconds = (t.seconds as number | undefined) ?? 0;
      return seconds === 0 && !t.nanos ? { value: undefined, zero: true } : { value: rfc3339(seconds), zero: false };
    }
    case 'quantity': {
      const q = decodeFields(bytes, quantityMessage, path);
      return { value: (q.string as string | undefined) ?? '0', zero: false };
    }
    case 'intOrString': {
      const v = decodeFields(bytes, intOrStringMessage, path);
      if (v.type === 1) return { value: (v.strVal as string | undefined) ?? '', zero: !v.strVal };
      if (v.type !== undefined && v.type !== 0)
        throw new ProtobufError(`${path}: IntOrString type ${String(v.type)} is neither 0 (int) nor 1 (string)`);
      return { value: (v.intVal as number | undefined) ?? 0, zero: !v.intVal };
    }
    case 'fieldsV1': {
      const raw = Buffer.from((decodeFields(bytes, fieldsV1Message, path).Raw as string | undefined) ?? '', 'base64');
      try {
        return { value: raw.length ? JSON.parse(raw.toString('utf8')) : {}, zero: false };
      } catch {
        throw new ProtobufError(`${path}: FieldsV1 does not hold JSON`);
      }
    }
  }
}

const isSpecial = (t: FieldType): t is Special => t === 'time' || t === 'quantity' || t === 'intOrString' || t === 'fieldsV1';
const isScalar = (t: FieldType): t is Scalar => typeof t === 'string' && !isSpecial(t);

function mapEntry(bytes: Buffer, valueType: Scalar | Special, path: string): [string, unknown] {
  const r = new Reader(bytes);
  let key = '';
  let value: unknown;
  while (!r.done) {
    const tag = r.size();
    const n = Math.floor(tag / 8);
    const wireType = tag & 7;
    if (n === 1) key = scalarValue('string', r, wireType, `${path} (map key)`).value as string;
    else if (n === 2) {
      if (isSpecial(valueType)) {
        if (wireType !== WIRE_BYTES) throw new ProtobufError(`${path}: expected a message for a map value`);
        value = specialValue(valueType, r.bytes(), path).value;
      } else value = scalarValue(valueType, r, wireType, path).value;
    } else throw new ProtobufError(`${path}: a map entry has field ${n}; only 1 (key) and 2 (value) exist`);
  }
  // proto2 writes nothing for an absent value; its JSON form is the zero value.
  if (value === undefined)
    value = valueType === 'quantity' ? '0' : valueType === 'int32' || valueType === 'int64' ? 0 : valueType === 'bool' ? false : '';
  return [key, value];
}

const child = (path: string, name: string) => (path ? `${path}.${name}` : name);

/** Decodes one message into its JSON form; `path` names where it is, for error messages. */
function decodeFields(buf: Buffer, msg: Message, path: string): Record<string, unknown> {
  const r = new Reader(buf);
  const out: Record<string, unknown> = {};
  while (!r.done) {
    const tag = r.size();
    const n = Math.floor(tag / 8);
    const wireType = tag & 7;
    const field = msg.fields.get(n);
    if (!field) {
      throw new ProtobufError(
        `${msg.name} field ${n}${path ? ` (in ${path})` : ''} is not one the local cluster decodes, so it stores nothing rather than the object without that field`,
      );
    }
    const where = child(path, field.name);
    const t = field.type;
    if (typeof t === 'object' && 'map' in t) {
      if (wireType !== WIRE_BYTES)
        throw new ProtobufError(`${where}: expected a map entry, got ${wireNames[wireType] ?? `wire type ${wireType}`}`);
      const [k, v] = mapEntry(r.bytes(), t.map, where);
      const m = (out[field.name] ??= {}) as Record<string, unknown>;
      m[k] = v;
      continue;
    }
    if (isScalar(t) && field.repeated && wireType === WIRE_BYTES && t !== 'string' && t !== 'bytes') {
      // A packed list of numbers or booleans.
      const packed = new Reader(r.bytes());
      const list = (out[field.name] ??= []) as unknown[];
      while (!packed.done) list.push(scalarValue(t, packed, WIRE_VARINT, where).value);
      continue;
    }
    let decoded: Decoded;
    if (isScalar(t)) decoded = scalarValue(t, r, wireType, where);
    else {
      if (wireType !== WIRE_BYTES)
        throw new ProtobufError(`${where}: expected a message, got ${wireNames[wireType] ?? `wire type ${wireType}`}`);
      const bytes = r.bytes();
      if (isSpecial(t)) decoded = specialValue(t, bytes, where);
      else if (field.inline) {
        Object.assign(out, decodeFields(bytes, t, path));
        continue;
      } else
        decoded = {
          value: decodeFields(bytes, t, field.repeated ? `${where}[${((out[field.name] as unknown[] | undefined) ?? []).length}]` : where),
          zero: false,
        };
    }
    if (field.repeated) {
      // Every element of a list is in its JSON form, zero or not.
      ((out[field.name] ??= []) as unknown[]).push(decoded.value ?? null);
    } else if (decoded.value === undefined || (decoded.zero && !field.keep)) {
      delete out[field.name];
    } else {
      out[field.name] = decoded.value;
    }
  }
  return out;
}

/** True when a decoded value holds nothing but empty objects. */
function isEmpty(v: unknown): boolean {
  if (v === null || v === undefined) return true;
  if (typeof v !== 'object' || Array.isArray(v)) return false;
  return Object.values(v).every(isEmpty);
}

/** Decodes a `application/vnd.kubernetes.protobuf` body into the JSON form of the object. */
export function decodeProtobufObject(body: Buffer): Record<string, any> {
  if (body.length < 4 || body.subarray(0, 4).toString('latin1') !== 'k8s\0')
    throw new ProtobufError('the body does not start with the Kubernetes protobuf magic number');
  const unknown = decodeFields(body.subarray(4), envelope, '') as {
    typeMeta?: { apiVersion?: string; kind?: string };
    raw?: string;
    contentEncoding?: string;
    contentType?: string;
  };
  const apiVersion = unknown.typeMeta?.apiVersion ?? '';
  const kind = unknown.typeMeta?.kind ?? '';
  const msg = kinds[`${apiVersion}/${kind}`];
  if (!msg) throw new ProtobufError(`${kind || 'this kind'} (${apiVersion || 'no apiVersion'}) is not supported in protobuf`);
  if (unknown.contentEncoding) throw new ProtobufError(`content encoding "${unknown.contentEncoding}" is not supported`);
  const obj: Record<string, any> = { apiVersion, kind, ...decodeFields(Buffer.from(unknown.raw ?? '', 'base64'), msg, '') };
  // kubectl sends an empty status with every object; the server sets status itself.
  if ('status' in obj && isEmpty(obj.status)) delete obj.status;
  return obj;
}
