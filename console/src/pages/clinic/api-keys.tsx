import { useState } from 'preact/hooks';
import { api } from '../../api';
import { useAction } from '../../components/action';
import { ApiKeyCells, expired, shownKey } from '../../components/api-key-cells';
import { RollButton } from '../../components/roll-button';
import { ConfirmButton } from '../../components/confirm';
import { handler } from '../../components/events';
import { Empty, ErrorMessage, Loading, Time } from '../../components/feedback';
import { useResource } from '../../components/use-resource';
import { ShownOnce } from '../../components/shown-once';
import { useSession } from '../../session';
import { describeScopes, ScopesPicker, scopesOf, type ScopeLevels } from '../../components/scopes-picker';
import type { ApiKey, Environment, IssuedApiKey, RolledApiKey } from './types';

/** How long a rolled key keeps working beside its successor: the choices offered (the API takes 0 to 7 days). */
const OVERLAPS = [
  { value: 0, label: 'Stops now' },
  { value: 3600, label: '1 hour' },
  { value: 86_400, label: '24 hours' },
  { value: 604_800, label: '7 days' },
] as const;

/** A clinic's API keys: admins list, issue, roll and revoke them; pharmacists are told they cannot. */
export function ApiKeys({ clinicId }: { clinicId: string }) {
  const { role } = useSession();
  return (
    <section aria-labelledby="api-keys-heading">
      <h2 id="api-keys-heading">API keys</h2>
      {role === 'admin' ? <AdminApiKeys clinicId={clinicId} /> : <p class="muted">Only admins see and issue API keys.</p>}
    </section>
  );
}

function AdminApiKeys({ clinicId }: { clinicId: string }) {
  const keys = useResource(`api-keys ${clinicId}`, () =>
    api('GET', '/api/admin/clinics/{clinicId}/api-keys', { path: { clinicId } }),
  );
  const [environment, setEnvironment] = useState<Environment | ''>('');
  const [levels, setLevels] = useState<ScopeLevels>({});
  const [issued, setIssued] = useState<IssuedApiKey | RolledApiKey | null>(null);
  const issue = useAction();
  const revoke = useAction();
  const roll = useAction();

  const submit = async (event: Event) => {
    event.preventDefault();
    await issue.run(async () => {
      const scopes = scopesOf(levels);
      const body = { ...(environment ? { environment } : {}), ...(scopes ? { scopes } : {}) };
      setIssued(await api('POST', '/api/admin/clinics/{clinicId}/api-keys', { path: { clinicId }, body }));
      setLevels({});
      keys.reload();
    });
  };

  const revokeKey = (key: ApiKey) =>
    revoke.run(async () => {
      const { revoked_at } = await api('DELETE', '/api/admin/api-keys/{apiKeyId}', { path: { apiKeyId: key.api_key_id } });
      const list = keys.data?.api_keys ?? [];
      keys.setData({ api_keys: list.map((k) => (k.api_key_id === key.api_key_id ? { ...k, revoked_at } : k)) });
    });

  const rollKey = (key: ApiKey, seconds: number) =>
    roll.run(async () => {
      const body = { expires_in_seconds: seconds };
      setIssued(await api('POST', '/api/admin/api-keys/{apiKeyId}/roll', { path: { apiKeyId: key.api_key_id }, body }));
      keys.reload();
    });

  return (
    <>
      <form onSubmit={handler(submit)} aria-label="Issue an API key">
        <div class="inline-fields">
          <label>
            Environment
            <select value={environment} onChange={(event) => setEnvironment(event.currentTarget.value as Environment | '')}>
              <option value="">The server’s</option>
              <option value="development">Development (sandbox)</option>
              <option value="production">Production</option>
            </select>
          </label>
        </div>
        <ScopesPicker levels={levels} onChange={setLevels} />
        <button type="submit" disabled={issue.busy}>
          Issue API key
        </button>
      </form>
      <ErrorMessage error={issue.error} />
      {issued && <IssuedKey issued={issued} onDone={() => setIssued(null)} />}
      <ErrorMessage error={keys.error} />
      <ErrorMessage error={revoke.error} />
      <ErrorMessage error={roll.error} />
      {keys.loading && !keys.data && <Loading what="API keys" />}
      {keys.data?.api_keys.length === 0 && <Empty>No API keys yet: issue one for the clinic’s integration.</Empty>}
      {keys.data && keys.data.api_keys.length > 0 && (
        <div class="table-wrap">
          <table aria-label="API keys">
            <thead>
              <tr>
                <th scope="col">Key</th>
                <th scope="col">Environment</th>
                <th scope="col">Scopes</th>
                <th scope="col">Created</th>
                <th scope="col">Last used</th>
                <th scope="col">Expires</th>
                <th scope="col">Revoked</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {keys.data.api_keys.map((key) => (
                <tr key={key.api_key_id}>
                  <ApiKeyCells apiKey={key} />
                  <td>
                    {key.expires_at ? (
                      <>
                        {expired(key) && 'Expired '}
                        <Time iso={key.expires_at} />
                      </>
                    ) : (
                      <span class="muted">Never</span>
                    )}
                  </td>
                  <td>{key.revoked_at ? <Time iso={key.revoked_at} /> : <span class="muted">Active</span>}</td>
                  <td>
                    {!key.revoked_at && !expired(key) && (
                      <div class="actions">
                        <RollButton
                          name={shownKey(key)}
                          overlaps={OVERLAPS}
                          initial={86_400}
                          busy={roll.busy}
                          onRoll={(seconds) => rollKey(key, seconds)}
                        />
                        <ConfirmButton
                          label="Revoke"
                          question={`Revoke ${key.key_prefix}…? Requests made with it will be refused.`}
                          confirm="Yes, revoke"
                          busy={revoke.busy}
                          onConfirm={() => revokeKey(key)}
                        />
                      </div>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}

/**
 * The key just issued, shown this once. Copy uses the clipboard API; where the browser refuses it
 * (an http:// origin other than localhost, a denied permission) the key is selected for Ctrl+C.
 */
function IssuedKey({ issued, onDone }: { issued: IssuedApiKey | RolledApiKey; onDone: () => void }) {
  return (
    <div class="secret issued-key">
      <h3>New {issued.environment} API key</h3>
      <p>
        <strong>Copy this key now: it is shown only once.</strong> Only its prefix <code>{issued.key_prefix}</code> is kept; give
        the key to the clinic over a secure channel.
      </p>
      <p>Scopes: {describeScopes(issued.scopes)}.</p>
      {'previous_key' in issued && (
        <p>
          The rolled key keeps working until <Time iso={issued.previous_key.expires_at} />, then it is refused.
        </p>
      )}
      <ShownOnce label="API key" noun="key" value={issued.api_key} onDone={onDone} />
    </div>
  );
}
