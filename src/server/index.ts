/**
 * src/server: the Rollout language server.
 * Architecture invariant: the language service (service.ts and what it uses) is a plain object
 * over TextDocuments: no Connection, no editor, no file system; main.ts is the only file that
 * speaks LSP, and it and workspace-scan.ts are the only ones that touch the disk. So the CLI,
 * tests and any LSP client get the same answers.
 */
export { createLanguageService, type RolloutLanguageService, type ServiceDeps } from './service';
export { DIAGNOSTIC_SOURCE, type DiagnosticData } from './diagnostics';
export { SIMULATE_COMMAND, type SimulateArgs, type ServerOptions } from './protocol';
