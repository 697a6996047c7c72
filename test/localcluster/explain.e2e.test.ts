// `kubectl explain` against the local cluster: a custom resource's CRD schema is published in
// OpenAPI, so explain reads it to any depth, as on a real API server.
import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalCluster, type LocalCluster } from '../../src/localcluster';
import { argoCrdSchemas } from '../../src/schema';
import { kubectlOk, skipWithoutKubectl } from './helpers';
import { availablePeers, peerPath } from '../support/peer';

const widgetCrd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.example.com' },
  spec: {
    group: 'example.com',
    names: { kind: 'Widget', plural: 'widgets', singular: 'widget' },
    scope: 'Namespaced',
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            description: 'A widget of the example group.',
            properties: {
              spec: {
                type: 'object',
                description: 'What the widget should be.',
                properties: {
                  size: { type: 'integer', description: 'How many sprockets the widget has.' },
                  finish: {
                    type: 'object',
                    description: 'Its surface.',
                    properties: { colour: { type: 'string', description: 'Paint colour, by name.' } },
                  },
                },
              },
            },
          },
        },
      },
    ],
  },
};

describe('kubectl explain with CRD schemas (real kubectl)', function () {
  let cluster: LocalCluster;
  let dir: string;

  before(async function () {
    skipWithoutKubectl(this);
    cluster = await startLocalCluster({ port: 0, podReadyAfterMs: 0, crdSchemas: argoCrdSchemas() });
    dir = mkdtempSync(join(tmpdir(), 'explain-'));
  });
  after(async () => {
    await cluster?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  // A fresh cache each time: kubectl caches discovery and OpenAPI documents, and the test changes them.
  const kubectl = (args: string[]) => kubectlOk(cluster.kubeconfigPath, mkdtempSync(join(dir, 'cache-')), args, 30_000);

  it("explains a custom resource's fields to any depth from its CRD, and forgets them with the CRD", async () => {
    writeFileSync(join(dir, 'crd.json'), JSON.stringify(widgetCrd));
    await kubectl(['apply', '-f', join(dir, 'crd.json')]);
    const spec = await kubectl(['explain', 'widget.spec']);
    assert.match(spec, /What the widget should be\./);
    assert.match(spec, /size\s+<integer>/);
    const colour = await kubectl(['explain', 'widget.spec.finish.colour']);
    assert.match(colour, /FIELD:\s+colour <string>/);
    assert.match(colour, /Paint colour, by name\./);
    const meta = await kubectl(['explain', 'widget.metadata.name']);
    assert.match(meta, /FIELD:\s+name <string>/);
    await kubectl(['delete', 'crd', 'widgets.example.com']);
    await assert.rejects(
      kubectl(['explain', 'widget.spec']),
      /doesn't have a resource type "widget"|the server doesn't have a resource type/,
    );
  });

  it("explains Rollout fields to any depth with the catalog's docs (the schemas the CLI and the extension pass in)", async () => {
    const weight = await kubectl(['explain', 'rollout.spec.strategy.canary.steps.setWeight']);
    assert.match(weight, /FIELD:\s+setWeight <integer>/);
    assert.match(weight, /percentage of traffic|canary weight|weight/i);
    const surge = await kubectl(['explain', 'rollout.spec.strategy.canary.maxSurge']);
    assert.match(surge, /FIELD:\s+maxSurge/);
    assert.match(surge, /Default: "25%"/);
    const template = await kubectl(['explain', 'analysistemplate.spec.metrics.provider']);
    assert.match(template, /FIELD:\s+provider <Object>/);
    const experiment = await kubectl(['explain', 'experiment.spec.templates.service']);
    assert.match(experiment, /FIELD:\s+service <Object>/);
    assert.match(experiment, /ClusterIP Service selecting this template's pods/);
    const crd = JSON.parse(await kubectl(['get', 'crd', 'rollouts.argoproj.io', '-o', 'json']));
    assert.ok(crd.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.strategy, 'the stored CRD carries the schema');
  });

  it("kubectl applies the peers' Experiments against the published schema (kubectl validates what it sends)", async () => {
    const peers = availablePeers([
      'argo-rollouts/examples/experiment-with-analysis.yaml',
      'real-world/JoshDanielWalker__argo-rollout__experiment.yaml',
      'real-world/yohanb__argo-rollouts-examples__apps__prototype__canary__experiment.yaml',
    ]);
    for (const peer of peers) await kubectl(['apply', '-f', peerPath(peer)]);
    const names = JSON.parse(await kubectl(['get', 'experiments', '-o', 'json'])).items.map(
      (e: { metadata: { name: string } }) => e.metadata.name,
    );
    assert.ok(names.length >= peers.length, `applied: ${names.join(', ')}`);
  });
});
