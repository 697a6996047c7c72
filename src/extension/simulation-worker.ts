/**
 * The Simulate view's simulation, in a worker thread (src/extension/simulation-runner.ts starts
 * it): a manifest that makes the planner work hard or allocate much stalls or kills this thread,
 * never the extension host. No vscode here: the job arrives as workerData, the answer leaves as
 * one message.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { ConditionMessage, simulate, simulateFromSnapshot, type Rollout, type Service } from '../planner';
import { documentValue, parseFile, rolloutSpecErrors } from '../schema';
import type { SimulationAnswer, SimulationJob } from './simulation-runner';

function run(job: SimulationJob): SimulationAnswer {
  if ('snapshot' in job) {
    // What-if from the live state: the same simulator, from the rollout's state now.
    try {
      const result = simulateFromSnapshot(job.snapshot, job.whatIf);
      return {
        ok: true,
        rollout: result.rollout,
        strategy: result.strategy,
        frames: result.frames,
        outcome: result.outcome,
        ...(result.assumptions ? { assumptions: result.assumptions } : {}),
      };
    } catch (e) {
      return { ok: false, reason: e instanceof Error ? e.message : String(e) };
    }
  }
  const parsed = parseFile(job.text);
  const target = parsed.docs.find((d) => d.index === job.docIndex && d.isRollout);
  if (!target) return { ok: false, reason: `document ${job.docIndex + 1} is no longer a Rollout` };
  const services = parsed.docs.filter((d) => d.kind === 'Service').map((d) => documentValue(d.doc) as Service);
  try {
    const rollout = documentValue(target.doc) as Rollout;
    const name = String(rollout?.metadata?.name ?? 'rollout');
    // A spec Argo refuses (InvalidSpec) never runs: say so, as the controller's condition would, instead of simulating it.
    const invalidSpec = rolloutSpecErrors(parsed, target);
    const first = invalidSpec[0];
    if (first)
      return {
        ok: false,
        reason: ConditionMessage.invalidSpec(name, `${first.path ? `${first.path}: ` : ''}${first.message}`),
        invalidSpec,
      };
    const result = simulate(rollout, { services });
    return { ok: true, rollout: name, strategy: result.strategy, frames: result.frames, outcome: result.outcome };
  } catch (e) {
    return { ok: false, reason: `cannot simulate: ${e instanceof Error ? e.message : String(e)}` };
  }
}

parentPort?.postMessage(run(workerData as SimulationJob));
