// The workspace index: Services by file, replaced and removed with their file.
import { strict as assert } from 'node:assert';
import { analysisTemplatesInFile, createWorkspaceIndex, definitionsInFile, parseFile, servicesInFile, validateFile } from '../../src/schema';
import { analysisTemplate, blueGreenRollout, canaryRollout, service, summary, yamlOf } from './support';

describe('schema workspace index', () => {
  it('reads name, namespace and selector of each Service document', () => {
    const parsed = parseFile(yamlOf(service('a', { app: 'x', tier: 'web' }, 'shop'), blueGreenRollout(), service('b', undefined)));
    assert.deepEqual(servicesInFile('f.yaml', parsed), [
      { name: 'a', namespace: 'shop', selector: { app: 'x', tier: 'web' }, file: 'f.yaml', docIndex: 0 },
      { name: 'b', file: 'f.yaml', docIndex: 2 },
    ]);
  });

  it('resolves a Rollout\'s Services defined in another file, and forgets them with the file', () => {
    const ws = createWorkspaceIndex();
    const rollout = parseFile(yamlOf(blueGreenRollout({ previewService: 'demo-preview' })));
    ws.setFile('services.yaml', definitionsInFile('services.yaml', parseFile(yamlOf(service('demo-active', { app: 'demo' }), service('demo-preview', { app: 'wrong' })))));
    assert.deepEqual(summary(validateFile(rollout, ws)), ['error service-selector-mismatch at spec.strategy.blueGreen.previewService']);
    ws.setFile('services.yaml', definitionsInFile('services.yaml', parseFile(yamlOf(service('demo-active', { app: 'demo' }), service('demo-preview', { app: 'demo' })))));
    assert.deepEqual(summary(validateFile(rollout, ws)), []);
    ws.removeFile('services.yaml');
    assert.deepEqual(summary(validateFile(rollout, ws)), [
      'warning service-not-found at spec.strategy.blueGreen.activeService',
      'warning service-not-found at spec.strategy.blueGreen.previewService',
    ]);
    assert.deepEqual(ws.services(), []);
  });

  it('reads each analysis template: kind, name, namespace, which args need a value, where its name is', () => {
    const text = yamlOf(service('s', { app: 's' }), { ...analysisTemplate('rate', { args: [{ name: 'svc' }, { name: 't', value: '1' }, { name: 'key', valueFrom: { secretKeyRef: { name: 'x', key: 'k' } } }] }), metadata: { name: 'rate', namespace: 'shop' } }, analysisTemplate('global', { args: [] }, 'ClusterAnalysisTemplate'));
    const found = analysisTemplatesInFile('f.yaml', parseFile(text));
    assert.deepEqual(found.map((t) => ({ ...t, nameRange: undefined })), [
      { kind: 'AnalysisTemplate', name: 'rate', namespace: 'shop', args: [{ name: 'svc', required: true }, { name: 't', required: false }, { name: 'key', required: false }], endlessMetrics: [], file: 'f.yaml', docIndex: 1, nameRange: undefined },
      { kind: 'ClusterAnalysisTemplate', name: 'global', args: [], endlessMetrics: [], file: 'f.yaml', docIndex: 2, nameRange: undefined },
    ]);
    const line = text.split('\n')[found[1]!.nameRange!.start.line]!;
    assert.equal(line.slice(found[1]!.nameRange!.start.column, found[1]!.nameRange!.end.column), 'global');
  });

  it('resolves templateName in another file, follows its changes and forgets it with the file', () => {
    const ws = createWorkspaceIndex();
    const rollout = parseFile(yamlOf(canaryRollout({ analysis: { templates: [{ templateName: 'rate' }] } })));
    ws.setFile('t.yaml', definitionsInFile('t.yaml', parseFile(yamlOf(analysisTemplate('rate')))));
    assert.deepEqual(summary(validateFile(rollout, ws)), ['error analysis-args at spec.strategy.canary.analysis.templates[0].templateName']);
    ws.setFile('t.yaml', definitionsInFile('t.yaml', parseFile(yamlOf(analysisTemplate('rate', { args: [] })))));
    assert.deepEqual(summary(validateFile(rollout, ws)), []);
    ws.removeFile('t.yaml');
    assert.deepEqual(summary(validateFile(rollout, ws)), ['warning analysis-template-not-found at spec.strategy.canary.analysis.templates[0].templateName']);
  });

  it('answers which names changed when a file is replaced or removed', () => {
    const ws = createWorkspaceIndex();
    const defs = (...docs: Parameters<typeof yamlOf>) => definitionsInFile('f.yaml', parseFile(yamlOf(...docs)));
    assert.deepEqual([...ws.setFile('f.yaml', defs(service('a', { app: 'a' }), analysisTemplate('rate')))].sort(), ['a', 'rate']);
    assert.deepEqual([...ws.setFile('f.yaml', defs(service('a', { app: 'a' }), analysisTemplate('rate')))], [], 'the same definitions change nothing');
    assert.deepEqual([...ws.setFile('f.yaml', defs(service('a', { app: 'b' }), analysisTemplate('rate')))], ['a']);
    assert.deepEqual(ws.definitionsNamed('rate').map((d) => d.file), ['f.yaml']);
    assert.deepEqual(ws.analysisTemplates().map((t) => t.name), ['rate']);
    assert.deepEqual(ws.files(), ['f.yaml']);
    assert.deepEqual([...ws.removeFile('f.yaml')].sort(), ['a', 'rate']);
    assert.equal(ws.hasFile('f.yaml'), false);
    assert.deepEqual(ws.services(), []);
  });

  it('a missing canaryService offers the workspace Services that select the pods', () => {
    const rollout = canaryRollout({ trafficRouting: { nginx: { stableIngress: 'i' } }, stableService: 'demo-stable' });
    const parsed = parseFile(yamlOf(rollout, service('demo-stable', { app: 'demo' }), service('demo-canary', { app: 'demo' }), service('other', { app: 'x' })));
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
