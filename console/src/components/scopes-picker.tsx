import { useId } from 'preact/hooks';
import { SCOPE_RESOURCES, type Scope, type ScopeResource } from '../scopes';

/** Per resource: no access, read, or write (which includes read). */
export type ScopeLevels = Partial<Record<ScopeResource, 'read' | 'write'>>;

const LABELS: Record<ScopeResource, string> = {
  practitioners: 'Practitioners',
  patients: 'Patients',
  orders: 'Orders',
  refills: 'Refills',
  carriers: 'Carriers and shipping prices',
  webhooks: 'Webhooks',
  formulary: 'Formulary',
};

/** The scopes the levels give, or undefined when none is checked (a credential with full access). */
export function scopesOf(levels: ScopeLevels): Scope[] | undefined {
  const scopes = SCOPE_RESOURCES.flatMap((resource) => {
    const level = levels[resource];
    return level ? [`${resource}:${level}` as const] : [];
  });
  return scopes.length > 0 ? scopes : undefined;
}

/** A credential's scopes as staff read them: "Full access", or each scope. */
export function describeScopes(scopes: readonly Scope[] | null): string {
  return scopes === null ? 'Full access' : scopes.join(', ');
}

/**
 * Read and write checkboxes per resource, for a restricted API key (or OAuth client). Write includes
 * read, so checking it checks read too; nothing checked means full access, and the hint says so.
 */
export function ScopesPicker({
  levels,
  onChange,
  noneHint = 'None checked: the key has full access. Write includes read.',
}: {
  levels: ScopeLevels;
  onChange: (levels: ScopeLevels) => void;
  /** What the hint says while nothing is checked (an OAuth client must have at least one scope). */
  noneHint?: string;
}) {
  const set = (resource: ScopeResource, level: 'read' | 'write' | undefined) => {
    const { [resource]: _previous, ...others } = levels;
    onChange(level === undefined ? others : { ...others, [resource]: level });
  };
  const chosen = scopesOf(levels);
  const hint = useId();
  return (
    <fieldset class="scopes">
      <legend>Scopes</legend>
      <p class="hint" id={hint}>
        {chosen ? `Restricted to: ${chosen.join(', ')}. Other requests are refused (403).` : noneHint}
      </p>
      <table aria-describedby={hint}>
        <thead>
          <tr>
            <th scope="col">Resource</th>
            <th scope="col">Read</th>
            <th scope="col">Write</th>
          </tr>
        </thead>
        <tbody>
          {SCOPE_RESOURCES.map((resource) => {
            const level = levels[resource];
            return (
              <tr key={resource}>
                <th scope="row">{LABELS[resource]}</th>
                <td>
                  <input
                    type="checkbox"
                    aria-label={`${resource}:read`}
                    checked={level !== undefined}
                    disabled={level === 'write'}
                    onChange={(event) => set(resource, event.currentTarget.checked ? 'read' : undefined)}
                  />
                </td>
                <td>
                  <input
                    type="checkbox"
                    aria-label={`${resource}:write`}
                    checked={level === 'write'}
                    onChange={(event) => set(resource, event.currentTarget.checked ? 'write' : 'read')}
                  />
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </fieldset>
  );
}
