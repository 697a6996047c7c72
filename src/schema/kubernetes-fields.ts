/**
 * The Kubernetes types of a pod template (PodSpec, Container, Probe, ... and ObjectMeta), as
 * @kubernetes/client-node generates them from the Kubernetes OpenAPI document: each model class
 * lists its fields' JSON names and types (`attributeTypeMap`). Read from the library rather than
 * copied, they give the pod template what the catalog gives the rest of a Rollout: completion of
 * keys, the type on hover, and "unknown field" (with "did you mean") where a key is misspelled
 * (pod-template.ts for the pod spec, structure.ts for metadata and selectors). Values are checked
 * by kubernetes-models (pod-template.ts).
 */
import type { FieldSpec, FieldType } from './field-spec';

interface ModelClass {
  readonly attributeTypeMap: readonly { readonly baseName: string; readonly type: string; readonly format: string }[];
}

/** The catalog's names for the Kubernetes types it leaves to this table. */
export const KUBERNETES_ROOTS = { PodSpec: 'V1PodSpec', ObjectMeta: 'V1ObjectMeta', LabelSelector: 'V1LabelSelector' } as const;

/**
 * Every model a pod template reaches from V1PodTemplateSpec, each loaded the first time it is
 * needed. Each is named here so that the bundler includes just these (the library has hundreds);
 * a test checks that the list is closed: every type one of them refers to is in it.
 */
