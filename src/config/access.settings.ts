import { setting, text, trueOrFalse, wholeNumber } from './setting.js';

/** Who may call and sign in, and the keys the data is kept under: the operator token, data keys, OAuth, the console. */

export const ACCESS_SETTINGS = {
  ADMIN_TOKEN: setting({
    schema: text(),
    defaultText: 'generated in development',
    accepts: 'at least 16 characters; in production 32, with 16 distinct',
    untrimmed: true,
    doc:
      "The operator's bearer token for `/api/admin/*` and `/metrics` (`Authorization: Bearer <token>`). " +
      '**Required in production**, where it must also not be whitespace (`openssl rand -base64 32` gives 44 ' +
      'characters); anything else stops the start with a problem naming `ADMIN_TOKEN` (the token itself is ' +
      'never printed). Failed operator authentications are limited per client address: see ' +
      '[docs/operators.md](operators.md#operator-api). In development, when unset, a random token is generated ' +
      'at the first start, kept in `./data/admin-token` (mode 0600, beside `./data/encryption.key`; delete the ' +
      'file for a new one) and printed in the start banner at every start; with `DATABASE_URL=sqlite::memory:` ' +
      'it is generated for the run only and nothing is written.',
  }),
  DATA_ENCRYPTION_KEY: setting({
    schema: text(),
    defaultText: 'generated in development',
    accepts: '32 random bytes in base64 (`openssl rand -base64 32`)',
    doc:
      'The key webhook signing secrets are encrypted under in the database (AES-256-GCM); anything that does ' +
      'not decode to exactly 32 bytes is refused. **Required in production**; the server, the worker and ' +
      '`npm run admin` need the same one. Back it up apart from the database: without it the stored secrets ' +
      'are lost. In development, when unset, a key is generated once into `./data/encryption.key` (mode 0600) ' +
      'and reused (with `sqlite::memory:`, a key for the run only). See ' +
      '[docs/webhooks.md](webhooks.md#how-the-secret-is-protected).',
  }),
  DATA_ENCRYPTION_KEY_PREVIOUS: setting({
    schema: text(),
    defaultText: 'none',
    accepts: 'keys as `DATA_ENCRYPTION_KEY` takes them, comma-separated',
    doc:
      'Older keys still accepted to **decrypt** (never to encrypt) during a key rotation; dropped once ' +
      '`npm run admin -- rotate-encryption-key` has re-encrypted everything under `DATA_ENCRYPTION_KEY`. See ' +
      '[rotating the key](webhooks.md#rotating-the-data-encryption-key).',
  }),
  OAUTH_ISSUER: setting({
    schema: text(),
    default: { development: 'urn:partner-fulfillment-api:development', production: 'urn:partner-fulfillment-api:production' },
    defaultText: '`urn:partner-fulfillment-api:<FULFILLMENT_ENV>`',
    accepts: 'an `https://` address (`http://` in development) or a `urn:`, at most 200 characters, without query or fragment',
    doc:
      "Who issues this deployment's OAuth access tokens: their `iss` and `aud`, and the `aud` a " +
      'private_key_jwt client assertion must name (this, or this followed by `/oauth/token`). Your public base ' +
      'address (`https://api.example.com`) or a `urn:` (a trailing `/` is dropped). Give every instance the ' +
      'same one; changing it refuses the tokens already issued (they live 15 minutes). There is **no ' +
      'signing-key variable**: tokens are signed with a key derived from `DATA_ENCRYPTION_KEY`, which every ' +
      'instance already shares. See [docs/oauth.md](oauth.md#how-tokens-are-signed).',
  }),
  CONSOLE_IDLE_TIMEOUT_MINUTES: setting({
    schema: wholeNumber(1, 720),
    default: 15,
    doc:
      'A console session ends after this many minutes without a request (and 12 hours after sign-in in any ' +
      'case). See [docs/console.md](console.md#sessions).',
  }),
  REQUIRE_ADMIN_TOTP: setting({
    schema: trueOrFalse(),
    default: false,
    doc:
      '`true`: a console admin must turn on two-step sign-in (TOTP) before anything else; until then every ' +
      "operator route but the session and the account's own TOTP routes answers 403. The operator token is " +
      'not held back. See [docs/portal.md](portal.md#two-step-sign-in-totp).',
  }),
};
