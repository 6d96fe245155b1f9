// Over 250 lines: carriers and services of the catalogue, whose names, prices and rules apply to both.
import type { AuditContext } from '../audit/audit-actor.js';
import type { AuditedResource } from '../audit/audit-vocabulary.js';
import { runChange } from '../changes/run-change.js';
import type { ReadContext, ServiceContext } from '../context.js';
import { constraintViolation } from '../db/constraints.js';
import type { ShippingServiceStatePriceTable, ShippingServiceTable } from './shipping.tables.js';
import { isoNow } from '../clock.js';
import { fromFlag, toFlag } from '../db/columns.js';
import { conflict, fieldError, invalidFields, notFound, validationError, type ErrorDetails } from '../errors.js';
import { isUsStateCode } from '../reference/us-states.js';
import { isCatalogueId, MAX_ID_LENGTH, slugify } from './carrier-slug.js';
import { centsToDollars, dollarsToCents, isDollarAmount } from '../shared/money.js';
import type { CatalogueCarrierView, CatalogueServiceView } from './catalogue.schemas.js';
import * as repo from './shipping.repository.js';
import { collapseSpaces } from '../shared/text.js';

/*
 * The operator's carrier catalogue: carriers, their services, base prices and per-state prices.
 * The API routes and the command line both call these functions, so every rule is checked here,
 * not only in the HTTP schemas.
 */

/** Highest accepted price, in dollars: well inside a 32-bit count of cents. */
export const MAX_PRICE_DOLLARS = 100_000;

export interface NewCarrier {
  id?: string;
  name: string;
}

export interface NewService {
  id?: string;
  name: string;
  price: number;
  state_prices?: Record<string, number>;
  cold_chain_eligible?: boolean;
}

export interface ServiceChanges {
  name?: string;
  price?: number;
  state_prices?: Record<string, number>;
  cold_chain_eligible?: boolean;
}

/** Adds a carrier; without an id, one is derived from the name. A taken id is a 409. Audited (`create` of the carrier). */
export async function createCarrier(
  ctx: ServiceContext,
  input: NewCarrier,
  audit: AuditContext | null,
): Promise<CatalogueCarrierView> {
  const name = cleanName(input.name, 'name');
  const id = resolveId(input.id, name);
  const row = { id, name, created_at: isoNow(ctx.clock) };
  try {
    await runChange(ctx, audit, (change) => {
      change.write(repo.carrierInsert(change, row));
      change.audit?.('create', { type: 'carrier', id, clinicId: null });
    });
  } catch (error) {
    if (constraintViolation(error) === 'unique') throw conflict(`Carrier "${id}" already exists`, { id: 'already exists' });
    throw error;
  }
  return { ...row, services: [] };
}

/** Every carrier with its services and prices (three queries, whatever the size of the catalogue). */
export async function listCatalogue(ctx: ReadContext): Promise<CatalogueCarrierView[]> {
  const [carriers, services, statePrices] = await Promise.all([
    repo.listCarriers(ctx.db),
    repo.listServices(ctx.db),
    repo.listStatePrices(ctx.db),
  ]);
  const pricesByService = groupBy(statePrices, (p) => `${p.carrier_id}\u0000${p.service_id}`);
  const servicesByCarrier = groupBy(services, (s) => s.carrier_id);
  return carriers.map((carrier) => ({
    id: carrier.id,
    name: carrier.name,
    created_at: carrier.created_at,
    services: (servicesByCarrier.get(carrier.id) ?? []).map((s) =>
      toService(s, pricesByService.get(`${s.carrier_id}\u0000${s.id}`) ?? []),
    ),
  }));
}

/**
 * Adds a service to a carrier, with its state prices, in one transaction. Prices are dollars with
 * at most two decimals; a service id already used by the carrier is a 409. Audited (`create` of the
 * shipping_service).
 */
export async function addService(
  ctx: ServiceContext,
  carrierId: string,
  input: NewService,
  audit: AuditContext | null,
): Promise<CatalogueServiceView> {
  const name = cleanName(input.name, 'name');
  const id = resolveId(input.id, name);
  const priceCents = priceInCents(input.price, 'price');
  const statePrices = statePricesInCents(input.state_prices ?? {});
  const row: ShippingServiceTable = {
    carrier_id: carrierId,
    id,
    name,
    price_cents: priceCents,
    cold_chain_eligible: toFlag(input.cold_chain_eligible),
    created_at: isoNow(ctx.clock),
  };

  await runChange(ctx, audit, async (change) => {
    const trx = await change.transaction();
    if (!(await repo.findCarrier(trx, carrierId))) throw notFound('Carrier not found');
    try {
      await repo.insertService(trx, row);
    } catch (error) {
      const violation = constraintViolation(error);
      if (violation === 'unique')
        throw conflict(`Service "${id}" already exists for carrier "${carrierId}"`, { id: 'already exists' });
      // The carrier was deleted between the lookup and the insert.
      if (violation === 'foreign_key') throw notFound('Carrier not found');
      throw error;
    }
    await repo.replaceStatePrices(trx, carrierId, id, statePrices);
    change.audit?.('create', serviceResource(carrierId, id));
  });
  return toService(row, stateRows(carrierId, id, statePrices));
}

/**
 * Changes a service's name, base price, state prices and/or cold-chain eligibility in one
 * transaction. `state_prices`, when given, replaces the service's whole set (`{}` removes every
 * state price). Audited (`update` of the shipping_service).
 */
