import type { ReadContext } from '../context.js';
import { listDeprecationUsage } from './deprecation.repository.js';
import type { DeprecationUseView, DeprecationView } from './deprecation.schemas.js';
import type { DeprecationUsageTable } from './deprecation.tables.js';
import { DEPRECATIONS, type DeprecationEntry } from './registry.js';

/**
 * Every entry of the registry with who has used it and how often (operators: GET
 * /api/admin/deprecations, `npm run admin -- deprecations`): whom to tell before a sunset. Counts are
 * those written so far: each instance writes its own about every minute (usage-tally.ts).
 */
export async function listDeprecations(
  ctx: ReadContext,
  entries: readonly DeprecationEntry[] = DEPRECATIONS,
): Promise<DeprecationView[]> {
  const rows = await listDeprecationUsage(
    ctx.db,
    entries.map((entry) => entry.code),
  );
  return entries.map((entry) => {
    const usage = rows.filter((row) => row.code === entry.code).map(toUse);
    return {
      code: entry.code,
      kind: entry.kind,
      method: entry.method,
      route: entry.route,
      name: entry.name ?? null,
      deprecated_at: entry.deprecated_at,
      sunset_at: entry.sunset_at,
      link: entry.link,
      replacement: entry.replacement,
      total_count: usage.reduce((sum, use) => sum + use.count, 0),
      usage,
    };
  });
}

function toUse(row: DeprecationUsageTable): DeprecationUseView {
  return {
    credential_type: row.credential_type === 'oauth_client' ? 'oauth_client' : 'api_key',
    credential_id: row.credential_id,
    clinic_id: row.clinic_id,
    count: row.use_count,
    first_seen_at: row.first_seen_at,
    last_seen_at: row.last_seen_at,
  };
}