/* eslint-disable @typescript-eslint/no-require-imports */
export const KUBERNETES_MODELS: Readonly<Record<string, () => ModelClass>> = {
  CoreV1ResourceClaim: () => require('@kubernetes/client-node/dist/gen/models/CoreV1ResourceClaim.js').CoreV1ResourceClaim,
  V1AWSElasticBlockStoreVolumeSource: () =>
    require('@kubernetes/client-node/dist/gen/models/V1AWSElasticBlockStoreVolumeSource.js').V1AWSElasticBlockStoreVolumeSource,
  V1Affinity: () => require('@kubernetes/client-node/dist/gen/models/V1Affinity.js').V1Affinity,
  V1AppArmorProfile: () => require('@kubernetes/client-node/dist/gen/models/V1AppArmorProfile.js').V1AppArmorProfile,
  V1AzureDiskVolumeSource: () => require('@kubernetes/client-node/dist/gen/models/V1AzureDiskVolumeSource.js').V1AzureDiskVolumeSource,
  V1AzureFileVolumeSource: () => require('@kubernetes/client-node/dist/gen/models/V1AzureFileVolumeSource.js').V1AzureFileVolumeSource,
  V1CSIVolumeSource: () => require('@kubernetes/client-node/dist/gen/models/V1CSIVolumeSource.js').V1CSIVolumeSource,
  V1Capabilities: () => require('@kubernetes/client-node/dist/gen/models/V1Capabilities.js').V1Capabilities,
  V1CephFSVolumeSource: () => require('@kubernetes/client-node/dist/gen/models/V1CephFSVolumeSource.js').V1CephFSVolumeSource,
  V1CinderVolumeSource: () => require('@kubernetes/client-node/dist/gen/models/V1CinderVolumeSource.js').V1CinderVolumeSource,
  V1ClusterTrustBundleProjection: () =>
    require('@kubernetes/client-node/dist/gen/models/V1ClusterTrustBundleProjection.js').V1ClusterTrustBundleProjection,
  V1ConfigMapEnvSource: () => require('@kubernetes/client-node/dist/gen/models/V1ConfigMapEnvSource.js').V1ConfigMapEnvSource,
  V1ConfigMapKeySelector: () => require('@kubernetes/client-node/dist/gen/models/V1ConfigMapKeySelector.js').V1ConfigMapKeySelector,
  V1ConfigMapProjection: () => require('@kubernetes/client-node/dist/gen/models/V1ConfigMapProjection.js').V1ConfigMapProjection,
  V1ConfigMapVolumeSource: () => require('@kubernetes/client-node/dist/gen/models/V1ConfigMapVolumeSource.js').V1ConfigMapVolumeSource,
  V1Container: () => require('@kubernetes/client-node/dist/gen/models/V1Container.js').V1Container,
  V1ContainerPort: () => require('@kubernetes/client-node/dist/gen/models/V1ContainerPort.js').V1ContainerPort,
  V1ContainerResizePolicy: () => require('@kubernetes/client-node/dist/gen/models/V1ContainerResizePolicy.js').V1ContainerResizePolicy,
  V1ContainerRestartRule: () => require('@kubernetes/client-node/dist/gen/models/V1ContainerRestartRule.js').V1ContainerRestartRule,
  V1ContainerRestartRuleOnExitCodes: () =>
    require('@kubernetes/client-node/dist/gen/models/V1ContainerRestartRuleOnExitCodes.js').V1ContainerRestartRuleOnExitCodes,
  V1DownwardAPIProjection: () => require('@kubernetes/client-node/dist/gen/models/V1DownwardAPIProjection.js').V1DownwardAPIProjection,
  V1DownwardAPIVolumeFile: () => require('@kubernetes/client-node/dist/gen/models/V1DownwardAPIVolumeFile.js').V1DownwardAPIVolumeFile,
  V1DownwardAPIVolumeSource: () =>
    require('@kubernetes/client-node/dist/gen/models/V1DownwardAPIVolumeSource.js').V1DownwardAPIVolumeSource,
  V1EmptyDirVolumeSource: () => require('@kubernetes/client-node/dist/gen/models/V1EmptyDirVolumeSource.js').V1EmptyDirVolumeSource,
  V1EnvFromSource: () => require('@kubernetes/client-node/dist/gen/models/V1EnvFromSource.js').V1EnvFromSource,
  V1EnvVar: () => require('@kubernetes/client-node/dist/gen/models/V1EnvVar.js').V1EnvVar,
  V1EnvVarSource: () => require('@kubernetes/client-node/dist/gen/models/V1EnvVarSource.js').V1EnvVarSource,
  V1EphemeralContainer: () => require('@kubernetes/client-node/dist/gen/models/V1EphemeralContainer.js').V1EphemeralContainer,
  V1EphemeralVolumeSource: () => require('@kubernetes/client-node/dist/gen/models/V1EphemeralVolumeSource.js').V1EphemeralVolumeSource,
  V1ExecAction: () => require('@kubernetes/client-node/dist/gen/models/V1ExecAction.js').V1ExecAction,
  V1FCVolumeSource: () => require('@kubernetes/client-node/dist/gen/models/V1FCVolumeSource.js').V1FCVolumeSource,
  V1FileKeySelector: () => require('@kubernetes/client-node/dist/gen/models/V1FileKeySelector.js').V1FileKeySelector,
  V1FlexVolumeSource: () => require('@kubernetes/client-node/dist/gen/models/V1FlexVolumeSource.js').V1FlexVolumeSource,
  V1FlockerVolumeSource: () => require('@kubernetes/client-node/dist/gen/models/V1FlockerVolumeSource.js').V1FlockerVolumeSource,
  V1GCEPersistentDiskVolumeSource: () =>
    require('@kubernetes/client-node/dist/gen/models/V1GCEPersistentDiskVolumeSource.js').V1GCEPersistentDiskVolumeSource,
  V1GRPCAction: () => require('@kubernetes/client-node/dist/gen/models/V1GRPCAction.js').V1GRPCAction,
  V1GitRepoVolumeSource: () => require('@kubernetes/client-node/dist/gen/models/V1GitRepoVolumeSource.js').V1GitRepoVolumeSource,
  V1GlusterfsVolumeSource: () => require('@kubernetes/client-node/dist/gen/models/V1GlusterfsVolumeSource.js').V1GlusterfsVolumeSource,
  V1HTTPGetAction: () => require('@kubernetes/client-node/dist/gen/models/V1HTTPGetAction.js').V1HTTPGetAction,
  V1HTTPHeader: () => require('@kubernetes/client-node/dist/gen/models/V1HTTPHeader.js').V1HTTPHeader,
  V1HostAlias: () => require('@kubernetes/client-node/dist/gen/models/V1HostAlias.js').V1HostAlias,
  V1HostPathVolumeSource: () => require('@kubernetes/client-node/dist/gen/models/V1HostPathVolumeSource.js').V1HostPathVolumeSource,
  V1ISCSIVolumeSource: () => require('@kubernetes/client-node/dist/gen/models/V1ISCSIVolumeSource.js').V1ISCSIVolumeSource,
  V1ImageVolumeSource: () => require('@kubernetes/client-node/dist/gen/models/V1ImageVolumeSource.js').V1ImageVolumeSource,
  V1KeyToPath: () => require('@kubernetes/client-node/dist/gen/models/V1KeyToPath.js').V1KeyToPath,
  V1LabelSelector: () => require('@kubernetes/client-node/dist/gen/models/V1LabelSelector.js').V1LabelSelector,
  V1LabelSelectorRequirement: () =>
    require('@kubernetes/client-node/dist/gen/models/V1LabelSelectorRequirement.js').V1LabelSelectorRequirement,
  V1Lifecycle: () => require('@kubernetes/client-node/dist/gen/models/V1Lifecycle.js').V1Lifecycle,
  V1LifecycleHandler: () => require('@kubernetes/client-node/dist/gen/models/V1LifecycleHandler.js').V1LifecycleHandler,
  V1LocalObjectReference: () => require('@kubernetes/client-node/dist/gen/models/V1LocalObjectReference.js').V1LocalObjectReference,
  V1ManagedFieldsEntry: () => require('@kubernetes/client-node/dist/gen/models/V1ManagedFieldsEntry.js').V1ManagedFieldsEntry,
  V1NFSVolumeSource: () => require('@kubernetes/client-node/dist/gen/models/V1NFSVolumeSource.js').V1NFSVolumeSource,
  V1NodeAffinity: () => require('@kubernetes/client-node/dist/gen/models/V1NodeAffinity.js').V1NodeAffinity,
  V1NodeSelector: () => require('@kubernetes/client-node/dist/gen/models/V1NodeSelector.js').V1NodeSelector,
  V1NodeSelectorRequirement: () =>
    require('@kubernetes/client-node/dist/gen/models/V1NodeSelectorRequirement.js').V1NodeSelectorRequirement,
  V1NodeSelectorTerm: () => require('@kubernetes/client-node/dist/gen/models/V1NodeSelectorTerm.js').V1NodeSelectorTerm,
  V1ObjectFieldSelector: () => require('@kubernetes/client-node/dist/gen/models/V1ObjectFieldSelector.js').V1ObjectFieldSelector,
  V1ObjectMeta: () => require('@kubernetes/client-node/dist/gen/models/V1ObjectMeta.js').V1ObjectMeta,
  V1OwnerReference: () => require('@kubernetes/client-node/dist/gen/models/V1OwnerReference.js').V1OwnerReference,
  V1PersistentVolumeClaimSpec: () =>
    require('@kubernetes/client-node/dist/gen/models/V1PersistentVolumeClaimSpec.js').V1PersistentVolumeClaimSpec,
  V1PersistentVolumeClaimTemplate: () =>
    require('@kubernetes/client-node/dist/gen/models/V1PersistentVolumeClaimTemplate.js').V1PersistentVolumeClaimTemplate,
  V1PersistentVolumeClaimVolumeSource: () =>
    require('@kubernetes/client-node/dist/gen/models/V1PersistentVolumeClaimVolumeSource.js').V1PersistentVolumeClaimVolumeSource,
  V1PhotonPersistentDiskVolumeSource: () =>
    require('@kubernetes/client-node/dist/gen/models/V1PhotonPersistentDiskVolumeSource.js').V1PhotonPersistentDiskVolumeSource,
  V1PodAffinity: () => require('@kubernetes/client-node/dist/gen/models/V1PodAffinity.js').V1PodAffinity,
  V1PodAffinityTerm: () => require('@kubernetes/client-node/dist/gen/models/V1PodAffinityTerm.js').V1PodAffinityTerm,
  V1PodAntiAffinity: () => require('@kubernetes/client-node/dist/gen/models/V1PodAntiAffinity.js').V1PodAntiAffinity,
  V1PodCertificateProjection: () =>
    require('@kubernetes/client-node/dist/gen/models/V1PodCertificateProjection.js').V1PodCertificateProjection,
  V1PodDNSConfig: () => require('@kubernetes/client-node/dist/gen/models/V1PodDNSConfig.js').V1PodDNSConfig,
  V1PodDNSConfigOption: () => require('@kubernetes/client-node/dist/gen/models/V1PodDNSConfigOption.js').V1PodDNSConfigOption,
  V1PodOS: () => require('@kubernetes/client-node/dist/gen/models/V1PodOS.js').V1PodOS,
  V1PodReadinessGate: () => require('@kubernetes/client-node/dist/gen/models/V1PodReadinessGate.js').V1PodReadinessGate,
  V1PodResourceClaim: () => require('@kubernetes/client-node/dist/gen/models/V1PodResourceClaim.js').V1PodResourceClaim,
  V1PodSchedulingGate: () => require('@kubernetes/client-node/dist/gen/models/V1PodSchedulingGate.js').V1PodSchedulingGate,
  V1PodSecurityContext: () => require('@kubernetes/client-node/dist/gen/models/V1PodSecurityContext.js').V1PodSecurityContext,
  V1PodSpec: () => require('@kubernetes/client-node/dist/gen/models/V1PodSpec.js').V1PodSpec,
  V1PodTemplateSpec: () => require('@kubernetes/client-node/dist/gen/models/V1PodTemplateSpec.js').V1PodTemplateSpec,
  V1PortworxVolumeSource: () => require('@kubernetes/client-node/dist/gen/models/V1PortworxVolumeSource.js').V1PortworxVolumeSource,
  V1PreferredSchedulingTerm: () =>
    require('@kubernetes/client-node/dist/gen/models/V1PreferredSchedulingTerm.js').V1PreferredSchedulingTerm,
  V1Probe: () => require('@kubernetes/client-node/dist/gen/models/V1Probe.js').V1Probe,
  V1ProjectedVolumeSource: () => require('@kubernetes/client-node/dist/gen/models/V1ProjectedVolumeSource.js').V1ProjectedVolumeSource,
  V1QuobyteVolumeSource: () => require('@kubernetes/client-node/dist/gen/models/V1QuobyteVolumeSource.js').V1QuobyteVolumeSource,
  V1RBDVolumeSource: () => require('@kubernetes/client-node/dist/gen/models/V1RBDVolumeSource.js').V1RBDVolumeSource,
  V1ResourceFieldSelector: () => require('@kubernetes/client-node/dist/gen/models/V1ResourceFieldSelector.js').V1ResourceFieldSelector,
  V1ResourceRequirements: () => require('@kubernetes/client-node/dist/gen/models/V1ResourceRequirements.js').V1ResourceRequirements,
  V1SELinuxOptions: () => require('@kubernetes/client-node/dist/gen/models/V1SELinuxOptions.js').V1SELinuxOptions,
  V1ScaleIOVolumeSource: () => require('@kubernetes/client-node/dist/gen/models/V1ScaleIOVolumeSource.js').V1ScaleIOVolumeSource,
  V1SeccompProfile: () => require('@kubernetes/client-node/dist/gen/models/V1SeccompProfile.js').V1SeccompProfile,
  V1SecretEnvSource: () => require('@kubernetes/client-node/dist/gen/models/V1SecretEnvSource.js').V1SecretEnvSource,
  V1SecretKeySelector: () => require('@kubernetes/client-node/dist/gen/models/V1SecretKeySelector.js').V1SecretKeySelector,
  V1SecretProjection: () => require('@kubernetes/client-node/dist/gen/models/V1SecretProjection.js').V1SecretProjection,
  V1SecretVolumeSource: () => require('@kubernetes/client-node/dist/gen/models/V1SecretVolumeSource.js').V1SecretVolumeSource,
  V1SecurityContext: () => require('@kubernetes/client-node/dist/gen/models/V1SecurityContext.js').V1SecurityContext,
  V1ServiceAccountTokenProjection: () =>
    require('@kubernetes/client-node/dist/gen/models/V1ServiceAccountTokenProjection.js').V1ServiceAccountTokenProjection,
  V1SleepAction: () => require('@kubernetes/client-node/dist/gen/models/V1SleepAction.js').V1SleepAction,
  V1StorageOSVolumeSource: () => require('@kubernetes/client-node/dist/gen/models/V1StorageOSVolumeSource.js').V1StorageOSVolumeSource,
  V1Sysctl: () => require('@kubernetes/client-node/dist/gen/models/V1Sysctl.js').V1Sysctl,
  V1TCPSocketAction: () => require('@kubernetes/client-node/dist/gen/models/V1TCPSocketAction.js').V1TCPSocketAction,
  V1Toleration: () => require('@kubernetes/client-node/dist/gen/models/V1Toleration.js').V1Toleration,
  V1TopologySpreadConstraint: () =>
    require('@kubernetes/client-node/dist/gen/models/V1TopologySpreadConstraint.js').V1TopologySpreadConstraint,
  V1TypedLocalObjectReference: () =>
    require('@kubernetes/client-node/dist/gen/models/V1TypedLocalObjectReference.js').V1TypedLocalObjectReference,
  V1TypedObjectReference: () => require('@kubernetes/client-node/dist/gen/models/V1TypedObjectReference.js').V1TypedObjectReference,
  V1Volume: () => require('@kubernetes/client-node/dist/gen/models/V1Volume.js').V1Volume,
  V1VolumeDevice: () => require('@kubernetes/client-node/dist/gen/models/V1VolumeDevice.js').V1VolumeDevice,
  V1VolumeMount: () => require('@kubernetes/client-node/dist/gen/models/V1VolumeMount.js').V1VolumeMount,
  V1VolumeProjection: () => require('@kubernetes/client-node/dist/gen/models/V1VolumeProjection.js').V1VolumeProjection,
  V1VolumeResourceRequirements: () =>
    require('@kubernetes/client-node/dist/gen/models/V1VolumeResourceRequirements.js').V1VolumeResourceRequirements,
  V1VsphereVirtualDiskVolumeSource: () =>
    require('@kubernetes/client-node/dist/gen/models/V1VsphereVirtualDiskVolumeSource.js').V1VsphereVirtualDiskVolumeSource,
  V1WeightedPodAffinityTerm: () =>
    require('@kubernetes/client-node/dist/gen/models/V1WeightedPodAffinityTerm.js').V1WeightedPodAffinityTerm,
  V1WindowsSecurityContextOptions: () =>
    require('@kubernetes/client-node/dist/gen/models/V1WindowsSecurityContextOptions.js').V1WindowsSecurityContextOptions,
};
/* eslint-enable @typescript-eslint/no-require-imports */

