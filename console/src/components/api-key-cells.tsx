import type { OperatorData, PortalData } from '../api-types';
import { Time } from './feedback';
import { describeScopes } from './scopes-picker';

/** An API key as the operator API and the portal API both list it, in what these pieces read. */
type ApiKeyLike = Pick<
  OperatorData<'listOperatorClinicApiKeys'>['api_keys'][number] | PortalData<'portalListApiKeys'>['api_keys'][number],
  'key_prefix' | 'key_last4' | 'environment' | 'scopes' | 'created_at' | 'last_used_at' | 'expires_at'
>;

/** Whether a key is past its expiry (it is then refused, revoked or not). */
export const expired = (key: ApiKeyLike) => key.expires_at !== null && Date.parse(key.expires_at) <= Date.now();

/** `dev_AbC123…wXyZ`: the prefix and, when kept, the last four characters. */
export const shownKey = (key: ApiKeyLike) => `${key.key_prefix}…${key.key_last4 ?? ''}`;

/** The cells both API key tables open with: Key, Environment, Scopes, Created and Last used. */
export function ApiKeyCells({ apiKey }: { apiKey: ApiKeyLike }) {
  return (
    <>
      <td class="api-key">
        <code>{shownKey(apiKey)}</code>
      </td>
      <td>{apiKey.environment}</td>
      <td>{apiKey.scopes === null ? <span class="muted">Full access</span> : describeScopes(apiKey.scopes)}</td>
      <td>
        <Time iso={apiKey.created_at} />
      </td>
      <td>{apiKey.last_used_at ? <Time iso={apiKey.last_used_at} /> : <span class="muted">Never</span>}</td>
    </>
  );
}
