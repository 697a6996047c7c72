// How the server process starts: --stdio (the other suites), --node-ipc (the VS Code client), and bad usage.
import { strict as assert } from 'node:assert';
import { fork, spawn } from 'node:child_process';
import { createMessageConnection, IPCMessageReader, IPCMessageWriter } from 'vscode-jsonrpc/node';
import type { InitializeResult } from 'vscode-languageserver';
import { serverBundle } from './lsp-session';

function exitOf(child: import('node:child_process').ChildProcess, within: number): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the server did not exit within ${within} ms`)), within);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
}

describe('server transports', () => {
  it('speaks LSP over Node IPC with --node-ipc', async () => {
    const child = fork(await serverBundle(), ['--node-ipc'], { stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
    const exited = exitOf(child, 10_000);
    const connection = createMessageConnection(new IPCMessageReader(child), new IPCMessageWriter(child));
    connection.listen();
    const result = await connection.sendRequest<InitializeResult>('initialize', {
      processId: process.pid,
      rootUri: null,
      capabilities: {},
    });
    assert.equal(result.serverInfo?.name, 'argo-rollouts-language-server');
    assert.ok(result.capabilities.hoverProvider);
    await connection.sendNotification('initialized', {});
    await connection.sendRequest('shutdown');
    await connection.sendNotification('exit');
    assert.equal(await exited, 0);
    connection.dispose();
  });

  it('without a transport argument, says how to start it and exits with 2', async () => {
    const child = spawn(process.execPath, [await serverBundle()], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    assert.equal(await exitOf(child, 10_000), 2);
    assert.match(stderr, /usage: node dist\/server\.js --stdio \| --node-ipc/);
  });
});
