import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTraceStore } from '../trace/open-trace-store.js';
import { FLEET_T0, fleetEvents } from '../trace/test-support/fleet-events.js';
import type { TraceStore } from '../trace/trace-store.js';
import { createApp } from './create-app.js';

let store: TraceStore;
beforeAll(async () => {
  store = await openTraceStore(':memory:');
  await store.appendBatch([...fleetEvents({ sessions: 12, requestsPerSession: 5 })]);
});
afterAll(() => store.close());

const json = (value: unknown) => JSON.parse(JSON.stringify(value));

describe('overview API', () => {
  it('serves the store’s overview and session list for the filters it was given', async () => {
    const app = createApp({ store });
    const from = new Date(FLEET_T0 + 3_600_000).toISOString();
    const overview = await app.request(`/analytics/overview?source=simulation&model=gpt-5&from=${from}&bucket=day`);
    expect(overview.status).toBe(200);
    expect(await overview.json()).toEqual(
      json(await store.overview({ source: 'simulation', model: 'gpt-5', from: FLEET_T0 + 3_600_000, bucket: 'day' })),
    );
    const list = await app.request('/analytics/session_list?group=workload&sort=lost&limit=3&offset=2&run=run-0');
    expect(await list.json()).toEqual(
      json(await store.sessionList({ groupBy: 'workload', sort: 'lost', limit: 3, offset: 2, run: 'run-0' })),
    );
  });

  it.each([
    ['/analytics/overview?bucket=week', /^bucket: /],
    ['/analytics/overview?sourc=proxy', /unknown query parameter\(s\): sourc/],
    ['/analytics/overview?from=2026-11-25&to=2026-11-24', /"from" must not be after "to"/],
    ['/analytics/overview?source=', /source: expected a non-empty value/],
    ['/analytics/session_list?limit=0', /^limit: /],
    ['/analytics/session_list?group=colour', /^group: /],
    ['/analytics/session_list?sort=random', /^sort: /],
  ])('answers %s with a typed 400 naming the parameter', async (path, message) => {
    const response = await createApp({ store }).request(path);
    expect(response.status).toBe(400);
    const body = await response.json();
    expect(body.error).toBe('invalid_query');
    expect(body.message).toMatch(message);
  });
});
