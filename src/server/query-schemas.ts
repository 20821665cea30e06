import { z } from 'zod';
import { type OverviewQuery, SESSION_DIMENSIONS, SESSION_SORTS, type SessionListQuery } from '../trace/overview.js';
import type { TraceFilter } from '../trace/trace-store.js';

const MAX_TIME_MS = 8_640_000_000_000_000;

/** A time given as epoch milliseconds (`1763726400000`) or ISO 8601 (`2026-11-21T12:00:00Z`). */
const timeSchema = z
  .string()
  .trim()
  .min(1)
  .transform((value, context) => {
    const parsed = /^\d+$/.test(value) ? Number(value) : Date.parse(value);
    // Beyond ±8.64e15 ms no date exists (ECMAScript's range), and PostgreSQL could not compare it.
    if (!Number.isFinite(parsed) || Math.abs(parsed) > MAX_TIME_MS) {
      context.addIssue({
        code: 'custom',
        message: 'expected epoch milliseconds or an ISO 8601 date-time, within the range of dates (±8640000000000000 ms)',
      });
      return z.NEVER;
    }
    return parsed;
  });

const nonEmpty = z.string().trim().min(1, 'expected a non-empty value');

/** Query of `/analytics/*`: every field optional; unknown names are rejected so typos do not silently widen a query. */
export const analyticsQuerySchema = z
  .object({ session: nonEmpty.optional(), model: nonEmpty.optional(), from: timeSchema.optional(), to: timeSchema.optional() })
  .strict()
  .refine((query) => query.from === undefined || query.to === undefined || query.from <= query.to, {
    message: '"from" must not be after "to"',
    path: ['from'],
  });

export const sessionsQuerySchema = z
  .object({
    limit: z.coerce.number().int().min(1).max(1000).optional(),
    offset: z.coerce.number().int().min(0).optional(),
    /** One session's summary only. */
    session: nonEmpty.optional(),
  })
  .strict();

const label = z.string().trim().min(1, 'expected a non-empty value').max(200);
const labelFilters = Object.fromEntries(SESSION_DIMENSIONS.map((name) => [name, label.optional()])) as Record<
  (typeof SESSION_DIMENSIONS)[number],
  z.ZodOptional<typeof label>
>;
const overviewFields = { ...labelFilters, model: label.optional(), from: timeSchema.optional(), to: timeSchema.optional() };
const fromNotAfterTo = (query: { from?: number; to?: number }) =>
  query.from === undefined || query.to === undefined || query.from <= query.to;

/** Query of `/analytics/overview`: the label filters, model, time range and the series bucket. */
export const overviewQuerySchema = z
  .object({ ...overviewFields, bucket: z.enum(['hour', 'day']).optional() })
  .strict()
  .refine(fromNotAfterTo, { message: '"from" must not be after "to"', path: ['from'] });

/** Query of `/analytics/session_list`: the overview's filters, a grouping label, a sort and a page. */
export const sessionListQuerySchema = z
  .object({
    ...overviewFields,
    group: z.enum([...SESSION_DIMENSIONS, 'model']).optional(),
    sort: z.enum(SESSION_SORTS).optional(),
    limit: z.coerce.number().int().min(1).max(500).optional(),
    offset: z.coerce.number().int().min(0).max(1_000_000).optional(),
  })
  .strict()
  .refine(fromNotAfterTo, { message: '"from" must not be after "to"', path: ['from'] });

export function toOverviewQuery(query: z.infer<typeof overviewQuerySchema>): OverviewQuery {
  return Object.fromEntries(Object.entries(query).filter(([, value]) => value !== undefined)) as OverviewQuery;
}

export function toSessionListQuery(query: z.infer<typeof sessionListQuerySchema>): SessionListQuery {
  const { group, ...rest } = query;
  return {
    ...(Object.fromEntries(Object.entries(rest).filter(([, value]) => value !== undefined)) as SessionListQuery),
    ...(group ? { groupBy: group } : {}),
  };
}

export function toTraceFilter(query: z.infer<typeof analyticsQuerySchema>): TraceFilter {
  const filter: TraceFilter = {};
  if (query.session !== undefined) filter.sessionId = query.session;
  if (query.model !== undefined) filter.model = query.model;
  if (query.from !== undefined) filter.from = query.from;
  if (query.to !== undefined) filter.to = query.to;
  return filter;
}

/** `from: expected ...; limit: Too big...` — one line naming each bad parameter. */
export function describeQueryError(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      if (issue.code === 'unrecognized_keys') return `unknown query parameter(s): ${issue.keys.join(', ')}`;
      const name = issue.path.map(String).join('.') || 'query';
      return `${name}: ${issue.message}`;
    })
    .join('; ');
}
