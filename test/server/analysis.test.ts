// Analysis templates through the real server over stdio: template documents get diagnostics, hover
// and completion from their own catalog; Rollouts' templateName references are checked against the
// workspace and lead to the template with go-to-definition.
import { strict as assert } from 'node:assert';
import type { Diagnostic, Hover, Location, MarkupContent } from 'vscode-languageserver';
import { serverInWorkspace, messageOf } from './lsp-session';
import { analysisStep as step, analysisTemplate, canaryRollout, multiDoc, positionOf, service } from './fixtures';

const template = analysisTemplate;
const analysisStep = (name: string, extra: string[] = []) => [step(name, extra)];
const hoverText = (h: Hover | null) => (h ? (h.contents as MarkupContent).value : '');
const codes = (ds: Diagnostic[]) => ds.map((d) => String(d.code)).sort();

describe('analysis templates in the language server', () => {
  const ws = serverInWorkspace({
    // The template is the third document, after a Service and a comment-only stretch: definition must land on its line.
    'templates.yaml': multiDoc(
      service('svc', { app: 'svc' }),
      '# shared analysis\n' + template('success-rate'),
      template('global-rate', { kind: 'ClusterAnalysisTemplate', args: [] }),
    ),
  });

  it('reports a required argument the Rollout does not pass, once the scan found the template', async () => {
    const uri = ws.uri('missing-arg.yaml');
    ws.lsp.open(uri, canaryRollout({ name: 'a', steps: ['setWeight: 20', ...analysisStep('success-rate')] }));
    const ds = await ws.lsp.diagnosticsMatching(uri, (d) => d.some((x) => x.code === 'analysis-args'), 'the missing argument');
    const d = ds.find((x) => x.code === 'analysis-args')!;
    assert.match(messageOf(d), /requires argument "service-name"/);
    assert.equal(
      d.range.start.line,
      positionOf(canaryRollout({ name: 'a', steps: ['setWeight: 20', ...analysisStep('success-rate')] }), '- templateName').line,
      'on the templateName value',
    );
    // Related information: where the template declares the argument, in templates.yaml.
    const templates = multiDoc(
      service('svc', { app: 'svc' }),
      '# shared analysis\n' + template('success-rate'),
      template('global-rate', { kind: 'ClusterAnalysisTemplate', args: [] }),
    );
    const declared = positionOf(templates, 'service-name');
    assert.deepEqual(d.relatedInformation, [
      {
        location: {
          uri: ws.uri('templates.yaml'),
          range: { start: declared, end: { line: declared.line, character: declared.character + 'service-name'.length } },
        },
        message: '"service-name" is declared here, without a default',
      },
    ]);
  });

  it('warns about a templateName that no workspace template has, and about clusterScope pointing at the wrong kind', async () => {
    const uri = ws.uri('not-found.yaml');
    ws.lsp.open(
      uri,
      canaryRollout({ name: 'b', steps: [...analysisStep('succes-rate'), ...analysisStep('success-rate', ['clusterScope: true'])] }),
    );
    const ds = await ws.lsp.diagnosticsMatching(
      uri,
      (d) => d.filter((x) => x.code === 'analysis-template-not-found').length === 2,
      'two not-found warnings',
    );
    const msgs = ds.filter((x) => x.code === 'analysis-template-not-found').map(messageOf);
    assert.match(msgs[0]!, /AnalysisTemplate "succes-rate" is not defined/);
    assert.match(msgs[1]!, /there is an AnalysisTemplate "success-rate": remove clusterScope/);
    // Both hints name the template in templates.yaml, which each links.
    const templates = multiDoc(
      service('svc', { app: 'svc' }),
      '# shared analysis\n' + template('success-rate'),
      template('global-rate', { kind: 'ClusterAnalysisTemplate', args: [] }),
    );
    const name = positionOf(templates, 'success-rate');
    const defined = {
      location: {
        uri: ws.uri('templates.yaml'),
        range: { start: name, end: { line: name.line, character: name.character + 'success-rate'.length } },
      },
      message: 'AnalysisTemplate "success-rate" is defined here',
    };
    assert.deepEqual(
      ds.filter((x) => x.code === 'analysis-template-not-found').map((x) => x.relatedInformation),
      [[defined], [defined]],
    );
  });

  it('says "did you mean" for a misspelled templateName, also when the near template appears later in another document', async () => {
    const uri = ws.uri('misspelled.yaml');
    ws.lsp.open(uri, canaryRollout({ name: 'm', steps: [...analysisStep('succes-rate'), ...analysisStep('later-rte')] }));
    const ds = await ws.lsp.diagnosticsMatching(
      uri,
      (d) => d.some((x) => messageOf(x).includes('did you mean "success-rate"')),
      'the suggestion from the scanned template',
    );
    assert.deepEqual(
      ds
        .filter((x) => x.code === 'analysis-template-not-found')
        .map((x) => (x.data as { finding: { suggestion?: string } }).finding.suggestion),
      ['success-rate', undefined],
    );

    // A template whose name is near (not equal to) a mentioned name: the Rollout is validated again.
    const tUri = ws.uri('later-template.yaml');
    ws.lsp.open(tUri, template('later-rate'));
    await ws.lsp.diagnosticsMatching(
      uri,
      (d) => d.some((x) => messageOf(x).includes('"later-rte" is not defined in the workspace (did you mean "later-rate"?)')),
      'the suggestion from the opened template',
    );
    ws.lsp.close(tUri);
    await ws.lsp.diagnosticsMatching(
      uri,
      (d) => d.some((x) => /"later-rte" is not defined in the workspace;/.test(messageOf(x))),
      'no suggestion once the template is gone',
    );
    ws.lsp.close(uri);
  });

  it('goes from a templateName to its template in a file on disk, and from clusterScope to the ClusterAnalysisTemplate', async () => {
    const uri = ws.uri('definition.yaml');
    const text = canaryRollout({
      name: 'c',
      steps: [...analysisStep('success-rate'), ...analysisStep('global-rate', ['clusterScope: true'])],
    });
    ws.lsp.open(uri, text);
    await ws.lsp.diagnosticsFor(uri);
    const [loc] = await ws.lsp.request<Location[]>('textDocument/definition', {
      textDocument: { uri },
      position: positionOf(text, 'success-rate', 3),
    });
    assert.equal(loc!.uri, ws.uri('templates.yaml'));
    const lines = multiDoc(service('svc', { app: 'svc' }), '# shared analysis\n' + template('success-rate')).split('\n');
    const nameLine = lines.findIndex((l) => l === '  name: success-rate');
    assert.deepEqual(loc!.range, { start: { line: nameLine, character: 8 }, end: { line: nameLine, character: 20 } });

    const cluster = await ws.lsp.request<Location[]>('textDocument/definition', {
      textDocument: { uri },
      position: positionOf(text, 'global-rate', 1),
    });
    assert.equal(cluster.length, 1);
    assert.ok(cluster[0]!.range.start.line > nameLine);

    const none = await ws.lsp.request<Location[] | null>('textDocument/definition', {
      textDocument: { uri },
      position: positionOf(text, 'replicas', 1),
    });
    assert.deepEqual(none ?? [], []);
  });

  it("completes templateName with the workspace templates of the right kind, and hovers it with the template's arguments", async () => {
    const uri = ws.uri('complete-name.yaml');
    const text = canaryRollout({ name: 'e', steps: [...analysisStep('su'), ...analysisStep('gl', ['clusterScope: true'])] });
    ws.lsp.open(uri, text);
    await ws.lsp.diagnosticsFor(uri);
    const names = await ws.lsp.completion(uri, positionOf(text, 'templateName: su', 16));
    assert.deepEqual(
      (names?.items ?? []).map((i) => [i.label, i.detail]).filter(([l]) => !String(l).startsWith('draft')),
      [['success-rate', 'AnalysisTemplate · needs service-name']],
    );
    const cluster = await ws.lsp.completion(uri, positionOf(text, 'templateName: gl', 16));
    assert.deepEqual(
      (cluster?.items ?? []).map((i) => i.label),
      ['global-rate'],
    );

    const hUri = ws.uri('hover-name.yaml');
    const hText = canaryRollout({ name: 'f', steps: analysisStep('success-rate') });
    ws.lsp.open(hUri, hText);
    await ws.lsp.diagnosticsFor(hUri);
    const h = hoverText(await ws.lsp.hover(hUri, positionOf(hText, 'success-rate', 2)));
    assert.match(h, /AnalysisTemplate `success-rate`, defined in `templates.yaml`\. Arguments: `service-name` \(required\)/);
  });

  it('follows a template in an open, unsaved document', async () => {
    const tUri = ws.uri('draft-template.yaml');
    ws.lsp.open(tUri, '# draft\n' + template('draft-rate', { args: ['service-name', 'extra'] }));
    const uri = ws.uri('uses-draft.yaml');
    const text = canaryRollout({ name: 'd', steps: analysisStep('draft-rate') });
    ws.lsp.open(uri, text);
    const ds = await ws.lsp.diagnosticsMatching(
      uri,
      (d) => d.some((x) => x.code === 'analysis-args'),
      'the missing arguments of the open template',
    );
    assert.match(messageOf(ds.find((x) => x.code === 'analysis-args')!), /"service-name", "extra"/);
    const [loc] = await ws.lsp.request<Location[]>('textDocument/definition', {
      textDocument: { uri },
      position: positionOf(text, 'draft-rate', 2),
    });
    assert.equal(loc!.uri, tUri);
    assert.equal(loc!.range.start.line, 4);
  });

  it('validates a template document: a condition that does not parse is reported on its value', async () => {
    const uri = ws.uri('bad-template.yaml');
    const text = template('bad', { condition: 'result[0] >=' });
    ws.lsp.open(uri, text);
    const ds = await ws.lsp.diagnosticsMatching(uri, (d) => d.length > 0, 'the condition finding');
    assert.deepEqual(codes(ds), ['analysis-condition']);
    assert.equal(ds[0]!.range.start.line, positionOf(text, 'successCondition').line);
    const line = text.split('\n')[ds[0]!.range.start.line]!;
    assert.equal(
      line.slice(ds[0]!.range.start.character, ds[0]!.range.end.character),
      '=',
      'the last character, where the expression stops too early',
    );
    assert.match(messageOf(ds[0]!), /ends too early/);
  });

  it('hovers template fields with their docs, outlines the template and completes metric keys', async () => {
    const uri = ws.uri('hover-template.yaml');
    const text = template('h');
    ws.lsp.open(uri, text);
    await ws.lsp.diagnosticsFor(uri);
    const h = hoverText(await ws.lsp.hover(uri, positionOf(text, 'successCondition', 2)));
    assert.match(h, /\*\*successCondition\*\*/);
    assert.match(h, /expression over `result`/);
    const p = hoverText(await ws.lsp.hover(uri, positionOf(text, 'prometheus:', 2)));
    assert.match(p, /PromQL/);
    const [outline] = await ws.lsp.symbols(uri);
    assert.equal(outline!.name, 'AnalysisTemplate h');
    assert.ok(outline!.children!.some((c) => c.name === 'spec'));

    const cUri = ws.uri('complete-template.yaml');
    const partial = text.replace('    count: 3\n', '    count: 3\n    fail\n');
    ws.lsp.open(cUri, partial);
    const list = await ws.lsp.completion(cUri, positionOf(partial, '    fail\n', 8));
    const labels = (list?.items ?? []).map((i) => i.label);
    assert.ok(labels.includes('failureCondition') && labels.includes('failureLimit'), labels.join(', '));
    assert.ok(!labels.includes('count'), 'keys already present are not offered');
  });
});
