import { useState } from 'preact/hooks';
import { api } from '../../api';
import { useAction } from '../../components/action';
import { ApiKeyCells, expired, shownKey } from '../../components/api-key-cells';
import { RollButton } from '../../components/roll-button';
import { ConfirmButton } from '../../components/confirm';
import { Disclosure } from '../../components/disclosure';
import { FormActions } from '../../components/form-actions';
import { handler } from '../../components/events';
import { Empty, ErrorMessage, Loading, Notice, Time } from '../../components/feedback';
import { describeScopes, ScopesPicker, scopesOf, type ScopeLevels } from '../../components/scopes-picker';
import { ShownOnce } from '../../components/shown-once';
import { useResource } from '../../components/use-resource';
import { ReadOnlyNote } from '../read-only';
import { useCanChange } from '../session';
import type { ApiKey, CreatedKey, RolledKey } from '../types';

/** A key just created or rolled: its secret, this once. */
type IssuedKey = CreatedKey | RolledKey;

/** How long a rolled key keeps working beside its successor: the choices offered (the API takes 0 to 168 hours). */
const OVERLAPS = [
  { value: 0, label: 'Stops now' },
  { value: 1, label: '1 hour' },
  { value: 24, label: '24 hours' },
  { value: 168, label: '7 days' },
] as const;

/** The clinic's API keys: every one with its scopes and last use; developers create, roll and revoke them. */
export function ApiKeysPage() {
  const canChange = useCanChange();
  const keys = useResource('portal api-keys', () => api('GET', '/api/portal/keys'));
  const [issued, setIssued] = useState<IssuedKey | null>(null);
  const revoke = useAction();
  const roll = useAction();

  const revokeKey = (key: ApiKey) =>
    revoke.run(async () => {
      const updated = await api('POST', '/api/portal/keys/{apiKeyId}/revoke', { path: { apiKeyId: key.api_key_id } });
      const list = keys.data?.api_keys ?? [];
      keys.setData({ api_keys: list.map((k) => (k.api_key_id === updated.api_key_id ? updated : k)) });
    });

  const rollKey = (key: ApiKey, hours: number) =>
    roll.run(async () => {
      setIssued(
        await api('POST', '/api/portal/keys/{apiKeyId}/roll', {
          path: { apiKeyId: key.api_key_id },
          body: { expires_in_hours: hours },
        }),
      );
      keys.reload();
    });

  return (
    <>
      <h1>API keys</h1>
      <ReadOnlyNote />
      {canChange && (
        <Disclosure label="New API key">
          {(close) => (
            <NewKeyForm
              onCancel={close}
              onIssued={(key) => {
                setIssued(key);
                keys.reload();
                close();
              }}
            />
          )}
        </Disclosure>
      )}
      {issued && <IssuedSecret issued={issued} onDone={() => setIssued(null)} />}
      <ErrorMessage error={keys.error} />
      <ErrorMessage error={revoke.error} />
      <ErrorMessage error={roll.error} />
      {keys.loading && !keys.data && <Loading what="API keys" />}
      {keys.data?.api_keys.length === 0 && <Empty>No API keys yet.</Empty>}
      {keys.data && keys.data.api_keys.length > 0 && (
        <div class="table-wrap">
          <table>
            <caption class="visually-hidden">API keys</caption>
            <thead>
              <tr>
                <th scope="col">Key</th>
                <th scope="col">Environment</th>
                <th scope="col">Scopes</th>
                <th scope="col">Created</th>
                <th scope="col">Last used</th>
                <th scope="col">Expires</th>
                <th scope="col">Status</th>
                {canChange && (
                  <th scope="col">
                    <span class="visually-hidden">Actions</span>
                  </th>
                )}
              </tr>
            </thead>
            <tbody>
              {keys.data.api_keys.map((key) => (
                <tr key={key.api_key_id}>
                  <ApiKeyCells apiKey={key} />
                  <td>{key.expires_at ? <Time iso={key.expires_at} /> : <span class="muted">Never</span>}</td>
                  <td>
                    {key.revoked_at ? (
                      <>
                        Revoked <Time iso={key.revoked_at} />
                      </>
                    ) : expired(key) ? (
                      'Expired'
                    ) : (
                      'Active'
                    )}
                  </td>
                  {canChange && (
                    <td>
                      {!key.revoked_at && !expired(key) && (
                        <div class="actions">
                          <RollButton
                            name={shownKey(key)}
                            overlaps={OVERLAPS}
                            initial={24}
                            busy={roll.busy}
                            onRoll={(hours) => rollKey(key, hours)}
                          />
                          <ConfirmButton
                            label="Revoke"
                            question={`Revoke ${shownKey(key)}? Requests made with it will be refused.`}
                            confirm="Yes, revoke"
                            busy={revoke.busy}
                            onConfirm={() => revokeKey(key)}
                          />
                        </div>
                      )}
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}

/** Scopes (none: full access) and an expiry (optional). */
function NewKeyForm({ onCancel, onIssued }: { onCancel: () => void; onIssued: (key: IssuedKey) => void }) {
  const [levels, setLevels] = useState<ScopeLevels>({});
  const [expiresAt, setExpiresAt] = useState('');
  const action = useAction();

  const submit = async (event: Event) => {
    event.preventDefault();
    await action.run(async () => {
      const scopes = scopesOf(levels);
      const body = {
        ...(scopes ? { scopes } : {}),
        ...(expiresAt ? { expires_at: new Date(expiresAt).toISOString() } : {}),
      };
      onIssued(await api('POST', '/api/portal/keys', { body }));
    });
  };

  return (
    <form onSubmit={handler(submit)} aria-label="New API key">
      <div class="inline-fields">
        <label>
          Expires (optional)
          <input type="datetime-local" value={expiresAt} onInput={(event) => setExpiresAt(event.currentTarget.value)} />
        </label>
      </div>
      <ScopesPicker levels={levels} onChange={setLevels} />
      <FormActions action={action} submit="Create API key" onCancel={onCancel} />
    </form>
  );
}

/** The secret of a key just created or rolled, this once. */
function IssuedSecret({ issued, onDone }: { issued: IssuedKey; onDone: () => void }) {
  return (
    <div class="secret issued-key">
      <h2>New API key {issued.api_key.key_prefix}…</h2>
      <p>
        <strong>Copy this key now: it is shown only once.</strong> The pharmacy keeps only its prefix.
      </p>
      <p>Scopes: {describeScopes(issued.api_key.scopes)}.</p>
      {'previous_key' in issued && (
        <Notice>
          The rolled key keeps working until <Time iso={issued.previous_key.expires_at} />, then it is refused.
        </Notice>
      )}
      <ShownOnce label="API key" noun="key" value={issued.secret} onDone={onDone} />
    </div>
  );
}
