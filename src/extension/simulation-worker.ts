/**
 * The Simulate view's simulation, in a worker thread (src/extension/simulation-runner.ts starts
 * it): a manifest that makes the planner work hard or allocate much stalls or kills this thread,
 * never the extension host. No vscode here: the job arrives as workerData, the answer leaves as
 * one message.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { simulate, type Rollout, type Service } from '../planner';
import { documentValue, parseFile } from '../schema';
import type { SimulationAnswer, SimulationJob } from './simulation-runner';

function run(job: SimulationJob): SimulationAnswer {
  const parsed = parseFile(job.text);
  const target = parsed.docs.find((d) => d.index === job.docIndex && d.isRollout);
  if (!target) return { ok: false, reason: `document ${job.docIndex + 1} is no longer a Rollout` };
  const services = parsed.docs.filter((d) => d.kind === 'Service').map((d) => documentValue(d.doc) as Service);
  try {
    const rollout = documentValue(target.doc) as Rollout;
    const result = simulate(rollout, { services });
    return { ok: true, rollout: String(rollout.metadata?.name ?? 'rollout'), frames: result.frames, outcome: result.outcome };
  } catch (e) {
    return { ok: false, reason: `cannot simulate: ${e instanceof Error ? e.message : String(e)}` };
  }
}

parentPort?.postMessage(run(workerData as SimulationJob));
