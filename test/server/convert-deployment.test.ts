// Converting a Deployment to a Rollout (canary, blue-green, workloadRef): every Deployment of the
// fixtures and of the real-world manifests, converted each way through the language service's code
// actions, gives documents the validator finds nothing wrong with and that the planner simulates
// as the Simulate lens would; and the mapping itself, case by case.
import { strict as assert } from 'node:assert';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { CodeAction, Diagnostic, TextEdit } from 'vscode-languageserver-types';
import { simulate, type Rollout, type Service } from '../../src/planner';
import { definitionsInFile, documentValue, parseFile, rolloutSpecErrors, type WorkspaceService } from '../../src/schema';
import { createLanguageService } from '../../src/server/service';
import { CONVERT_KIND } from '../../src/server/convert-actions';
import {
  canaryStrategy,
  convertDeployment,
  DEPLOYMENT_DEFAULT_SURGE,
  DEPLOYMENT_DEFAULT_UNAVAILABLE,
  STARTER_STEPS,
  type Conversion,
} from '../../src/server/convert-deployment';
import { SIMULATE_COMMAND, type SimulateArgs } from '../../src/server/protocol';
import { describeRealWorld, itRealWorld, REAL_WORLD } from '../support/peer';

const FIXTURES = join(__dirname, '../fixtures');
const CONVERT_FIXTURES = join(FIXTURES, 'convert');

function yamlFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return yamlFiles(path);
    return /\.ya?ml$/.test(name) ? [path] : [];
  });
}

type Json = Record<string, any>;

/** Applies a code action's edits of `uri` to the text. */
function applied(text: string, uri: string, action: CodeAction): string {
  const edits: TextEdit[] = action.edit?.changes?.[uri] ?? [];
  assert.ok(edits.length > 0, `${action.title}: no edits`);
  return TextDocument.applyEdits(TextDocument.create(uri, 'yaml', 1, text), edits);
}

const TITLES: Record<Conversion, RegExp> = {
  canary: /^Convert to a canary Rollout/,
  blueGreen: /^Convert to a blue-green Rollout/,
  workloadRef: /^Manage Deployment '.*' with a Rollout \(workloadRef\)$/,
};

/**
 * Converts each Deployment of the file each way with the language service (as the editor asks for
 * code actions at its `kind:` line), and checks the result: the Rollout and the documents added
 * lint clean, the rest of the file is unchanged, and the Simulate lens's simulation promotes.
 * Returns how many conversions were checked.
 */
function checkFile(path: string): number {
  const text = readFileSync(path, 'utf8');
  const uri = `file://${path}`;
  const before = parseFile(text);
  let checked = 0;
  for (const pd of before.docs) {
    if (pd.kind !== 'Deployment' || pd.apiVersion !== 'apps/v1') continue;
    const service = createLanguageService();
    const doc = TextDocument.create(uri, 'yaml', 1, text);
    service.indexServices(doc);
    const at = doc.positionAt(pd.range[0]);
    const actions = service.codeActions(doc, { start: at, end: at }, []).filter((a) => a.kind === CONVERT_KIND);
    const name = (documentValue(pd.doc) as Json).metadata.name as string;
    const managedHere = before.docs.some((d) => d.isRollout && (documentValue(d.doc) as Json)?.spec?.workloadRef?.name === name);
    if (managedHere) {
      // Already migrated with a workloadRef in this file: converting it would orphan that Rollout.
      assert.deepEqual(actions, [], `${path}: ${name} is referenced by a Rollout of its file`);
      continue;
    }
    assert.equal(actions.length, 3, `${path}: ${name}: ${actions.map((a) => a.title).join(', ')}`);
    for (const conversion of ['canary', 'blueGreen', 'workloadRef'] as const) {
      const action = actions.find((a) => TITLES[conversion].test(a.title));
      assert.ok(action, `${path}: no ${conversion} action among ${actions.map((a) => a.title).join(', ')}`);
      const out = applied(text, uri, action);
      const after = parseFile(out);
      const where = `${relative(FIXTURES, path)} ${name} (${conversion})`;
      assert.deepEqual(after.syntaxErrors, [], `${where}: YAML errors\n${out}`);
      // The new Rollout: the Deployment's own document, or the one after it (workloadRef).
      const rolloutIndex = conversion === 'workloadRef' ? pd.index + 1 : pd.index;
      const rolloutDoc = after.docs[rolloutIndex]!;
      assert.ok(rolloutDoc.isRollout, `${where}: document ${rolloutIndex} is not a Rollout\n${out}`);
      const added = after.docs.length - before.docs.length - (conversion === 'workloadRef' ? 1 : 0);
      // Every other document reads as before.
      const others = (docs: typeof before.docs, skip: (i: number) => boolean) =>
        docs.filter((d) => !skip(d.index)).map((d) => JSON.stringify(documentValue(d.doc)));
      const mine = (i: number) => i >= rolloutIndex && i <= rolloutIndex + added;
      assert.deepEqual(
        others(after.docs, mine),
        others(before.docs, (i) => conversion !== 'workloadRef' && i === pd.index),
        `${where}: other documents changed`,
      );
      if (conversion === 'workloadRef')
        assert.equal(out.slice(0, pd.range[1]), text.slice(0, pd.range[1]), `${where}: the Deployment changed`);
      // Lint: nothing in the new documents (the Rollout and what was added), with the file's definitions indexed.
      const newDoc = TextDocument.create(uri, 'yaml', 2, out);
      const lint = createLanguageService();
      lint.indexServices(newDoc);
      const first = rolloutDoc.range[0];
      const last = after.docs[rolloutIndex + (conversion === 'workloadRef' ? 0 : added)]!.range[1];
      const inNew = (d: Diagnostic) => {
        const o = newDoc.offsetAt(d.range.start);
        return o >= first && o < last;
      };
      const findings = lint.validate(newDoc).filter(inNew);
      assert.deepEqual(
        findings.map(
          (d) => `${d.severity === 1 ? 'error' : d.severity === 2 ? 'warning' : 'info'} ${String(d.code)}: ${String(d.message)}`,
        ),
        [],
        `${where}\n${out}`,
      );
      // The Simulate lens is on the Rollout, and what it opens simulates (as simulation-worker.ts does).
      const lens = lint.codeLenses(newDoc).find((l) => (l.command?.arguments?.[0] as SimulateArgs | undefined)?.docIndex === rolloutIndex);
      assert.equal(lens?.command?.command, SIMULATE_COMMAND, `${where}: no Simulate lens`);
      assert.deepEqual(rolloutSpecErrors(after, rolloutDoc), [], `${where}: InvalidSpec`);
      const services = after.docs.filter((d) => d.kind === 'Service').map((d) => documentValue(d.doc) as Service);
      const result = simulate(documentValue(rolloutDoc.doc) as Rollout, { services });
      assert.equal(result.outcome, 'promoted', `${where}: simulation ${result.outcome}`);
      checked++;
    }
  }
  return checked;
}

