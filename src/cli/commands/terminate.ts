/** `rollouts terminate analysisrun|experiment NAME`: stop a running AnalysisRun or Experiment (spec.terminate). */
import { cluster } from '../lazy-cluster';
import { parseTargetArgs } from '../args';
import { UsageError, type Command } from '../command';

const usage = (): string => `Usage: rollouts terminate analysisrun|experiment NAME [-n NS] [--context C] [--kubeconfig F]

Stops an AnalysisRun or an Experiment: sets spec.terminate, as "kubectl argo rollouts
terminate analysisrun|experiment" does. A run takes no more measurements and ends with the
worst result so far (Successful when nothing failed, with the message "Run Terminated"). An
Experiment stops its analyses and ends (Successful unless something failed), so a rollout
waiting at its experiment step goes on; its ReplicaSets are scaled down after its delay.

Options:
${cluster().targetUsage.replace("the rollout's namespace", "the run's namespace")}
`;

const KINDS = {
  analysisrun: { aliases: ['analysisrun', 'analysisruns', 'ar'], title: 'AnalysisRun', terminate: () => cluster().terminateAnalysisRun },
  experiment: { aliases: ['experiment', 'experiments', 'exp'], title: 'Experiment', terminate: () => cluster().terminateExperiment },
} as const;

export const terminateCommand: Command = {
  name: 'terminate',
  summary: 'stop a running AnalysisRun or Experiment',
  get usage() {
    return usage();
  },
  async run(args, io) {
    const t = parseTargetArgs(args);
    if (t.name === undefined) throw new UsageError('say what to terminate: analysisrun NAME or experiment NAME');
    const kind = Object.entries(KINDS).find(([, k]) => (k.aliases as readonly string[]).includes(t.name!));
    if (!kind) throw new UsageError(`cannot terminate "${t.name}": only analysisrun NAME or experiment NAME can be terminated`);
    const [word, { title, terminate }] = kind;
    const name = t.rest[0];
    if (!name) throw new UsageError(`name the ${title}: ${word} NAME`);
    if (t.rest.length > 1) throw new UsageError(`unexpected argument "${t.rest[1]}"`);
    const conn = cluster().connectOrSay(t, io);
    if (!conn) return 1;
    try {
      const outcome = await terminate()(conn.rest, { namespace: conn.namespace, name });
      if (!outcome.ok) {
        io.err(`cannot terminate: ${outcome.reason}`);
        return 1;
      }
      io.out(
        outcome.alreadyEnded
          ? `${word} '${name}' terminated (it had already ended ${outcome.alreadyEnded})`
          : `${word} '${name}' terminated`,
      );
      return 0;
    } catch (e) {
      io.err(cluster().describeApiError(e, `terminating ${title} "${name}" in namespace "${conn.namespace}" (context "${conn.context}")`));
      return 1;
    }
  },
};
