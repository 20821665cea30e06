import { ChunkedList } from './chunked-list.js';
import type { NormalizedWireBody, WireUnit } from './wire-unit.js';

/** Session bodies' units as built by normalisation (sharing storage with the session's earlier bodies). */
const listOfBody = new WeakMap<NormalizedWireBody, ChunkedList<WireUnit>>();
/** Plain units arrays read as lists, once per array. */
const listOfArray = new WeakMap<readonly WireUnit[], ChunkedList<WireUnit>>();

/**
 * A body's units as a `ChunkedList`: what every per-request pass reads (the break detector, the
 * cache models, the token totals, the prefix hashes). A session's bodies share the storage of
 * the history they repeat, so reading a body this way costs nothing per unit of history; a body
 * normalised without a session is read from its `units` array (copied once per array).
 */
export function unitsOf(body: NormalizedWireBody): ChunkedList<WireUnit> {
  const built = listOfBody.get(body);
  if (built !== undefined) return built;
  const units = body.units;
  let list = listOfArray.get(units);
  if (list === undefined) {
    list = ChunkedList.of(units);
    listOfArray.set(units, list);
  }
  return list;
}

/** The plain arrays of bodies made by `bodyWithUnitList`, built on first read or assigned. */
const arrayOfBody = new WeakMap<NormalizedWireBody, WireUnit[]>();

/**
 * The `units` accessor of every body `bodyWithUnitList` makes: one pair of functions for all
 * (closures per body cost two functions and a descriptor per request, and a pair of its own gave
 * each body its own hidden class). `this` is the body.
 */
const UNITS_PROPERTY: PropertyDescriptor & ThisType<NormalizedWireBody> = {
  enumerable: true,
  configurable: true,
  get(): WireUnit[] {
    let units = arrayOfBody.get(this);
    if (units === undefined) {
      units = listOfBody.get(this)?.toArray() ?? [];
      arrayOfBody.set(this, units);
    }
    return units;
  },
  set(value: WireUnit[]) {
    arrayOfBody.set(this, value);
    listOfBody.delete(this);
  },
};

/**
 * A normalised body whose units are `list`: its `units` field is the plain array every other
 * reader (analyze, the proxy, the emulator, reports) knows, built from the list the first time it
 * is read and the same array on every later read. Assigning `units` replaces the list.
 */
export function bodyWithUnitList(fields: Omit<NormalizedWireBody, 'units'>, list: ChunkedList<WireUnit>): NormalizedWireBody {
  // The fields in the order normalisation always wrote them (a report that prints a body keeps its bytes).
  const body = { format: fields.format, model: fields.model } as NormalizedWireBody;
  listOfBody.set(body, list);
  Object.defineProperty(body, 'units', UNITS_PROPERTY);
  body.automaticBreakpoint = fields.automaticBreakpoint;
  body.warnings = fields.warnings;
  body.retention = fields.retention;
  body.promptCacheMode = fields.promptCacheMode;
  return body;
}

/** `body` under another format (Bedrock judged as the Messages body it stands for), its units list kept. */
export function withFormat(body: NormalizedWireBody, format: NormalizedWireBody['format']): NormalizedWireBody {
  const list = listOfBody.get(body);
  if (list === undefined) return { ...body, format };
  const { automaticBreakpoint, warnings, retention, promptCacheMode, model } = body;
  return bodyWithUnitList({ format, model, automaticBreakpoint, warnings, retention, promptCacheMode }, list);
}
