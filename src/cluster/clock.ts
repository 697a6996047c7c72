/** Time as a parameter: the controller and the lease read `now()` and set timers only through this. */
export interface Clock {
  now(): Date;
  /** Calls `fn` after `ms`; returns a function that cancels it. */
  setTimer(fn: () => void, ms: number): () => void;
}

export const systemClock: Clock = {
  now: () => new Date(),
  setTimer(fn, ms) {
    const t = setTimeout(fn, Math.max(0, ms));
    return () => clearTimeout(t);
  },
};
