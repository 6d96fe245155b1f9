import { useRef, useState } from 'preact/hooks';
import { api } from '../../api';
import { useAction } from '../../components/action';
import { ConfirmButton } from '../../components/confirm';
import { handler } from '../../components/events';
import { Empty, ErrorMessage, Loading, Notice, Time } from '../../components/feedback';
import { useResource } from '../../components/use-resource';
import { useSession } from '../../session';
import type { ApiKey, Environment, IssuedApiKey } from './types';

/** A clinic's API keys: admins list, issue and revoke them; pharmacists are told they cannot. */
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
    api<{ api_keys: ApiKey[] }>('GET', `/api/admin/clinics/${clinicId}/api-keys`),
  );
  const [environment, setEnvironment] = useState<Environment | ''>('');
  const [issued, setIssued] = useState<IssuedApiKey | null>(null);
  const issue = useAction();
  const revoke = useAction();

  const submit = async (event: Event) => {
    event.preventDefault();
    await issue.run(async () => {
      const body = environment ? { environment } : {};
      setIssued(await api<IssuedApiKey>('POST', `/api/admin/clinics/${clinicId}/api-keys`, body));
      keys.reload();
    });
  };

  const revokeKey = (key: ApiKey) =>
    revoke.run(async () => {
      const { revoked_at } = await api<{ revoked_at: string }>('DELETE', `/api/admin/api-keys/${key.api_key_id}`);
      const list = keys.data?.api_keys ?? [];
      keys.setData({ api_keys: list.map((k) => (k.api_key_id === key.api_key_id ? { ...k, revoked_at } : k)) });
    });

  return (
    <>
      <form class="inline" onSubmit={handler(submit)} aria-label="Issue an API key">
        <label>
          Environment
          <select value={environment} onChange={(event) => setEnvironment(event.currentTarget.value as Environment | '')}>
            <option value="">The server’s</option>
            <option value="development">Development (sandbox)</option>
            <option value="production">Production</option>
          </select>
        </label>
        <button type="submit" disabled={issue.busy}>
          Issue API key
        </button>
      </form>
      <ErrorMessage error={issue.error} />
      {issued && <IssuedKey issued={issued} onDone={() => setIssued(null)} />}
      <ErrorMessage error={keys.error} />
      <ErrorMessage error={revoke.error} />
      {keys.loading && !keys.data && <Loading what="API keys" />}
      {keys.data?.api_keys.length === 0 && <Empty>No API keys yet: issue one for the clinic’s integration.</Empty>}
      {keys.data && keys.data.api_keys.length > 0 && (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Prefix</th>
                <th scope="col">Environment</th>
                <th scope="col">Created</th>
                <th scope="col">Revoked</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {keys.data.api_keys.map((key) => (
                <tr key={key.api_key_id}>
                  <td>
                    <code>{key.key_prefix}…</code>
                  </td>
                  <td>{key.environment}</td>
                  <td>
                    <Time iso={key.created_at} />
                  </td>
                  <td>{key.revoked_at ? <Time iso={key.revoked_at} /> : <span class="muted">Active</span>}</td>
                  <td>
                    {!key.revoked_at && (
                      <ConfirmButton
                        label="Revoke"
                        question={`Revoke ${key.key_prefix}…? Requests made with it will be refused.`}
                        confirm="Yes, revoke"
                        busy={revoke.busy}
                        onConfirm={() => revokeKey(key)}
                      />
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
function IssuedKey({ issued, onDone }: { issued: IssuedApiKey; onDone: () => void }) {
  const field = useRef<HTMLInputElement>(null);
  const [copied, setCopied] = useState<'copied' | 'selected' | null>(null);

  const select = () => {
    field.current?.focus();
    field.current?.select();
  };
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(issued.api_key);
      setCopied('copied');
    } catch {
      select();
      setCopied('selected');
    }
  };

  return (
    <div class="secret issued-key">
      <h3>New {issued.environment} API key</h3>
      <p>
        <strong>Copy this key now: it is shown only once.</strong> Only its prefix <code>{issued.key_prefix}</code> is kept; give
        the key to the clinic over a secure channel.
      </p>
      <label>
        API key
        <input ref={field} class="key" readOnly value={issued.api_key} onFocus={select} spellcheck={false} />
      </label>
      <div class="actions">
        <button type="button" onClick={handler(copy)}>
          Copy key
        </button>
        <button type="button" class="secondary" onClick={onDone}>
          Done
        </button>
      </div>
      {copied === 'copied' && <Notice>The key is copied to the clipboard.</Notice>}
      {copied === 'selected' && (
        <p class="hint" role="status">
          The browser did not let the console copy: the key is selected, press Ctrl+C (⌘C on a Mac) to copy it.
        </p>
      )}
    </div>
  );
}
