/**
 * An AnalysisRun from its templates, as Argo's rollout controller builds one: the metrics of every
 * referenced AnalysisTemplate / ClusterAnalysisTemplate merged (a metric name may appear once), the
 * templates' args merged with the rollout's (the rollout's value wins; args the templates do not
 * declare are dropped; every arg must end with a value or a valueFrom), `fieldRef` resolved on the
 * rollout's own fields, dryRun and measurementRetention of templates and rollout together.
 * `secretKeyRef` stays a reference: the analysis controller reads the Secret when it measures, so
 * a secret's value is never written into the run. Pure: the templates are passed in.
 */
import type { AnalysisRun, Experiment, Rollout } from '../../planner';
import type { AnalysisTemplate, Argument, FullAnalysisRun, Metric } from './types';

export interface TemplateRef {
  templateName?: string;
  clusterScope?: boolean;
}

/**
 * What a run is made for: the Rollout, or the Experiment that runs it (its owning Rollout when it
 * has one, whose fields `fieldRef` then reads, as Argo resolves them when it makes the experiment).
 */
export type RunOwner = Rollout | Experiment;

const ownerWord = (owner: RunOwner) => (owner.kind === 'Experiment' ? 'experiment' : 'rollout');

/** Finds a referenced template; undefined when it does not exist. */
export type TemplateLookup = (ref: { name: string; clusterScope: boolean; namespace: string }) => AnalysisTemplate | undefined;

export type Resolution = { ok: true; run: FullAnalysisRun } | { ok: false; reason: string };

/** The templates a run (as the planner made it) references. */
export function templateRefsOf(run: AnalysisRun): { name: string; clusterScope: boolean }[] {
  const refs = (run.spec as { templates?: TemplateRef[] } | undefined)?.templates ?? [];
  return refs.map((t) => ({ name: t.templateName ?? '', clusterScope: t.clusterScope === true }));
}

const kindName = (clusterScope: boolean) => (clusterScope ? 'ClusterAnalysisTemplate' : 'AnalysisTemplate');

/** Fills in a run's metrics and args from its templates. The input is not modified. */
export function resolveAnalysisRun(run: AnalysisRun, rollout: RunOwner, lookup: TemplateLookup): Resolution {
  const namespace = run.metadata?.namespace ?? rollout.metadata?.namespace ?? 'default';
  const refs = templateRefsOf(run);
  if (refs.length === 0) return { ok: false, reason: 'the analysis names no templates' };
  const metrics: Metric[] = [];
  const templateArgs: Argument[] = [];
  const dryRun: { metricName: string }[] = [];
  const retention: { metricName: string; limit: number }[] = [];
  for (const ref of refs) {
    if (!ref.name) return { ok: false, reason: `a template reference has no templateName` };
    const template = lookup({ ...ref, namespace });
    if (!template) {
      return {
        ok: false,
        reason: ref.clusterScope
          ? `ClusterAnalysisTemplate "${ref.name}" not found`
          : `AnalysisTemplate "${ref.name}" not found in namespace "${namespace}"`,
      };
    }
    for (const metric of template.spec?.metrics ?? []) {
      if (metrics.some((m) => m.name === metric.name))
        return { ok: false, reason: `two metrics have the same name "${metric.name}" (${kindName(ref.clusterScope)} "${ref.name}")` };
      metrics.push(structuredClone(metric));
    }
    for (const arg of template.spec?.args ?? []) {
      const i = templateArgs.findIndex((a) => a.name === arg.name);
      if (i < 0) templateArgs.push(structuredClone(arg));
      else if (arg.value !== undefined && templateArgs[i]!.value !== undefined && arg.value !== templateArgs[i]!.value) {
        return { ok: false, reason: `argument "${arg.name}" is given different values by the templates` };
      } else if (templateArgs[i]!.value === undefined && templateArgs[i]!.valueFrom === undefined) templateArgs[i] = structuredClone(arg);
    }
    dryRun.push(...(template.spec?.dryRun ?? []));
    retention.push(...(template.spec?.measurementRetention ?? []));
  }
  if (metrics.length === 0) return { ok: false, reason: `the templates ${refs.map((r) => `"${r.name}"`).join(', ')} have no metrics` };

  const given = (run.spec as { args?: Argument[] } | undefined)?.args ?? [];
  const args: Argument[] = [];
  for (const declared of templateArgs) {
    const supplied = given.find((a) => a.name === declared.name);
    const arg: Argument = { name: declared.name };
    if (supplied?.value !== undefined) arg.value = supplied.value;
    else if (supplied?.valueFrom !== undefined) arg.valueFrom = structuredClone(supplied.valueFrom);
    else if (declared.value !== undefined) arg.value = declared.value;
    else if (declared.valueFrom !== undefined) arg.valueFrom = structuredClone(declared.valueFrom);
    const fieldPath = arg.valueFrom?.fieldRef?.fieldPath;
    if (fieldPath !== undefined) {
      const value = rolloutField(rollout, fieldPath);
      if (value === undefined) return { ok: false, reason: `argument "${arg.name}": the ${ownerWord(rollout)} has no field ${fieldPath}` };
      arg.value = value;
      delete arg.valueFrom;
    }
    if (arg.value === undefined && arg.valueFrom?.secretKeyRef === undefined)
      return { ok: false, reason: `argument "${arg.name}" has no value: the ${ownerWord(rollout)} must supply it` };
    args.push(arg);
  }

  const spec = { ...(run.spec ?? {}) } as Record<string, unknown>;
  delete spec.templates;
  const runDryRun = [...dryRun, ...((run.spec as { dryRun?: { metricName: string }[] }).dryRun ?? [])];
  const runRetention = [
    ...retention,
    ...((run.spec as { measurementRetention?: { metricName: string; limit: number }[] }).measurementRetention ?? []),
  ];
  const resolved: FullAnalysisRun = {
    ...run,
    spec: {
      ...spec,
      metrics,
      args,
      ...(runDryRun.length ? { dryRun: runDryRun } : {}),
      ...(runRetention.length ? { measurementRetention: runRetention } : {}),
    },
  };
  if (!runDryRun.length) delete resolved.spec!.dryRun;
  if (!runRetention.length) delete resolved.spec!.measurementRetention;
  return { ok: true, run: resolved };
}

/**
 * The text of one of the rollout's fields, for `valueFrom.fieldRef`: a dotted path with `[n]` and
 * `['key']` (`metadata.labels['app']`, `spec.template.spec.containers[0].image`). Strings as they
 * are, other values as JSON; undefined when the field is absent.
 */
export function rolloutField(rollout: RunOwner, fieldPath: string): string | undefined {
  let value: unknown = rollout;
  const parts = /^[^.[\]]+(?:\.[^.[\]]+|\[\d+\]|\['[^']*'\]|\["[^"]*"\])*$/.test(fieldPath)
    ? (fieldPath.match(/[^.[\]'"]+|\[\d+\]|\['[^']*'\]|\["[^"]*"\]/g) ?? [])
    : null;
  if (!parts) return undefined;
  for (const part of parts) {
    if (value === null || typeof value !== 'object') return undefined;
    const key = part.startsWith('[') ? (/^\[\d+\]$/.test(part) ? Number(part.slice(1, -1)) : part.slice(2, -2)) : part;
    value = (value as Record<string | number, unknown>)[key];
  }
  if (value === undefined || value === null) return undefined;
  return typeof value === 'string' ? value : JSON.stringify(value);
}
