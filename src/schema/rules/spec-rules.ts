/** Rules on spec's own fields (semantics §13). */
import { expressionRequirement, matchesRequirement } from '../../kube';
import { DEFAULT_PROGRESS_DEADLINE_SECONDS, DEFAULT_REVISION_HISTORY_LIMIT } from '../../planner';
import type { DocFinding } from '../findings';
import { BLUE_GREEN, CANARY, arr, error, has, int, obj, str, warning, withRelated, type JsonObject, type Rule } from './rule';

export const progressDeadlineAfterMinReady: Rule = {
  code: 'progress-deadline-after-min-ready',
  severity: 'error',
  help: 'The controller refuses a Rollout whose `progressDeadlineSeconds` (default 600) is not greater than `minReadySeconds` (default 0): no update could ever count as progressing. Raise the deadline or lower `minReadySeconds`.',
  summary: 'progressDeadlineSeconds (default 600) must be greater than minReadySeconds (default 0)',
  // Upstream validation.go:ValidateRolloutSpec: the deadline as set (even 0) or 600, against minReadySeconds or 0.
  check({ spec }) {
    if (!spec) return [];
    const explicit = has(spec, 'progressDeadlineSeconds');
    const deadline = explicit ? int(spec.progressDeadlineSeconds) : DEFAULT_PROGRESS_DEADLINE_SECONDS;
    // A value of the wrong type is the structural check's to report.
    const minReady = has(spec, 'minReadySeconds') ? int(spec.minReadySeconds) : 0;
    if (deadline === undefined || minReady === undefined || deadline > minReady) return [];
    return [
      error(
        this.code,
        explicit ? ['spec', 'progressDeadlineSeconds'] : ['spec', 'minReadySeconds'],
        explicit
          ? `progressDeadlineSeconds (${deadline}) must be greater than minReadySeconds (${minReady}${has(spec, 'minReadySeconds') ? '' : ', the default'})`
          : `minReadySeconds (${minReady}) must be less than progressDeadlineSeconds (default ${deadline})`,
      ),
    ];
  },
};

export const selectorRequired: Rule = {
  code: 'selector-required',
  severity: 'error',
  help: "Argo Rollouts refuses a Rollout without `spec.selector` (unless it takes its pods from a `workloadRef`), and an empty selector would select every pod of the namespace. Add `spec.selector.matchLabels` with the pod template's labels (the quick fix does).",
  summary: 'spec.selector is required unless workloadRef is used, and must not be empty',
  check({ spec }) {
    if (has(spec, 'workloadRef')) return [];
    const selector = spec?.selector;
    if (selector === undefined || selector === null) {
      return [
        error(
          this.code,
          ['spec', 'selector'],
          'spec.selector is required (unless spec.workloadRef is used): it says which pods belong to this Rollout',
          'missing',
        ),
      ];
    }
    const sel = obj(selector);
    if (!sel) return [];
    const labels = obj(sel.matchLabels);
    if ((!labels || Object.keys(labels).length === 0) && arr(sel.matchExpressions).length === 0) {
      return [
        error(
          this.code,
          ['spec', 'selector'],
          'spec.selector is empty: it would select every pod in the namespace; give matchLabels or matchExpressions',
          'key',
        ),
      ];
    }
    return [];
  },
};

/** Whether a label selector (matchLabels + matchExpressions) selects pods with these labels. */
export function selectorMatches(
  sel: JsonObject,
  labels: Record<string, unknown>,
): { ok: true } | { ok: false; reason: string; path: (string | number)[] } {
  const ml = obj(sel.matchLabels) ?? {};
  for (const [k, v] of Object.entries(ml)) {
    if (labels[k] === undefined) return { ok: false, reason: `the template has no label "${k}"`, path: ['matchLabels', k] };
    if (String(labels[k]) !== String(v))
      return {
        ok: false,
        reason: `the template's label ${k} is "${String(labels[k])}", the selector wants "${String(v)}"`,
        path: ['matchLabels', k],
      };
  }
  // The labels as the API server would see them (a YAML number is the label's text).
  const asText = Object.fromEntries(
    Object.entries(labels)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => [k, String(v)]),
  );
  const exprs = arr(sel.matchExpressions);
  for (let i = 0; i < exprs.length; i++) {
    const e = obj(exprs[i]);
    const key = str(e?.key);
    const op = str(e?.operator);
    if (!e || key === undefined || op === undefined) continue;
    const values = arr(e.values).map(String);
    const requirement = expressionRequirement({ key, operator: op, values });
    if (requirement && !matchesRequirement(asText, requirement))
      return {
        ok: false,
        reason: `the template's labels do not satisfy "${key} ${op}${values.length ? ` (${values.join(', ')})` : ''}"`,
        path: ['matchExpressions', i],
      };
  }
  return { ok: true };
}

