export const MINUTE = 60_000;
export const T0 = Date.parse('2026-11-27T10:00:00Z');

/** One clock for the client, the proxy, its timers and the emulator: time moves only when the test says. */
export function fakeClock() {
  let now = T0;
  let pending: Array<{ at: number; callback: () => void; id: number }> = [];
  let ids = 0;
  return {
    now: () => now,
    timers: {
      set: (callback: () => void, ms: number) => {
        ids += 1;
        pending.push({ at: now + ms, callback, id: ids });
        return ids;
      },
      clear: (handle: unknown) => {
        pending = pending.filter((entry) => entry.id !== handle);
      },
    },
    /** Move time on without firing timers (a reply that takes this long). */
    jump(ms: number) {
      now += ms;
    },
    /**
     * Move time to `at`, firing every timer due on the way, in order, each ping finished (`settle`) before time moves on.
     * Time never moves back: after a `jump` past `at`, it stays where the jump left it.
     */
    async advanceTo(at: number, settle: () => Promise<void>) {
      for (;;) {
        const due = pending.filter((entry) => entry.at <= at).sort((a, b) => a.at - b.at)[0];
        if (!due) break;
        pending = pending.filter((entry) => entry !== due);
        now = Math.max(now, due.at);
        due.callback();
        await settle();
      }
      now = Math.max(now, at);
    },
    /** How many timers wait to fire. */
    get scheduled() {
      return pending.length;
    },
  };
}
