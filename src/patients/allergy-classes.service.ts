import type { AuditContext } from '../audit/audit-actor.js';
import { runChange } from '../changes/run-change.js';
import { isoNow } from '../clock.js';
import type { ServiceContext } from '../context.js';
import type { DbOrTrx } from '../db/database.js';
import { conflict, fieldError, notFound } from '../errors.js';
import { containsPhrase, DEFAULT_ALLERGY_CLASSES, mergedClasses, type AllergyClass } from './allergy-classes.js';
import * as repo from './allergy-classes.repository.js';
import { ALLERGY_CLASS_LIMITS, type AllergyClassView, type PutAllergyClassInput } from './allergy-classes.schemas.js';
import type { AllergyClassTable } from './patient.tables.js';
import { substanceKey } from './substance-key.js';

/**
 * The allergy classes intake compares with (issue 39, item 5; docs/compounding.md#allergy-classes):
 * the documented defaults (allergy-classes.ts) with the operator's rows applied, read from the
 * database at each intake that has allergies to compare (no cache: every server sees a change at once).
 */
export async function allergyClassesIn(db: DbOrTrx): Promise<AllergyClass[]> {
  return mergedClasses((await repo.listAllergyClassRows(db)).map(classOfRow));
}

/** GET /api/admin/allergy-classes: every class, the defaults' order first, then the operator's added codes by code. */
export async function listAllergyClasses(ctx: { db: DbOrTrx }): Promise<AllergyClassView[]> {
  const rows = new Map((await repo.listAllergyClassRows(ctx.db)).map((row) => [row.code, row]));
  return mergedClasses([...rows.values()].map(classOfRow)).map((c) => viewOf(c, rows.get(c.code)));
}

/**
 * PUT /api/admin/allergy-classes/{code}: sets the operator's class of `code`, replacing the default of
 * that code if there is one, or adding a class; audited (`update` of `allergy_class`). Names are kept
 * once per substance key; a name or member with no letter or digit is a 400 naming it.
 */
export async function putAllergyClass(
  ctx: ServiceContext,
  code: string,
  input: PutAllergyClassInput,
  audit: AuditContext,
): Promise<AllergyClassView> {
  const names = uniqueBy(input.names.map(tidy), substanceKey);
  const members = uniqueBy(input.members.map(tidy), (m) => m.toLowerCase());
  names.forEach((name, i) => {
    if (substanceKey(name) === '') throw fieldError(`names[${i}]`, 'must hold a letter or a digit');
  });
  members.forEach((member, i) => {
    if (!containsPhrase(member, member)) throw fieldError(`members[${i}]`, 'must hold a letter or a digit');
  });
  const row: AllergyClassTable = {
    code,
    label: tidy(input.label),
    names: JSON.stringify(names),
    members: JSON.stringify(members),
    updated_at: isoNow(ctx.clock),
  };
  await runChange(ctx, audit, async (change) => {
    const existing = await repo.listAllergyClassRows(ctx.db);
    const known = new Set([...DEFAULT_ALLERGY_CLASSES.map((c) => c.code), ...existing.map((r) => r.code)]);
    if (!known.has(code) && known.size >= ALLERGY_CLASS_LIMITS.classes) {
      throw conflict(`The table holds ${ALLERGY_CLASS_LIMITS.classes} classes, the most it may: change one instead`, {
        code: `is a new class; the table is full (${ALLERGY_CLASS_LIMITS.classes})`,
      });
    }
    change.write(repo.allergyClassUpsert(change, row));
    change.audit('update', { type: 'allergy_class', id: code, clinicId: null });
  });
  return viewOf(classOfRow(row), row);
}

/**
 * DELETE /api/admin/allergy-classes/{code}: removes the operator's class of `code` (a default it
 * replaced applies again); audited (`delete` of `allergy_class`). A default the operator never set
 * cannot be removed (409: set it with PUT instead); an unknown code is a 404.
 */
export async function deleteAllergyClass(
  ctx: ServiceContext,
  code: string,
  audit: AuditContext,
): Promise<AllergyClassView | null> {
  const own = await repo.findAllergyClassRow(ctx.db, code);
  const standard = DEFAULT_ALLERGY_CLASSES.find((c) => c.code === code);
  if (own === undefined) {
    if (standard === undefined) throw notFound('Allergy class not found');
    throw conflict('A default allergy class cannot be removed: set it with PUT to change it', {
      code: 'is a default class the operator never set',
    });
  }
  await runChange(ctx, audit, (change) => {
    change.write(repo.allergyClassDelete(change, code));
    change.audit('delete', { type: 'allergy_class', id: code, clinicId: null });
  });
  return standard === undefined ? null : viewOf(standard, undefined);
}

function classOfRow(row: AllergyClassTable): AllergyClass {
  return {
    code: row.code,
    label: row.label,
    names: JSON.parse(row.names) as string[],
    members: JSON.parse(row.members) as string[],
  };
}

function viewOf(c: AllergyClass, row: AllergyClassTable | undefined): AllergyClassView {
  return {
    code: c.code,
    label: c.label,
    names: [...c.names],
    members: [...c.members],
    source: row === undefined ? 'default' : 'operator',
    replaces_default: row !== undefined && DEFAULT_ALLERGY_CLASSES.some((d) => d.code === c.code),
    updated_at: row?.updated_at ?? null,
  };
}

const tidy = (text: string): string => text.trim().replace(/\s+/g, ' ');

function uniqueBy(values: readonly string[], key: (value: string) => string): string[] {
  const seen = new Set<string>();
  return values.filter((value) => {
    const k = key(value);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}
