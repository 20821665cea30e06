/** Fake timers: callbacks run when the test says so, in time order. */
export function manualTimers() {
  const pending: { at: number; callback: () => void; cleared: boolean }[] = [];
  return {
    set: (callback: () => void, ms: number) => {
      const entry = { at: ms, callback, cleared: false };
      pending.push(entry);
      return entry;
    },
    clear: (handle: unknown) => {
      (handle as { cleared: boolean }).cleared = true;
    },
    async runAll() {
      for (const entry of [...pending].sort((left, right) => left.at - right.at)) {
        if (!entry.cleared) entry.callback();
        await new Promise((resolve) => setImmediate(resolve));
      }
    },
    /** The delays of every timer set so far (cleared or not), in the order they were set. */
    get scheduled() {
      return pending.map((entry) => entry.at);
    },
  };
}
