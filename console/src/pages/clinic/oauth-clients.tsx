import { useState } from 'preact/hooks';
import { api } from '../../api';
import { useAction } from '../../components/action';
import { ConfirmButton } from '../../components/confirm';
import { handler } from '../../components/events';
import { Empty, ErrorMessage, Loading, Time } from '../../components/feedback';
import { useResource } from '../../components/use-resource';
import { ShownOnce } from '../../components/shown-once';
import { useSession } from '../../session';
import { describeScopes, ScopesPicker, scopesOf, type ScopeLevels } from '../../components/scopes-picker';
import type { Environment, IssuedOAuthClient, OAuthClient } from './types';

/**
 * A clinic's OAuth 2.0 clients (docs/oauth.md), beside its API keys: admins list, create and revoke
 * them; pharmacists are told they cannot. A client always names its scopes.
 */
export function OAuthClients({ clinicId }: { clinicId: string }) {
  const { role } = useSession();
  return (
    <section aria-labelledby="oauth-clients-heading">
      <h2 id="oauth-clients-heading">OAuth clients</h2>
      {role === 'admin' ? (
        <AdminOAuthClients clinicId={clinicId} />
      ) : (
        <p class="muted">Only admins see and create OAuth clients.</p>
      )}
    </section>
  );
}

function AdminOAuthClients({ clinicId }: { clinicId: string }) {
  const clients = useResource(`oauth-clients ${clinicId}`, () =>
    api('GET', '/api/admin/clinics/{clinicId}/oauth-clients', { path: { clinicId } }),
  );
  const [levels, setLevels] = useState<ScopeLevels>({});
  const [environment, setEnvironment] = useState<Environment | ''>('');
  const [created, setCreated] = useState<IssuedOAuthClient | null>(null);
  const create = useAction();
  const revoke = useAction();
  const scopes = scopesOf(levels);

  const submit = async (event: Event) => {
    event.preventDefault();
    await create.run(async () => {
      // The button is disabled until a scope is checked; were it sent without, the API would say why.
      const body = { scopes: scopes ?? [], ...(environment ? { environment } : {}) };
      setCreated(await api('POST', '/api/admin/clinics/{clinicId}/oauth-clients', { path: { clinicId }, body }));
      setLevels({});
      clients.reload();
    });
  };

  const revokeClient = (client: OAuthClient) =>
    revoke.run(async () => {
      const { revoked_at } = await api('DELETE', '/api/admin/oauth-clients/{clientId}', { path: { clientId: client.client_id } });
      const list = clients.data?.oauth_clients ?? [];
      clients.setData({ oauth_clients: list.map((c) => (c.client_id === client.client_id ? { ...c, revoked_at } : c)) });
    });

  return (
    <>
      <form onSubmit={handler(submit)} aria-label="Create an OAuth client">
        <ScopesPicker
          levels={levels}
          onChange={setLevels}
          noneHint="Check at least one: an OAuth client always names what it may do. Write includes read."
        />
        <div class="inline-fields">
          <label>
            Client environment
            <select value={environment} onChange={(event) => setEnvironment(event.currentTarget.value as Environment | '')}>
              <option value="">The server’s</option>
              <option value="development">Development (sandbox)</option>
              <option value="production">Production</option>
            </select>
          </label>
          <button type="submit" disabled={create.busy || scopes === undefined}>
            Create OAuth client
          </button>
        </div>
      </form>
      <ErrorMessage error={create.error} />
      {created && <CreatedClient created={created} onDone={() => setCreated(null)} />}
      <ErrorMessage error={clients.error} />
      <ErrorMessage error={revoke.error} />
      {clients.loading && !clients.data && <Loading what="OAuth clients" />}
      {clients.data?.oauth_clients.length === 0 && (
        <Empty>No OAuth clients: create one for a partner whose security team requires OAuth 2.0.</Empty>
      )}
      {clients.data && clients.data.oauth_clients.length > 0 && (
        <div class="table-wrap">
          <table>
            <caption class="visually-hidden">OAuth clients of the clinic</caption>
            <thead>
              <tr>
                <th scope="col">Client id</th>
                <th scope="col">Scopes</th>
                <th scope="col">Environment</th>
                <th scope="col">Authentication</th>
                <th scope="col">Created</th>
                <th scope="col">Revoked</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {clients.data.oauth_clients.map((client) => (
                <tr key={client.client_id}>
                  <td>
                    <code>{client.client_id}</code>
                  </td>
                  <td>{describeScopes(client.scopes)}</td>
                  <td>{client.environment}</td>
                  <td>{client.token_endpoint_auth_method === 'private_key_jwt' ? 'Signed JWT' : 'Secret'}</td>
                  <td>
                    <Time iso={client.created_at} />
                  </td>
                  <td>{client.revoked_at ? <Time iso={client.revoked_at} /> : <span class="muted">Active</span>}</td>
                  <td>
                    {!client.revoked_at && (
                      <ConfirmButton
                        label="Revoke"
                        question={`Revoke client ${client.client_id.slice(0, 8)}…? Its access tokens will be refused at once.`}
                        confirm="Yes, revoke"
                        busy={revoke.busy}
                        onConfirm={() => revokeClient(client)}
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

/** The client just created, its secret shown this once (selected for Ctrl+C where the clipboard is refused). */
function CreatedClient({ created, onDone }: { created: IssuedOAuthClient; onDone: () => void }) {
  const secret = created.client_secret;
  return (
    <div class="secret issued-key">
      <h3>New {created.environment} OAuth client</h3>
      <p>
        Client id <code>{created.client_id}</code>, scopes {describeScopes(created.scopes)}.
      </p>
      {secret === null ? (
        <p>It authenticates with a JWT signed by its registered keys: it has no secret.</p>
      ) : (
        <p>
          <strong>Copy the client secret now: it is shown only once.</strong> Only its hash is kept; give it to the clinic over a
          secure channel, with the client id.
        </p>
      )}
      <ShownOnce label="Client secret" noun="secret" value={secret} onDone={onDone} />
    </div>
  );
}
