/** The one logging surface of src/cluster: the CLI prints it, the extension sends it to an output channel. */
export interface Log {
  info(message: string): void;
  warn(message: string, error?: unknown): void;
}

export const silentLog: Log = { info: () => {}, warn: () => {} };

/** A short, secret-free description of an error (no request headers, no bodies with tokens). */
export function errorText(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === 'string') return error;
  try {
    return JSON.stringify(error);
  } catch {
    return String(error);
  }
}

/** A Log that writes lines through `write` (stderr for the CLI). */
export function lineLog(write: (line: string) => void): Log {
  return {
    info: (m) => write(m),
    warn: (m, e) => write(e === undefined ? `warning: ${m}` : `warning: ${m}: ${errorText(e)}`),
  };
}