describe('Convert a Deployment to a Rollout', () => {
  describe('every Deployment converts three ways into Rollouts that lint clean and simulate', () => {
    it('the fixtures (test/fixtures)', () => {
      const files = yamlFiles(FIXTURES);
      const checked = files.reduce((n, f) => n + checkFile(f), 0);
      // The conversion fixtures alone hold three convertible Deployments.
      assert.ok(checked >= 9, `only ${checked} conversions checked`);
      console.log(`      ${checked} conversions of Deployments in ${files.length} fixture files`);
    });
  });
  describeRealWorld('the real-world manifests', () => {
    itRealWorld('every Deployment among them', () => {
      const files = yamlFiles(REAL_WORLD);
      const checked = files.reduce((n, f) => n + checkFile(f), 0);
      console.log(`      ${checked} conversions of Deployments in ${files.length} real-world files`);
    });
  });

  describe('the mapping', () => {
    const web = readFileSync(join(CONVERT_FIXTURES, 'web-with-service.yaml'), 'utf8');
    const worker = readFileSync(join(CONVERT_FIXTURES, 'worker-recreate.yaml'), 'utf8');
    const flow = readFileSync(join(CONVERT_FIXTURES, 'api-flow-style.yaml'), 'utf8');

    /** The file converted one way, with these Services in the workspace (by default those the file defines). */
    function convert(text: string, conversion: Conversion, services?: WorkspaceService[], file = 'w/app.yaml') {
      const parsed = parseFile(text);
      const doc = parsed.docs.find((d) => d.kind === 'Deployment')!;
      const known =
        services ??
        (definitionsInFile(file, parsed).filter(
          (d) => !('kind' in d) && !('workloadKind' in d) && !('routerKind' in d),
        ) as WorkspaceService[]);
      const result = convertDeployment({ text, doc, services: known, file }, conversion);
      assert.ok(result);
      let out = text;
      for (const e of [...result.edits].sort((a, b) => b.start - a.start)) out = out.slice(0, e.start) + e.text + out.slice(e.end);
      const docs = parseFile(out).docs.map((d) => documentValue(d.doc) as Json);
      return { result, out, docs, deployment: documentValue(doc.doc) as Json };
    }

    it('keeps the RollingUpdate surge and unavailability, and writes the Deployment defaults out when it has none', () => {
      const { docs } = convert(web, 'canary');
      assert.equal(docs[1]!.spec.strategy.canary.maxSurge, 1);
      assert.equal(docs[1]!.spec.strategy.canary.maxUnavailable, 0);
      assert.deepEqual(canaryStrategy(undefined), {
        maxSurge: DEPLOYMENT_DEFAULT_SURGE,
        maxUnavailable: DEPLOYMENT_DEFAULT_UNAVAILABLE,
        steps: STARTER_STEPS,
      });
      assert.deepEqual(canaryStrategy({ type: 'RollingUpdate', rollingUpdate: { maxSurge: '50%' } }).maxUnavailable, '25%');
      assert.equal(canaryStrategy({ type: 'RollingUpdate', rollingUpdate: { maxSurge: '50%' } }).maxSurge, '50%');
    });

    it('keeps selector, template, replicas and the other spec fields; drops what the cluster wrote; keeps comments and the other documents', () => {
      const { docs, deployment, out } = convert(web, 'canary');
      const rollout = docs[1]!;
      assert.equal(rollout.apiVersion, 'argoproj.io/v1alpha1');
      assert.equal(rollout.kind, 'Rollout');
      for (const k of ['replicas', 'selector', 'template', 'minReadySeconds', 'revisionHistoryLimit', 'progressDeadlineSeconds'])
        assert.deepEqual(rollout.spec[k], deployment.spec[k], k);
      assert.deepEqual(rollout.metadata, { name: 'web', namespace: 'shop', annotations: { team: 'storefront' }, labels: { app: 'web' } });
      assert.equal(rollout.status, undefined);
      assert.deepEqual(rollout.spec.strategy.canary.steps, STARTER_STEPS);
      assert.match(out, /team: storefront # who to call/);
      // Steps as people write them: a pause on its step's line.
      assert.match(out, /^ {8}- pause: \{ duration: 1m \}$/m);
      assert.match(out, /^# The storefront: its Service and its Deployment, as exported from a cluster\.$/m);
      assert.equal(out.slice(out.indexOf('---\n# A ConfigMap')), web.slice(web.indexOf('---\n# A ConfigMap')));
      assert.equal(docs.length, 3);
    });

    it('rewrites in place exactly what the whole-document mapping gives (block style), and writes a flow-style one anew', () => {
      for (const text of [web, worker, flow]) {
        for (const conversion of ['canary', 'blueGreen'] as const) {
          const { result, docs } = convert(text, conversion);
          const index = parseFile(text).docs.findIndex((d) => d.kind === 'Deployment');
          assert.deepEqual(docs[index], result.rollout, conversion);
        }
      }
      assert.doesNotMatch(convert(flow, 'canary').out, /\{name: api/);
    });

    it('writes the lines of a CRLF file with CRLF', () => {
      const crlf = web.replace(/\n/g, '\r\n');
      for (const conversion of ['canary', 'blueGreen', 'workloadRef'] as const) {
        const { out, docs } = convert(crlf, conversion);
        assert.doesNotMatch(out, /[^\r]\n/, conversion);
        assert.deepEqual(docs, convert(web, conversion).docs, conversion);
      }
    });

    it('says what becomes of a Recreate Deployment', () => {
      const { result, out } = convert(worker, 'canary');
      assert.match(result.title, /replaces Recreate/);
      assert.match(out, /# Was `type: Recreate`/);
      assert.doesNotMatch(convert(web, 'canary').result.title, /Recreate/);
    });

    it('blue-green: the Service that selects the pods is the active one, and NAME-preview is added beside it with its ports and selector', () => {
      const { result, docs } = convert(web, 'blueGreen');
      assert.deepEqual(docs[1]!.spec.strategy, {
        blueGreen: { activeService: 'web', previewService: 'web-preview', autoPromotionEnabled: false },
      });
      assert.equal(docs.length, 4);
      assert.deepEqual(docs[2], {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'web-preview', namespace: 'shop' },
        spec: { selector: { app: 'web' }, ports: [{ name: 'http', port: 80, targetPort: 'http', protocol: 'TCP' }] },
      });
      assert.equal(docs[3]!.kind, 'ConfigMap');
      assert.deepEqual(result.added, [docs[2]]);
    });

    it('blue-green: without a selecting Service both are made from the container ports; a preview the workspace has is reused', () => {
      const { docs, result } = convert(worker, 'blueGreen');
      assert.deepEqual(
        result.added.map((s) => (s as Json).metadata.name),
        ['worker', 'worker-preview'],
      );
      assert.deepEqual(docs[1]!.spec, {
        selector: { 'app.kubernetes.io/name': 'worker' },
        ports: [
          { name: 'port-9000', port: 9000, targetPort: 9000, protocol: 'TCP' },
          { name: 'metrics', port: 9090, targetPort: 'metrics' },
        ],
      });
      const existing: WorkspaceService[] = [
        { name: 'worker', selector: { 'app.kubernetes.io/name': 'worker' }, file: 'w/svc.yaml', docIndex: 0 },
        { name: 'worker-preview', selector: { 'app.kubernetes.io/name': 'worker' }, file: 'w/svc.yaml', docIndex: 1 },
      ];
      assert.deepEqual(convert(worker, 'blueGreen', existing).result.added, []);
    });

    it('blue-green: picks the nearest selecting Service, never one of another namespace or one that selects other pods', () => {
      const svc = (name: string, selector: Record<string, string>, file: string, namespace?: string): WorkspaceService => ({
        name,
        selector,
        file,
        docIndex: 0,
        ...(namespace ? { namespace } : {}),
      });
      const strategyWith = (services: WorkspaceService[]) => convert(web, 'blueGreen', services).docs[1]!.spec.strategy.blueGreen;
      // Only the pods' labels decide: a selector asking for more than the pods have selects nothing.
      assert.equal(
        strategyWith([
          svc('narrow', { app: 'web', tier: 'backend' }, 'w/a.yaml', 'shop'),
          svc('front', { tier: 'frontend' }, 'w/b.yaml', 'shop'),
        ]).activeService,
        'front',
      );
      // Another namespace is never it.
      assert.equal(strategyWith([svc('elsewhere', { app: 'web' }, 'w/app.yaml', 'other')]).activeService, 'web');
      // The same file before another folder.
      assert.equal(
        strategyWith([svc('far', { app: 'web' }, 'x/far.yaml', 'shop'), svc('near', { app: 'web' }, 'w/app.yaml', 'shop')]).activeService,
        'near',
      );
      // A Service of the Deployment's name that selects other pods is not taken over.
      assert.equal(strategyWith([svc('web', { app: 'other' }, 'w/app.yaml', 'shop')]).activeService, 'web-active');
    });

    it('never introduces the pod-template-hash label: a selecting Service that has it gives a preview without it', () => {
      const hashed: WorkspaceService[] = [
        {
          name: 'web',
          namespace: 'shop',
          selector: { app: 'web', 'rollouts-pod-template-hash': '6d4cf56db6' },
          file: 'w/app.yaml',
          docIndex: 0,
        },
      ];
      for (const conversion of ['canary', 'blueGreen', 'workloadRef'] as const) {
        const { out, result } = convert(web, conversion, hashed);
        assert.doesNotMatch(out, /pod-template-hash/, conversion);
        if (conversion === 'blueGreen') assert.deepEqual((result.added[0] as Json).spec.selector, { app: 'web' });
      }
    });

    it('workloadRef: a new Rollout after the Deployment, which is left as it is', () => {
      const { docs, out, deployment } = convert(web, 'workloadRef');
      assert.equal(docs.length, 4);
      assert.deepEqual(docs[1], deployment);
      const deploymentEnd = parseFile(web).docs[1]!.range[1];
      assert.equal(out.slice(0, deploymentEnd), web.slice(0, deploymentEnd));
      assert.deepEqual(docs[2], {
        apiVersion: 'argoproj.io/v1alpha1',
        kind: 'Rollout',
        metadata: { name: 'web', namespace: 'shop' },
        spec: {
          replicas: 4,
          minReadySeconds: 10,
          revisionHistoryLimit: 5,
          progressDeadlineSeconds: 300,
          selector: { matchLabels: { app: 'web' } },
          workloadRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', scaleDown: 'progressively' },
          strategy: { canary: { maxSurge: 1, maxUnavailable: 0, steps: STARTER_STEPS } },
        },
      });
      // What the controller does to the Deployment is said where the user reads it.
      const added = out.slice(deploymentEnd);
      const comment = added.slice(0, added.indexOf('apiVersion:'));
      assert.match(comment, /scales it down/);
      assert.match(comment, /replicas to 0/);
    });

    it('is offered anywhere in a Deployment and nowhere else', () => {
      const service = createLanguageService();
      const doc = TextDocument.create('file:///w/app.yaml', 'yaml', 1, web);
      service.indexServices(doc);
      const titlesAt = (needle: string) => {
        const at = doc.positionAt(web.indexOf(needle));
        return service
          .codeActions(doc, { start: at, end: at }, [])
          .filter((a) => a.kind === CONVERT_KIND)
          .map((a) => a.title);
      };
      assert.equal(titlesAt('kind: Deployment').length, 3);
      assert.equal(titlesAt('image: nginx').length, 3);
      assert.deepEqual(titlesAt('type: LoadBalancer'), []);
      assert.deepEqual(titlesAt('greeting: hello'), []);
      // Not in a kustomization's patch: it is part of a Deployment, which the patch cannot convert.
      const patchService = createLanguageService({ isPatch: () => true });
      const at = doc.positionAt(web.indexOf('kind: Deployment'));
      assert.deepEqual(
        patchService.codeActions(doc, { start: at, end: at }, []).filter((a) => a.kind === CONVERT_KIND),
        [],
      );
    });
  });
});
