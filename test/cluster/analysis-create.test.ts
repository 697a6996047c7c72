// What the rollout controller creates for a createAnalysisRun effect: templates read from the API.
import { strict as assert } from 'node:assert';
import { prepareAnalysisRun } from '../../src/cluster/analysis/create';
import { ApiError } from '../../src/cluster/rest';
import type { AnalysisRun, Rollout } from '../../src/planner';
import { recordingRest } from './fakes';

const rollout: Rollout = { metadata: { name: 'shop', namespace: 'prod' } };
const run: AnalysisRun = {
  metadata: { name: 'shop-abc-2', namespace: 'prod' },
  spec: { templates: [{ templateName: 'rate' }, { templateName: 'smoke', clusterScope: true }], args: [] },
};
const metric = (name: string) => ({ name, provider: { web: { url: 'http://x' } } });

describe('preparing an AnalysisRun for creation', () => {
  it('reads each template once from its own path and fills in the metrics', async () => {
    const rest = recordingRest((r) => {
      if (r.path === '/apis/argoproj.io/v1alpha1/namespaces/prod/analysistemplates/rate') return { spec: { metrics: [metric('rate')] } };
      if (r.path === '/apis/argoproj.io/v1alpha1/clusteranalysistemplates/smoke') return { spec: { metrics: [metric('smoke')] } };
      throw new ApiError(404, 'NotFound', 'not found');
    });
    const prepared = await prepareAnalysisRun(rest, run, rollout);
    assert.equal(prepared.failure, undefined);
    assert.deepEqual(
      prepared.run.spec?.metrics?.map((m) => m.name),
      ['rate', 'smoke'],
    );
    assert.deepEqual(
      rest.requests.map((r) => r.method),
      ['GET', 'GET'],
    );
  });

  it('a template that is not there, or not allowed to be read, is a failure with a sentence', async () => {
    const missing = await prepareAnalysisRun(
      recordingRest(() => {
        throw new ApiError(404, 'NotFound', 'not found');
      }),
      run,
      rollout,
    );
    assert.equal(missing.failure, 'AnalysisTemplate "rate" not found in namespace "prod"');
    const forbidden = await prepareAnalysisRun(
      recordingRest(() => {
        throw new ApiError(403, 'Forbidden', 'analysistemplates is forbidden');
      }),
      run,
      rollout,
    );
    assert.equal(forbidden.failure, 'reading AnalysisTemplate "rate": forbidden (403): analysistemplates is forbidden');
  });

  it('an unreachable API is not a verdict on the run: the error goes up and the reconcile is tried again', async () => {
    await assert.rejects(
      prepareAnalysisRun(
        recordingRest(() => {
          throw new ApiError(0, 'Unreachable', 'cannot reach');
        }),
        run,
        rollout,
      ),
      /cannot reach/,
    );
  });
});
