/**
 * Runs the Simulate view's simulation off the extension host's thread, in a worker with a memory
 * limit (resourceLimits) and a time budget: a manifest that lints clean can still ask for a lot
 * (a billion replicas, ten thousand steps), and the extension host must stay responsive whatever
 * it asks. Over budget, the worker is terminated and the answer says which budget was hit.
 */
import { Worker } from 'node:worker_threads';
import type { LiveSnapshot, SimulationFrame, SimulationOutcome, WhatIfOptions } from '../planner';
import type { PlacedError } from '../schema';

export type SimulationJob =
  /** The manifest's text and which of its documents is the Rollout. */
  | { text: string; docIndex: number }
  /** What-if from the live state: a live rollout's snapshot and a person's choice (simulateFromSnapshot). */
  | { snapshot: LiveSnapshot; whatIf: WhatIfOptions };

export type SimulationAnswer =
  | {
      ok: true;
      rollout: string;
      strategy: 'canary' | 'blueGreen';
      frames: SimulationFrame[];
      outcome: SimulationOutcome;
      assumptions?: string[];
    }
  /** `invalidSpec`: the Rollout is one Argo would refuse (InvalidSpec), so it was not simulated; `reason` is the condition's message. */
  | { ok: false; reason: string; invalidSpec?: PlacedError[] };

export interface SimulationBudget {
  /** The built worker: dist/simulation-worker.js. */
  workerFile: string;
  timeoutMs?: number;
  /** The worker's heap (old generation) limit. */
  maxHeapMb?: number;
  /** Aborting ends the worker at once (a newer simulation of the same panel replaces it). */
  signal?: AbortSignal;
}

export const DEFAULT_SIMULATION_TIMEOUT_MS = 10_000;
export const DEFAULT_SIMULATION_HEAP_MB = 256;

/** Never rejects: every way the worker can end is an answer. */
export function runSimulation(job: SimulationJob, budget: SimulationBudget): Promise<SimulationAnswer> {
  const timeoutMs = budget.timeoutMs ?? DEFAULT_SIMULATION_TIMEOUT_MS;
  const heapMb = budget.maxHeapMb ?? DEFAULT_SIMULATION_HEAP_MB;
  // The text is copied into the worker's heap in one allocation, which a heap limit cannot stop
  // gracefully (the whole process would abort): too large a text is refused before.
  const maxChars = Math.floor((heapMb * 1024 * 1024) / 8);
  if ('text' in job && job.text.length > maxChars) {
    return Promise.resolve({
      ok: false,
      reason: `the manifest has ${job.text.length} characters: the Simulate view simulates manifests of up to ${maxChars} (its budget is ${heapMb} MB)`,
    });
  }
  return new Promise((resolve) => {
    let settled = false;
    let worker: Worker;
    const finish = (answer: SimulationAnswer) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      budget.signal?.removeEventListener('abort', onAbort);
      void worker?.terminate();
      resolve(answer);
    };
    const onAbort = () => finish({ ok: false, reason: 'the simulation was replaced by a newer one' });
    const timer = setTimeout(
      () =>
        finish({
          ok: false,
          reason: `the simulation took more than ${timeoutMs / 1000} s and was stopped (the Simulate view gives it ${timeoutMs / 1000} s and ${heapMb} MB)`,
        }),
      timeoutMs,
    );
    try {
      worker = new Worker(budget.workerFile, {
        workerData: job,
        resourceLimits: { maxOldGenerationSizeMb: heapMb },
        stdout: true,
        stderr: true,
      });
    } catch (e) {
      finish({ ok: false, reason: `cannot start the simulation: ${(e as Error).message}` });
      return;
    }
    if (budget.signal?.aborted) return onAbort();
    budget.signal?.addEventListener('abort', onAbort);
    worker.on('message', (m: SimulationAnswer) => finish(m));
    worker.on('error', (e: Error & { code?: string }) =>
      finish({
        ok: false,
        reason:
          e.code === 'ERR_WORKER_OUT_OF_MEMORY'
            ? `the simulation needed more than ${heapMb} MB and was stopped (the Simulate view gives it ${timeoutMs / 1000} s and ${heapMb} MB)`
            : `the simulation failed: ${e.message}`,
      }),
    );
    worker.on('exit', (code) => finish({ ok: false, reason: `the simulation ended without an answer (exit code ${code})` }));
  });
}
