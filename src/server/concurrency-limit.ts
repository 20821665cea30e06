import type { MiddlewareHandler } from 'hono';

/**
 * At most `max` requests in flight through this middleware; the rest are answered at once
 * with 503 and `Retry-After`, instead of queueing without bound (memory grew to 2.5 GB with
 * 2,000 PostgreSQL requests waiting for a connection).
 */
export function concurrencyLimit(max: number, retryAfterSeconds = 1): MiddlewareHandler {
  let inFlight = 0;
  return async (context, next) => {
    if (inFlight >= max) {
      context.header('Retry-After', String(retryAfterSeconds));
      return context.json({ error: 'overloaded', message: `more than ${max} requests in flight; retry shortly` }, 503);
    }
    inFlight += 1;
    try {
      await next();
    } finally {
      inFlight -= 1;
    }
  };
}
