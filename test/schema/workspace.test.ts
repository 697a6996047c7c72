// The workspace index: Services by file, replaced and removed with their file.
import { strict as assert } from 'node:assert';
import {
  analysisTemplatesInFile,
  createWorkspaceIndex,
  definitionsInFile,
  parseFile,
  servicesInFile,
  validateFile,
  workloadsInFile,
} from '../../src/schema';
import { analysisTemplate, blueGreenRollout, canaryRollout, service, summary, workload, workloadRefRollout, yamlOf } from './support';

describe('schema workspace index', () => {
  it('reads name, namespace, selector, ports and where the name is of each Service document', () => {
    const text = yamlOf(service('a', { app: 'x', tier: 'web' }, 'shop'), blueGreenRollout(), service('b', undefined));
    const found = servicesInFile('f.yaml', parseFile(text));
    assert.deepEqual(
      found.map((s) => ({ ...s, nameRange: undefined })),
      [
        {
          name: 'a',
          namespace: 'shop',
          selector: { app: 'x', tier: 'web' },
          ports: [{ port: 80 }],
          file: 'f.yaml',
          docIndex: 0,
          nameRange: undefined,
        },
        { name: 'b', ports: [{ port: 80 }], file: 'f.yaml', docIndex: 2, nameRange: undefined },
      ],
    );
    const r = found[1]!.nameRange!;
    assert.equal(text.split('\n')[r.start.line]!.slice(r.start.column, r.end.column), 'b');
  });

  it("resolves a Rollout's Services defined in another file, and forgets them with the file", () => {
    const ws = createWorkspaceIndex();
    const rollout = parseFile(yamlOf(blueGreenRollout({ previewService: 'demo-preview' })));
    ws.setFile(
      'services.yaml',
      definitionsInFile(
        'services.yaml',
        parseFile(yamlOf(service('demo-active', { app: 'demo' }), service('demo-preview', { app: 'wrong' }))),
      ),
    );
    assert.deepEqual(summary(validateFile(rollout, ws)), ['error service-selector-mismatch at spec.strategy.blueGreen.previewService']);
    ws.setFile(
      'services.yaml',
      definitionsInFile(
        'services.yaml',
        parseFile(yamlOf(service('demo-active', { app: 'demo' }), service('demo-preview', { app: 'demo' }))),
      ),
    );
    assert.deepEqual(summary(validateFile(rollout, ws)), []);
    ws.removeFile('services.yaml');
    assert.deepEqual(summary(validateFile(rollout, ws)), [
      'warning service-not-found at spec.strategy.blueGreen.activeService',
      'warning service-not-found at spec.strategy.blueGreen.previewService',
    ]);
    assert.deepEqual(ws.services(), []);
  });

  it("reads each analysis template: kind, name, namespace, which args need a value, where its name and its args' names are", () => {
    const text = yamlOf(
      service('s', { app: 's' }),
      {
        ...analysisTemplate('rate', {
          args: [{ name: 'svc' }, { name: 't', value: '1' }, { name: 'key', valueFrom: { secretKeyRef: { name: 'x', key: 'k' } } }],
        }),
        metadata: { name: 'rate', namespace: 'shop' },
      },
      analysisTemplate('global', { args: [] }, 'ClusterAnalysisTemplate'),
    );
    const found = analysisTemplatesInFile('f.yaml', parseFile(text));
    const lines = text.split('\n');
    const named = (r: { start: { line: number; column: number }; end: { column: number } } | undefined) =>
      r && lines[r.start.line]!.slice(r.start.column, r.end.column);
    assert.deepEqual(
      found.map((t) => ({ ...t, nameRange: named(t.nameRange), args: t.args.map((a) => ({ ...a, nameRange: named(a.nameRange) })) })),
      [
        {
          kind: 'AnalysisTemplate',
          name: 'rate',
          namespace: 'shop',
          args: [
            { name: 'svc', required: true, nameRange: 'svc' },
            { name: 't', required: false, nameRange: 't' },
            { name: 'key', required: false, nameRange: 'key' },
          ],
          endlessMetrics: [],
          file: 'f.yaml',
          docIndex: 1,
          nameRange: 'rate',
        },
        { kind: 'ClusterAnalysisTemplate', name: 'global', args: [], endlessMetrics: [], file: 'f.yaml', docIndex: 2, nameRange: 'global' },
      ],
    );
  });

  it('reads each workload a workloadRef can name: kind, name, namespace, its pod labels, where its name is', () => {
    const text = yamlOf(
      workload('web', { app: 'web' }, 'Deployment', 'shop'),
      workload('rs', { app: 'rs' }, 'ReplicaSet'),
      workload('pt', { app: 'pt' }, 'PodTemplate'),
      { ...workload('sts', { app: 'sts' }), kind: 'StatefulSet' },
      { ...workload('old', { app: 'old' }), apiVersion: 'extensions/v1beta1' },
      service('s', { app: 'web' }),
    );
    const found = workloadsInFile('f.yaml', parseFile(text));
    assert.deepEqual(
      found.map((w) => ({ ...w, nameRange: undefined })),
      [
        {
          workloadKind: 'Deployment',
          name: 'web',
          namespace: 'shop',
          labels: { app: 'web' },
          file: 'f.yaml',
          docIndex: 0,
          nameRange: undefined,
        },
        { workloadKind: 'ReplicaSet', name: 'rs', labels: { app: 'rs' }, file: 'f.yaml', docIndex: 1, nameRange: undefined },
        { workloadKind: 'PodTemplate', name: 'pt', labels: { app: 'pt' }, file: 'f.yaml', docIndex: 2, nameRange: undefined },
      ],
    );
    const line = text.split('\n')[found[2]!.nameRange!.start.line]!;
    assert.equal(line.slice(found[2]!.nameRange!.start.column, found[2]!.nameRange!.end.column), 'pt');
  });

  it("reads a Service's selector given through an anchor", () => {
    const text = [
      'apiVersion: v1',
      'kind: Service',
      'metadata:',
      '  name: web',
      '  labels: &app',
      '    app: web',
      'spec:',
      '  selector: *app',
      '',
    ].join('\n');
    assert.deepEqual(
      servicesInFile('f.yaml', parseFile(text)).map((s) => s.selector),
      [{ app: 'web' }],
    );
  });

  it("reads an analysis template's args and metrics given through anchors", () => {
    const text = [
      'apiVersion: argoproj.io/v1alpha1',
      'kind: AnalysisTemplate',
      'metadata:',
      '  name: rate',
      'x-shared:',
      '  args: &args',
      '    - name: service',
      '  metric: &metric',
      '    name: errors',
      '    interval: 1m',
      'spec:',
      '  args: *args',
      '  metrics:',
      '    - *metric',
      '',
    ].join('\n');
    assert.deepEqual(
      analysisTemplatesInFile('f.yaml', parseFile(text)).map((t) => [t.args, t.endlessMetrics]),
      [[[{ name: 'service', required: true }], ['errors']]],
    );
  });

  it("reads a workload's pod labels shared with its selector through an anchor", () => {
    const text = [
      'apiVersion: apps/v1',
      'kind: Deployment',
      'metadata:',
      '  name: web',
      'spec:',
      '  selector:',
      '    matchLabels: &labels',
      '      app: web',
      '  template:',
      '    metadata:',
      '      labels: *labels',
      '',
    ].join('\n');
    assert.deepEqual(
      workloadsInFile('f.yaml', parseFile(text)).map((w) => w.labels),
      [{ app: 'web' }],
    );
  });

  it('resolves workloadRef in another file, follows its changes and forgets it with the file', () => {
    const ws = createWorkspaceIndex();
    const rollout = parseFile(yamlOf(workloadRefRollout({ name: 'web' }, { selector: { matchLabels: { app: 'web' } } })));
    assert.deepEqual(summary(validateFile(rollout, ws)), ['warning workload-not-found at spec.workloadRef.name']);
    ws.setFile('deploy.yaml', definitionsInFile('deploy.yaml', parseFile(yamlOf(workload('web', { app: 'web' })))));
    assert.deepEqual(summary(validateFile(rollout, ws)), []);
    ws.setFile('deploy.yaml', definitionsInFile('deploy.yaml', parseFile(yamlOf(workload('web', { app: 'api' })))));
    assert.deepEqual(summary(validateFile(rollout, ws)), ['error workload-selector-mismatch at spec.selector.matchLabels.app']);
    ws.removeFile('deploy.yaml');
    assert.deepEqual(summary(validateFile(rollout, ws)), ['warning workload-not-found at spec.workloadRef.name']);
    assert.deepEqual(ws.workloads(), []);
  });

  it('a misspelled workloadRef name suggests the workload of that kind it likely means', () => {
    const ws = createWorkspaceIndex();
    ws.setFile(
      'deploy.yaml',
      definitionsInFile(
        'deploy.yaml',
        parseFile(yamlOf(workload('checkout', { app: 'demo' }), workload('checkout-v2', { app: 'demo' }, 'ReplicaSet'))),
      ),
    );
    const [finding] = validateFile(parseFile(yamlOf(workloadRefRollout({ name: 'chekout' }))), ws);
    assert.equal(finding?.code, 'workload-not-found');
    assert.match(finding!.message, /Deployment "chekout" is not defined in the workspace \(did you mean "checkout"\?\)/);
    assert.deepEqual(finding!.data, { workload: 'chekout', suggestion: 'checkout' });
  });

  it('resolves templateName in another file, follows its changes and forgets it with the file', () => {
    const ws = createWorkspaceIndex();
    const rollout = parseFile(yamlOf(canaryRollout({ analysis: { templates: [{ templateName: 'rate' }] } })));
    ws.setFile('t.yaml', definitionsInFile('t.yaml', parseFile(yamlOf(analysisTemplate('rate')))));
    assert.deepEqual(summary(validateFile(rollout, ws)), [
      'error analysis-args at spec.strategy.canary.analysis.templates[0].templateName',
    ]);
    ws.setFile('t.yaml', definitionsInFile('t.yaml', parseFile(yamlOf(analysisTemplate('rate', { args: [] })))));
    assert.deepEqual(summary(validateFile(rollout, ws)), []);
    ws.removeFile('t.yaml');
    assert.deepEqual(summary(validateFile(rollout, ws)), [
      'warning analysis-template-not-found at spec.strategy.canary.analysis.templates[0].templateName',
    ]);
  });

  it('answers which names changed when a file is replaced or removed', () => {
    const ws = createWorkspaceIndex();
    const defs = (...docs: Parameters<typeof yamlOf>) => definitionsInFile('f.yaml', parseFile(yamlOf(...docs)));
    assert.deepEqual([...ws.setFile('f.yaml', defs(service('a', { app: 'a' }), analysisTemplate('rate')))].sort(), ['a', 'rate']);
    assert.deepEqual(
      [...ws.setFile('f.yaml', defs(service('a', { app: 'a' }), analysisTemplate('rate')))],
      [],
      'the same definitions change nothing',
    );
    assert.deepEqual([...ws.setFile('f.yaml', defs(service('a', { app: 'b' }), analysisTemplate('rate')))], ['a']);
    assert.deepEqual(
      ws.definitionsNamed('rate').map((d) => d.file),
      ['f.yaml'],
    );
    assert.deepEqual(
      ws.analysisTemplates().map((t) => t.name),
      ['rate'],
    );
    assert.deepEqual(ws.files(), ['f.yaml']);
    assert.deepEqual([...ws.removeFile('f.yaml')].sort(), ['a', 'rate']);
    assert.equal(ws.hasFile('f.yaml'), false);
    assert.deepEqual(ws.services(), []);
  });

  it('a missing canaryService offers the workspace Services that select the pods', () => {
    const rollout = canaryRollout({ trafficRouting: { nginx: { stableIngress: 'i' } }, stableService: 'demo-stable' });
    const parsed = parseFile(
      yamlOf(rollout, service('demo-stable', { app: 'demo' }), service('demo-canary', { app: 'demo' }), service('other', { app: 'x' })),
    );
    const ws = createWorkspaceIndex();
    ws.setFile('f', definitionsInFile('f', parsed));
    const f = validateFile(parsed, ws).find((x) => x.code === 'traffic-routing-needs-services')!;
    assert.deepEqual(f.data, { candidates: ['demo-canary', 'demo-stable'] });
  });

  it('a Service without selector selects no pods', () => {
    const parsed = parseFile(yamlOf(blueGreenRollout(), service('demo-active', undefined)));
    const ws = createWorkspaceIndex();
    ws.setFile('f', definitionsInFile('f', parsed));
    const f = validateFile(parsed, ws).find((x) => x.code === 'service-selector-mismatch')!;
    assert.match(f.message, /no selector/);
  });
});