/** `V1Container` -> `Container`. */
export function kindName(model: string): string {
  return model.replace(/^(?:Core)?V\d+(?:(?:alpha|beta)\d+)?/, '');
}

/** The apimachinery (meta) types, which the API reference lists under `-v1-meta` rather than `-v1-core`. */
const META_MODELS = new Set(['V1ObjectMeta', 'V1LabelSelector', 'V1LabelSelectorRequirement', 'V1OwnerReference', 'V1ManagedFieldsEntry']);

/** Where the Kubernetes API reference documents a model. */
function referenceLink(model: string): string {
  const kind = kindName(model).toLowerCase();
  return `https://kubernetes.io/docs/reference/generated/kubernetes-api/v1.34/#${kind}-v1-${META_MODELS.has(model) ? 'meta' : 'core'}`;
}

const SCALARS: Readonly<Record<string, { type: FieldType; text: string }>> = {
  string: { type: 'string', text: 'string' },
  boolean: { type: 'bool', text: 'boolean' },
  Date: { type: 'string', text: 'date-time string' },
  IntOrString: { type: 'any', text: 'port number or name' },
  any: { type: 'any', text: 'any value' },
  object: { type: 'any', text: 'any value' },
};

/** What a field of the model holds, from its attributeTypeMap entry. */
function fieldSpec(owner: string, name: string, type: string, format: string, field = name, part?: 'item' | 'value'): FieldSpec {
  const docs = (text: string) => `A field of the Kubernetes ${kindName(owner)}: ${text}, checked against the Kubernetes schema.`;
  const list = /^Array<(.+)>$/.exec(type);
  const map = /^\{ \[key: string\]: (.+); \}$/.exec(type);
  const held = list?.[1] ?? map?.[1] ?? type;
  const base = {
    name,
    link: referenceLink(owner),
    kubernetesField: { model: owner, field, ...(Object.hasOwn(KUBERNETES_MODELS, held) ? { holds: held } : {}), ...(part ? { part } : {}) },
  };
  if (list) {
    const items = fieldSpec(owner, 'item', list[1]!, format, field, 'item');
    return { ...base, type: 'list', docs: docs(`a list of ${typeText(list[1]!, format)}`), items };
  }
  if (map)
    return {
      ...base,
      type: 'map',
      docs: docs(`a map of ${typeText(map[1]!, format)} values`),
      values: fieldSpec(owner, 'value', map[1]!, format, field, 'value'),
    };
  if (type === 'number') {
    const integer = format === 'int32' || format === 'int64';
    return { ...base, type: integer ? 'int' : 'any', docs: docs(integer ? 'a whole number' : 'a number') };
  }
  const scalar = SCALARS[type];
  if (scalar) return { ...base, type: scalar.type, docs: docs(withArticle(scalar.text)) };
  // A type missing from KUBERNETES_MODELS (a newer library's) is left open rather than read as having no fields.
  if (!Object.hasOwn(KUBERNETES_MODELS, type)) return { ...base, type: 'any', docs: docs(withArticle(kindName(type))) };
  return {
    ...base,
    type: 'object',
    docs: docs(withArticle(kindName(type))),
    get children() {
      return modelChildren(type);
    },
  };
}

