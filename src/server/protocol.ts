/**
 * What the server and its clients agree on beyond standard LSP. Only `import type` and these
 * constants cross into src/extension.
 */

/** The command of the "Simulate rollout" code lens (registered by the extension). */
export const SIMULATE_COMMAND = 'rollouts.simulate';

/** The argument of SIMULATE_COMMAND: which document of which file to simulate. */
export interface SimulateArgs {
  uri: string;
  /** Index of the Rollout's YAML document in the file (0-based, as the schema's parseFile counts). */
  docIndex: number;
}

/** Options a client may pass in `initializationOptions`. */
export interface ServerOptions {
  /** Milliseconds to wait after an edit before validating (default 0: validate once the burst of queued edits is read). */
  validationDelayMs?: number;
  /** Scan the workspace folders for Services on start (default true). */
  scanWorkspace?: boolean;
  /** At most this many YAML files are read by the scan (default 5000). */
  maxScannedFiles?: number;
  /** Validate a built-in sample while no document is open yet, so the first file opened meets compiled code (default true). */
  warmUp?: boolean;
}