export const selectorMatchesTemplate: Rule = {
  code: 'selector-matches-template',
  severity: 'error',
  help: "The controller refuses a Rollout whose `spec.selector` does not select its own pod template's labels: its ReplicaSets could never own their pods. Make `spec.template.metadata.labels` include every label of the selector.",
  summary: "spec.selector must select the pod template's labels",
  check({ spec }) {
    if (has(spec, 'workloadRef')) return [];
    const sel = obj(spec?.selector);
    const template = obj(spec?.template);
    if (!sel || !template) return [];
    const labels = obj(obj(template.metadata)?.labels) ?? {};
    const m = selectorMatches(sel, labels);
    if (m.ok) return [];
    // Upstream (Kubernetes' ValidatePodTemplateSpecForReplicaSet, run by validation.go:ValidateRolloutSpec) reports it at the template's labels.
    const written = obj(obj(template.metadata)?.labels) !== undefined;
    const finding = error(
      this.code,
      ['spec', 'template', 'metadata', 'labels'],
      `the pod template's labels do not match spec.selector: ${m.reason}`,
      written ? 'key' : 'missing',
    );
    return [withRelated(finding, [{ message: 'the selector term the labels miss', path: ['spec', 'selector', ...m.path] }])];
  },
};

export const workloadRefTemplate: Rule = {
  code: 'workload-ref-template',
  severity: 'error',
  help: "With `spec.workloadRef`, the pod template comes from the referenced workload: a template of the Rollout's own is refused or ignored. Remove `spec.template` (keep only what the controller allows).",
  summary: 'with workloadRef, the template must be empty (its pod spec comes from the workload)',
  check({ spec }) {
    if (!has(spec, 'workloadRef')) return [];
    const template = obj(spec?.template);
    if (!template) return [];
    const out: DocFinding[] = [];
    const meta = obj(template.metadata);
    // Argo's own test: a template with labels or annotations is not empty, and is refused.
    for (const k of ['labels', 'annotations'] as const) {
      const m = obj(meta?.[k]);
      if (m && Object.keys(m).length > 0) {
        out.push(
          error(
            this.code,
            ['spec', 'template', 'metadata', k],
            `spec.template must be empty when spec.workloadRef is used: put the pod ${k} on the referenced workload`,
            'key',
          ),
        );
      }
    }
    const podSpec = obj(template.spec);
    if (podSpec && Object.keys(podSpec).length > 0) {
      out.push(
        warning(
          this.code,
          ['spec', 'template', 'spec'],
          'spec.template.spec is ignored when spec.workloadRef is used: the pod spec comes from the referenced workload',
          'key',
        ),
      );
    }
    return out;
  },
};

/** Kubernetes label syntax: an optional DNS-subdomain prefix and a name of at most 63 characters. */
const LABEL_NAME = /^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
/** Kubernetes' DNS subdomain (RFC 1123), what most object names are. */
export const isDnsSubdomain = (v: string): boolean => v.length <= 253 && DNS_SUBDOMAIN.test(v);

function labelKeyProblem(key: string): string | undefined {
  const slash = key.indexOf('/');
  const prefix = slash >= 0 ? key.slice(0, slash) : undefined;
  const name = slash >= 0 ? key.slice(slash + 1) : key;
  if (prefix !== undefined && !isDnsSubdomain(prefix)) return `the prefix "${prefix}" is not a DNS subdomain`;
  if (name.length === 0 || name.length > 63 || !LABEL_NAME.test(name))
    return 'a label name is 1-63 letters, digits, "-", "_" or "." and starts and ends with a letter or digit';
  return undefined;
}

