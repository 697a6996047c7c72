/**
 * When the client's bytes last arrived. Work that only fills time nobody is waiting on (the
 * idle warm-up, the start-up scan's next step) gives way while a message is arriving: a large
 * file comes in several reads (a pipe holds 64 KiB), and work run between two of them holds the
 * file back by its own length each time. Over stdio the server sees the bytes; over the other
 * transports it sees whole messages only, and then nothing waits.
 */

/** Longer than the gap between two reads of one message; short enough that the idle work loses little. */
export const INPUT_QUIET_MS = 10;
/** untilQuiet waits no longer than this: a client that never stops sending does not stall the scan. */
export const INPUT_WAIT_MAX_MS = 200;

export interface InputWatch {
  /** Milliseconds since the last bytes arrived (Infinity when none were seen). */
  quietFor(): number;
  /** Resolves once the input has been quiet for INPUT_QUIET_MS (or after INPUT_WAIT_MAX_MS), after pending I/O. */
  untilQuiet(): Promise<void>;
  /**
   * Starts watching a stream; attach it after the connection listens, so that no bytes reach this
   * listener alone. Attaching counts as input: it follows a message just read (the server attaches
   * on `initialized`, which a client follows at once with the documents it restores).
   */
  watch(input: NodeJS.ReadableStream): void;
}

export function createInputWatch(now: () => number = () => performance.now()): InputWatch {
  let last = -Infinity;
  const quietFor = () => now() - last;
  return {
    quietFor,
    untilQuiet: () =>
      new Promise<void>((resolve) => {
        const since = now();
        const check = () => {
          const quiet = quietFor();
          if (quiet < INPUT_QUIET_MS && now() - since < INPUT_WAIT_MAX_MS) setTimeout(check, INPUT_QUIET_MS - quiet);
          else resolve();
        };
        setImmediate(check);
      }),
    watch(input) {
      last = now();
      input.on('data', () => (last = now()));
    },
  };
}