/**
 * Kubernetes' own descriptions of these types, by model: `$` for the type, then one per field.
 * The library ships them only in its declarations' comments; the build reads them into
 * dist/kubernetes-docs.json (scripts/kubernetes-docs.mjs), which the server and the CLI read.
 */
export type KubernetesDescriptions = Readonly<Record<string, Readonly<Record<string, string>>>>;

const own = (o: Readonly<Record<string, string>> | undefined, key: string) => (o && Object.hasOwn(o, key) ? o[key] : undefined);

/** The Kubernetes description of a field of a Kubernetes type: its own, or else that of the type it holds. */
export function kubernetesDescription(descriptions: KubernetesDescriptions, spec: FieldSpec): string | undefined {
  const at = spec.kubernetesField;
  if (!at) return undefined;
  const of = (model: string) => (Object.hasOwn(descriptions, model) ? descriptions[model] : undefined);
  return own(of(at.model), at.field) ?? (at.holds ? own(of(at.holds), '$') : undefined);
}

/** Kubernetes' prose is plain text: characters that markdown would read as markup are shown as they are. */
export const escapeMarkdown = (text: string): string => text.replace(/[\\`*_[\]<>]/g, (c) => `\\${c}`);

const withArticle = (noun: string): string => `${/^[aeiou]/i.test(noun) ? 'an' : 'a'} ${noun}`;

function typeText(type: string, format: string): string {
  if (type === 'number') return format === 'int32' || format === 'int64' ? 'whole number' : 'number';
  return SCALARS[type]?.text ?? kindName(type);
}

const childrenOf = new Map<string, Record<string, FieldSpec>>();

/** A model's fields as catalog children, built on first use; fields of a model type build theirs when first read. */
export function modelChildren(model: string): Readonly<Record<string, FieldSpec>> {
  let children = childrenOf.get(model);
  if (children) return children;
  children = {};
  const load = Object.hasOwn(KUBERNETES_MODELS, model) ? KUBERNETES_MODELS[model] : undefined;
  for (const a of load?.().attributeTypeMap ?? []) children[a.baseName] = fieldSpec(model, a.baseName, a.type, a.format);
  childrenOf.set(model, children);
  return children;
}