function labelValueProblem(value: string): string | undefined {
  if (value.length > 63 || !LABEL_NAME.test(value))
    return 'a label value is at most 63 letters, digits, "-", "_" or "." and starts and ends with a letter or digit';
  return undefined;
}

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const dnsLabelProblem = (v: string) =>
  v.length <= 63 && DNS_LABEL.test(v)
    ? undefined
    : 'it must be a DNS label: at most 63 lower-case letters, digits or "-", starting and ending with a letter or digit';
const dnsSubdomainProblem = (v: string) =>
  isDnsSubdomain(v)
    ? undefined
    : 'it must be a DNS subdomain: at most 253 lower-case letters, digits, "-" or ".", each part starting and ending with a letter or digit';
/** Kubernetes' IANA service name: a port name that a Service's targetPort can use. */
function portNameProblem(v: string): string | undefined {
  if (v.length <= 15 && DNS_LABEL.test(v) && /[a-z]/.test(v) && !v.includes('--')) return undefined;
  return 'a port name is at most 15 lower-case letters, digits or "-", with at least one letter, starting and ending with a letter or digit, without "--"';
}
/** A value meant to be substituted before it is applied (envsubst and Flux's `${VAR}`, a template's `{{ }}`): its final form is unknown. */
const substituted = (v: string) => v.includes('${') || v.includes('{{');

type Path = (string | number)[];

export const namesWellFormed: Rule = {
  code: 'names-well-formed',
  severity: 'error',
  help: "Object names, label keys and values and annotation keys must follow Kubernetes' syntax (DNS names, at most 63 characters per label part); otherwise `kubectl apply` fails. Rename the part the diagnostic points at.",
  summary: "names, labels and annotation keys follow Kubernetes' syntax (the API server rejects the Rollout otherwise)",
  check({ rollout, spec, canary, blueGreen }) {
    const out: DocFinding[] = [];
    const value = (v: unknown, path: Path, what: string, problem: (v: string) => string | undefined) => {
      const s = str(v);
      const p = s === undefined || substituted(s) ? undefined : problem(s);
      if (p) out.push(error(this.code, path, `invalid ${what} "${s}": ${p}`));
    };
    const labelsAndAnnotations = (metadata: unknown, at: Path) => {
      for (const [k, v] of Object.entries(obj(obj(metadata)?.labels) ?? {})) {
        const keyProblem = substituted(k) ? undefined : labelKeyProblem(k);
        if (keyProblem) out.push(error(this.code, [...at, 'labels', k], `invalid label key "${k}": ${keyProblem}`, 'key'));
        value(v, [...at, 'labels', k], 'label value', labelValueProblem);
      }
      for (const k of Object.keys(obj(obj(metadata)?.annotations) ?? {})) {
        const keyProblem = substituted(k) ? undefined : labelKeyProblem(k);
        if (keyProblem)
          out.push(
            error(
              this.code,
              [...at, 'annotations', k],
              `invalid annotation key "${k}": ${keyProblem.replace('label name', 'key name')}`,
              'key',
            ),
          );
      }
    };
    const metadata = obj(rollout.metadata);
    value(metadata?.name, ['metadata', 'name'], 'name', dnsSubdomainProblem);
    value(metadata?.namespace, ['metadata', 'namespace'], 'namespace', dnsLabelProblem);
    labelsAndAnnotations(metadata, ['metadata']);
    const template = obj(spec?.template);
    labelsAndAnnotations(template?.metadata, ['spec', 'template', 'metadata']);
    // The metadata the strategies add to the pods of one side.
    for (const k of ['canaryMetadata', 'stableMetadata'] as const) labelsAndAnnotations(canary?.[k], [...CANARY, k]);
    for (const k of ['previewMetadata', 'activeMetadata'] as const) labelsAndAnnotations(blueGreen?.[k], [...BLUE_GREEN, k]);
    const pod = obj(template?.spec);
    for (const list of ['initContainers', 'containers'] as const) {
      arr(pod?.[list]).forEach((c, i) => {
        const at = ['spec', 'template', 'spec', list, i];
        value(obj(c)?.name, [...at, 'name'], 'container name', dnsLabelProblem);
        arr(obj(c)?.ports).forEach((port, j) => value(obj(port)?.name, [...at, 'ports', j, 'name'], 'port name', portNameProblem));
      });
    }
    arr(pod?.volumes).forEach((v, i) =>
      value(obj(v)?.name, ['spec', 'template', 'spec', 'volumes', i, 'name'], 'volume name', dnsLabelProblem),
    );
    return out;
  },
};

