/**
 * Reused memory for large request bodies (pass-through and `--plan`). A body read into a fresh buffer per request
 * that lives through the upstream call and the record stage costs the proxy full garbage
 * collections: V8 counts the external memory allocated since the last full collection against
 * its old-generation limit, and at 500 KB a body every few milliseconds reaches it every ~30
 * requests (each full collection then traces the whole heap). A body copied into a slab taken
 * from this pool and given back when the exchange is over allocates nothing per request.
 *
 * A slab is lent (`take`) and goes back to the pool once every holder released it (`hold`): the
 * front end until the record stage is done with the body, the transport until the body is
 * written. A holder that never releases (a failure path) only costs the pool that slab: it is
 * collected like any buffer. Nothing that outlives the exchange may keep a view of a lent body
 * (`isLent`): the conversation tracker keeps its own copy (`keptSharing`), the key-field memo
 * refers to that copy; under `--plan` the parsed history keeps that copy, and what is sent and
 * kept are views of it (`planRequest`).
 */

/** Bodies from this size on are read into a slab; smaller ones arrive in one socket read anyway. */
export const SLAB_BODY_FROM_BYTES = 32 * 1024;
/** Larger bodies get a buffer of their own (as before): a slab this large would rarely be reused. */
const SLAB_BODY_UP_TO_BYTES = 4 * 1024 * 1024;
/** Free slabs kept, in bytes all together; beyond, released slabs are left to the collector. */
const FREE_SLAB_BYTES = 16 * 1024 * 1024;

/** A body in a lent slab. */
export interface BodyLease {
  /** The body: a view of the slab, valid until the last holder released it. */
  readonly bytes: Buffer;
  /** One more holder; call the returned function (any number of times) when done with `bytes`. */
  hold(): () => void;
}

export interface BodySlabs {
  /** A slab for a body of `size` bytes (the caller fills all of them), or null outside the pooled sizes. */
  take(size: number): BodyLease | null;
  /** Bytes in free slabs. */
  readonly freeBytes: number;
}

const lent = new WeakSet<Uint8Array>();

/** Whether `bytes` are a lent body (its memory is written over once the exchange is done). */
export function isLent(bytes: unknown): boolean {
  return bytes instanceof Uint8Array && lent.has(bytes);
}

export function createBodySlabs(): BodySlabs {
  const free: Buffer[] = [];
  let freeBytes = 0;
  const giveBack = (slab: Buffer) => {
    if (freeBytes + slab.byteLength > FREE_SLAB_BYTES) return;
    free.push(slab);
    freeBytes += slab.byteLength;
  };
  return {
    take(size) {
      if (size < SLAB_BODY_FROM_BYTES || size > SLAB_BODY_UP_TO_BYTES) return null;
      // The smallest free slab that fits (few are free at once: one per exchange in flight).
      let best = -1;
      for (let index = 0; index < free.length; index++) {
        const candidate = free[index]!.byteLength;
        if (candidate >= size && (best < 0 || candidate < free[best]!.byteLength)) best = index;
      }
      let slab: Buffer;
      if (best >= 0) {
        slab = free[best]!;
        free[best] = free.at(-1)!;
        free.pop();
        freeBytes -= slab.byteLength;
      } else {
        // A quarter more, so the next, longer body of a growing conversation fits too.
        slab = Buffer.allocUnsafeSlow(Math.min(SLAB_BODY_UP_TO_BYTES, Math.ceil(size * 1.25)));
      }
      const bytes = slab.subarray(0, size);
      lent.add(bytes);
      let holders = 0;
      let returned = false;
      return {
        bytes,
        hold() {
          holders++;
          let released = false;
          return () => {
            if (released) return;
            released = true;
            // The view stays marked as lent: whoever still holds it by mistake must not keep it.
            // A hold taken after the slab went back must not return it a second time (two leases of one slab).
            if (--holders === 0 && !returned) {
              returned = true;
              giveBack(slab);
            }
          };
        },
      };
    },
    get freeBytes() {
      return freeBytes;
    },
  };
}