export async function updateService(
  ctx: ServiceContext,
  carrierId: string,
  serviceId: string,
  changes: ServiceChanges,
  audit: AuditContext | null,
): Promise<CatalogueServiceView> {
  if (
    changes.name === undefined &&
    changes.price === undefined &&
    changes.state_prices === undefined &&
    changes.cold_chain_eligible === undefined
  ) {
    throw validationError('Validation failed: give at least one of name, price, state_prices, cold_chain_eligible', {
      body: 'must change at least one of name, price, state_prices, cold_chain_eligible',
    });
  }
  const name = changes.name === undefined ? undefined : cleanName(changes.name, 'name');
  const priceCents = changes.price === undefined ? undefined : priceInCents(changes.price, 'price');
  const statePrices = changes.state_prices === undefined ? undefined : statePricesInCents(changes.state_prices);

  return runChange(ctx, audit, async (change) => {
    const trx = await change.transaction();
    if (!(await repo.findCarrier(trx, carrierId))) throw notFound('Carrier not found');
    if (!(await repo.findService(trx, carrierId, serviceId))) throw notFound('Service not found');
    change.audit?.('update', serviceResource(carrierId, serviceId));
    await repo.updateService(trx, carrierId, serviceId, {
      ...(name !== undefined ? { name } : {}),
      ...(priceCents !== undefined ? { price_cents: priceCents } : {}),
      ...(changes.cold_chain_eligible !== undefined ? { cold_chain_eligible: toFlag(changes.cold_chain_eligible) } : {}),
    });
    if (statePrices !== undefined) await repo.replaceStatePrices(trx, carrierId, serviceId, statePrices);
    const [service, prices] = await Promise.all([
      repo.findService(trx, carrierId, serviceId),
      repo.listServiceStatePrices(trx, carrierId, serviceId),
    ]);
    if (!service) throw notFound('Service not found');
    return toService(service, prices);
  });
}

/** A service is named by its carrier's id and its own, as `<carrier id>/<service id>`. */
const serviceResource = (carrierId: string, serviceId: string): AuditedResource => ({
  type: 'shipping_service',
  id: `${carrierId}/${serviceId}`,
  clinicId: null,
});

function cleanName(value: string, field: string): string {
  const name = collapseSpaces(value);
  if (name === '') throw fieldError(field, 'must not be blank');
  if (name.length > 100) throw fieldError(field, 'must be at most 100 characters');
  return name;
}

function resolveId(given: string | undefined, name: string): string {
  if (given !== undefined) {
    if (!isCatalogueId(given)) {
      throw fieldError('id', `must be 1 to ${MAX_ID_LENGTH} letters, digits, "_", "-" or ".", starting with a letter or digit`);
    }
    return given;
  }
  const derived = slugify(name);
  if (derived === '') throw fieldError('id', 'is required when the name has no letters or digits');
  return derived;
}

function priceInCents(value: number, field: string): number {
  if (typeof value !== 'number' || !isDollarAmount(value)) {
    throw fieldError(field, 'must be an amount in US dollars of at least 0 with at most two decimals (e.g. 32.44)');
  }
  if (value > MAX_PRICE_DOLLARS) throw fieldError(field, `must be at most ${MAX_PRICE_DOLLARS}`);
  return dollarsToCents(value);
}

/** Validates every entry (state codes in any case, stored upper case) and reports all problems at once. */
function statePricesInCents(input: Record<string, number>): Record<string, number> {
  const details: ErrorDetails = {};
  const cents: Record<string, number> = {};
  for (const [rawCode, price] of Object.entries(input)) {
    const field = `state_prices.${rawCode}`;
    const code = rawCode.trim().toUpperCase();
    if (!isUsStateCode(code)) {
      details[field] = 'is not a two-letter US state code';
      continue;
    }
    if (Object.hasOwn(cents, code)) {
      details[field] = `repeats state ${code}`;
      continue;
    }
    try {
      cents[code] = priceInCents(price, field);
    } catch (error) {
      details[field] = (error as { details?: ErrorDetails }).details?.[field] ?? 'is invalid';
    }
  }
  if (Object.keys(details).length > 0) throw invalidFields(details);
  return cents;
}

function stateRows(carrierId: string, serviceId: string, prices: Record<string, number>): ShippingServiceStatePriceTable[] {
  return Object.entries(prices).map(([state_code, price_cents]) => ({
    carrier_id: carrierId,
    service_id: serviceId,
    state_code,
    price_cents,
  }));
}

function toService(row: ShippingServiceTable, prices: ShippingServiceStatePriceTable[]): CatalogueServiceView {
  const statePrices: Record<string, number> = {};
  for (const p of [...prices].sort((a, b) => a.state_code.localeCompare(b.state_code))) {
    statePrices[p.state_code] = centsToDollars(p.price_cents);
  }
  return {
    carrier_id: row.carrier_id,
    id: row.id,
    name: row.name,
    price: centsToDollars(row.price_cents),
    state_prices: statePrices,
    cold_chain_eligible: fromFlag(row.cold_chain_eligible),
    created_at: row.created_at,
  };
}

function groupBy<T>(items: T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    const group = groups.get(k);
    if (group) group.push(item);
    else groups.set(k, [item]);
  }
  return groups;
}