export const selectorWellFormed: Rule = {
  code: 'selector-well-formed',
  severity: 'error',
  help: "The API server rejects a selector whose label keys or values break Kubernetes' syntax, or whose `matchExpressions` use an unknown operator or the wrong number of values. Fix the key, value or expression the diagnostic points at.",
  summary: 'spec.selector uses valid label keys and values and well-formed expressions',
  check({ spec }) {
    const sel = obj(spec?.selector);
    if (!sel) return [];
    const out: DocFinding[] = [];
    for (const [k, v] of Object.entries(obj(sel.matchLabels) ?? {})) {
      const keyProblem = labelKeyProblem(k);
      if (keyProblem) out.push(error(this.code, ['spec', 'selector', 'matchLabels', k], `invalid label key "${k}": ${keyProblem}`, 'key'));
      const value = str(v);
      const valueProblem = value === undefined ? undefined : labelValueProblem(value);
      if (valueProblem)
        out.push(error(this.code, ['spec', 'selector', 'matchLabels', k], `invalid label value "${value}": ${valueProblem}`));
    }
    arr(sel.matchExpressions).forEach((e, i) => {
      const expr = obj(e);
      const op = str(expr?.operator);
      if (!expr || !op) return;
      const values = arr(expr.values);
      const path = ['spec', 'selector', 'matchExpressions', i];
      if ((op === 'In' || op === 'NotIn') && values.length === 0)
        out.push(error(this.code, [...path, 'values'], `operator ${op} needs at least one value`, 'missing'));
      if ((op === 'Exists' || op === 'DoesNotExist') && values.length > 0)
        out.push(error(this.code, [...path, 'values'], `operator ${op} takes no values`, 'key'));
      const key = str(expr.key);
      const keyProblem = key === undefined ? undefined : labelKeyProblem(key);
      if (keyProblem) out.push(error(this.code, [...path, 'key'], `invalid label key "${key}": ${keyProblem}`));
    });
    return out;
  },
};

export const templateRequired: Rule = {
  code: 'template-required',
  severity: 'error',
  help: "Without `workloadRef`, the Rollout's pods come from `spec.template`, which needs at least one container. Add `spec.template.spec.containers`, or point `spec.workloadRef` at a Deployment.",
  summary: 'without workloadRef, the pod template must have at least one container',
  check({ spec }) {
    if (has(spec, 'workloadRef')) return [];
    const template = obj(spec?.template);
    const podSpec = obj(template?.spec);
    // Kubernetes requires at least one container (upstream validation.go:ValidateRolloutSpec, through ValidatePodTemplateSpecForReplicaSet).
    if (podSpec && Array.isArray(podSpec.containers) && podSpec.containers.length === 0) {
      return [
        error(
          this.code,
          ['spec', 'template', 'spec', 'containers'],
          'the pod template needs at least one container: Kubernetes refuses an empty containers list',
        ),
      ];
    }
    // When template.spec is a mapping, the Kubernetes schema check reports missing containers.
    if (podSpec) return [];
    const path = template ? ['spec', 'template', 'spec', 'containers'] : ['spec', 'template'];
    return [
      error(
        this.code,
        path,
        template
          ? 'the pod template needs a spec with at least one container'
          : 'spec.template is required (unless spec.workloadRef is used): it describes the pods to run',
        'missing',
      ),
    ];
  },
};

