/** `rollouts terminate analysisrun NAME`: stop a running AnalysisRun (spec.terminate). */
import { cluster } from '../lazy-cluster';
import { parseOrUsage } from './get';
import { UsageError, type Command } from '../command';

const usage = (): string => `Usage: rollouts terminate analysisrun NAME [-n NS] [--context C] [--kubeconfig F]

Stops an AnalysisRun: sets spec.terminate, as "kubectl argo rollouts terminate analysisrun"
does. The run takes no more measurements and ends with the worst result so far (Successful
when nothing failed, with the message "Run Terminated").

Options:
${cluster().targetUsage.replace("the rollout's namespace", "the run's namespace")}
`;

export const terminateCommand: Command = {
  name: 'terminate',
  summary: 'stop a running AnalysisRun',
  get usage() {
    return usage();
  },
  async run(args, io) {
    const t = parseOrUsage(() => cluster().parseTargetArgs(args));
    if (t.name === undefined) throw new UsageError('say what to terminate: analysisrun NAME');
    if (!['analysisrun', 'analysisruns', 'ar'].includes(t.name)) throw new UsageError(`cannot terminate "${t.name}": only analysisrun NAME can be terminated`);
    const name = t.rest[0];
    if (!name) throw new UsageError('name the AnalysisRun: analysisrun NAME');
    if (t.rest.length > 1) throw new UsageError(`unexpected argument "${t.rest[1]}"`);
    const conn = cluster().connectOrSay(t, io);
    if (!conn) return 1;
    try {
      const outcome = await cluster().terminateAnalysisRun(conn.rest, { namespace: conn.namespace, name });
      if (!outcome.ok) {
        io.err(`cannot terminate: ${outcome.reason}`);
        return 1;
      }
      io.out(outcome.alreadyEnded ? `analysisrun '${name}' terminated (it had already ended ${outcome.alreadyEnded})` : `analysisrun '${name}' terminated`);
      return 0;
    } catch (e) {
      io.err(cluster().describeApiError(e, `terminating AnalysisRun "${name}" in namespace "${conn.namespace}" (context "${conn.context}")`));
      return 1;
    }
  },
};