export const restartPolicyAlways: Rule = {
  code: 'restart-policy-always',
  severity: 'error',
  help: "A ReplicaSet's pods must restart: Kubernetes accepts only `restartPolicy: Always` in a pod template owned by a ReplicaSet. Set it to `Always` or remove it (the quick fix does).",
  summary: "the pod template's restartPolicy must be Always",
  check({ spec }) {
    const policy = str(obj(obj(spec?.template)?.spec)?.restartPolicy);
    // Values outside Kubernetes' own set are reported by the pod template schema check.
    if (policy === undefined || policy === 'Always' || (policy !== 'Never' && policy !== 'OnFailure')) return [];
    return [
      error(
        this.code,
        ['spec', 'template', 'spec', 'restartPolicy'],
        `restartPolicy must be Always for the pods of a Rollout, not ${policy}`,
      ),
    ];
  },
};

export const activeDeadlineUnsupported: Rule = {
  code: 'active-deadline-seconds',
  severity: 'error',
  help: 'A ReplicaSet does not support `activeDeadlineSeconds` in its pod template: pods would be killed after the deadline and recreated forever. Remove the field.',
  summary: 'the pod template must not set activeDeadlineSeconds (a ReplicaSet does not support it)',
  // Upstream validation.go:ValidateRolloutSpec runs Kubernetes' ValidatePodTemplateSpecForReplicaSet, which refuses it.
  check({ spec }) {
    const pod = obj(obj(spec?.template)?.spec);
    if (!has(pod, 'activeDeadlineSeconds')) return [];
    return [
      error(
        this.code,
        ['spec', 'template', 'spec', 'activeDeadlineSeconds'],
        'activeDeadlineSeconds is not supported in the pod template of a Rollout (nor of a ReplicaSet): its pods would be killed after that time; remove it',
        'key',
      ),
    ];
  },
};

export const strategyExactlyOne: Rule = {
  code: 'strategy-exactly-one',
  severity: 'error',
  help: 'A Rollout needs exactly one strategy: `spec.strategy.canary` or `spec.strategy.blueGreen`. Remove one of them, or add the missing one.',
  summary: 'spec.strategy must name exactly one of canary and blueGreen',
  check({ spec }) {
    const strategy = obj(spec?.strategy);
    if (!strategy) {
      // Present but not a mapping: the structural check reports it. Absent under an existing spec: missing-field.
      if (spec && has(spec, 'strategy')) return [];
      if (spec) return [];
      return [error(this.code, ['spec', 'strategy'], 'spec.strategy is required: give canary or blueGreen', 'missing')];
    }
    const canary = has(strategy, 'canary');
    const blueGreen = has(strategy, 'blueGreen');
    if (canary && blueGreen)
      return [error(this.code, [...BLUE_GREEN], 'spec.strategy has both canary and blueGreen: keep exactly one', 'key')];
    if (!canary && !blueGreen) {
      // `canary:` with nothing under it is null, which Kubernetes reads as no strategy at all.
      const empty = (['canary', 'blueGreen'] as const).find((k) => k in strategy);
      if (empty)
        return [
          error(
            this.code,
            ['spec', 'strategy', empty],
            `spec.strategy.${empty} is empty (null), which counts as no strategy: write \`${empty}: {}\` or give its fields`,
            'key',
          ),
        ];
      return [error(this.code, ['spec', 'strategy'], 'spec.strategy needs exactly one of canary or blueGreen', 'key')];
    }
    return [];
  },
};

export const revisionLimitWithinHistory: Rule = {
  code: 'scale-down-revision-limit',
  severity: 'error',
  help: '`scaleDownDelayRevisionLimit` keeps old ReplicaSets running, but no more can be kept than `revisionHistoryLimit` keeps at all. Lower the revision limit or raise the history limit.',
  summary: 'blueGreen.scaleDownDelayRevisionLimit must not exceed revisionHistoryLimit',
  check({ spec, blueGreen }) {
    const limit = int(blueGreen?.scaleDownDelayRevisionLimit);
    if (limit === undefined) return [];
    const history = int(spec?.revisionHistoryLimit) ?? DEFAULT_REVISION_HISTORY_LIMIT;
    if (limit <= history) return [];
    return [
      error(
        this.code,
        [...BLUE_GREEN, 'scaleDownDelayRevisionLimit'],
        `scaleDownDelayRevisionLimit (${limit}) must not exceed revisionHistoryLimit (${history}${has(spec, 'revisionHistoryLimit') ? '' : ', the default'})`,
      ),
    ];
  },
};
