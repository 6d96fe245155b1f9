import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../context.js';
import { emptyBodyWhenAbsent } from '../contracts/optional-body.js';
import { addressBucketOf, clientAddress } from '../http/client-address.js';
import { publicBaseUrl } from '../http/request-host.js';
import { OAuthErrorBody, TokenRequestBody, TokenResponse } from './oauth.schemas.js';
import { toOAuthError } from './oauth-errors.js';
import { tokenEndpointOf } from './smart-configuration.js';
import { parseForm } from './token-request.js';
import { issueToken } from './token.service.js';

/** A token request is a few short fields and at most one assertion: 16 KiB is plenty. */
export const TOKEN_BODY_LIMIT_BYTES = 16 * 1024;

const oauthError = (description: string) => Type.Ref('OAuthError', { description });

/**
 * POST /oauth/token (RFC 6749 §4.4), in a plugin context of its own: its body is form-encoded
 * (the only parser here; the rest of the API is JSON only), and every error, the shared hooks'
 * included, is answered as RFC 6749 §5.2's `{error, error_description}` rather than the envelope.
 *
 * @see docs/oauth.md
 */
export function oauthRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.addSchema(OAuthErrorBody);
    app.addSchema(TokenResponse);
    app.removeAllContentTypeParsers();
    app.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string', bodyLimit: TOKEN_BODY_LIMIT_BYTES },
      (_request, body, done) => {
        try {
          done(null, parseForm(typeof body === 'string' ? body : body.toString('utf8')));
        } catch (error) {
          done(error as Error, undefined);
        }
      },
    );
    app.setErrorHandler((error, request, reply) => {
      const refusal = toOAuthError(error, TOKEN_BODY_LIMIT_BYTES);
      if (refusal.statusCode >= 500) request.log.error({ err: error, reqId: request.id }, 'request failed');
      else request.log.info({ code: refusal.error, status: refusal.statusCode }, 'request refused');
      // RFC 6749 §5.2: a client that tried HTTP Basic is answered with the challenge of that scheme.
      if (refusal.statusCode === 401 && refusal.basic) reply.header('WWW-Authenticate', 'Basic realm="oauth", charset="UTF-8"');
      return reply
        .code(refusal.statusCode)
        .header('Pragma', 'no-cache')
        .type('application/json; charset=utf-8')
        .send({ error: refusal.error, error_description: refusal.message });
    });

    app.post(
      '/oauth/token',
      {
        schema: {
          tags: ['OAuth'],
          operationId: 'createOAuthToken',
          summary: 'Get an access token (OAuth 2.0 client credentials)',
          description: [
            'RFC 6749 §4.4: `grant_type=client_credentials`, form-encoded. The client authenticates with HTTP Basic',
            '(`client_id:client_secret`, each form-urlencoded), or `client_id` and `client_secret` in the body, or a',
            '`client_assertion` signed by one of its registered keys (private_key_jwt, RFC 7523). The access token',
            'lives 15 minutes; send it as `Authorization: Bearer <access_token>` on every partner route, where it has',
            'exactly the rights of an API key with the same scopes. Every answer carries `Cache-Control: no-store`; errors are',
            'RFC 6749 §5.2\u2019s `{error, error_description}`, not the envelope.',
          ].join(' '),
          consumes: ['application/x-www-form-urlencoded'],
          security: [{ oauthClientBasic: [] }, {}],
          body: TokenRequestBody,
          response: {
            200: Type.Ref('TokenResponse', { description: 'The access token (RFC 6749 §5.1).' }),
            400: oauthError(
              '`invalid_request` (a missing or repeated parameter, two authentication methods, a body that is not form-encoded), `unsupported_grant_type` or `invalid_scope`.',
            ),
            401: oauthError(
              '`invalid_client`: unknown, wrong, revoked or wrong-environment credentials (with `WWW-Authenticate: Basic` when HTTP Basic was used).',
            ),
            413: oauthError('`invalid_request`: the body is larger than 16 KiB.'),
            429: oauthError(
              'Too many failed token requests from this address or for this client (20 a minute): Retry-After says when to retry.',
            ),
            503: oauthError('`temporarily_unavailable`: the server is shutting down; send the request again.'),
          },
        },
        // A POST without a body is an empty form (then invalid_request: grant_type is required).
        preValidation: emptyBodyWhenAbsent,
      },
      async (request, reply) => {
        // The caller's address is the edge's to tell (behind a trusted proxy, X-Forwarded-For's).
        const answer = await issueToken(
          ctx,
          request,
          reply,
          request.body,
          addressBucketOf(clientAddress(request)),
          tokenEndpointOf(publicBaseUrl(request, ctx.config)),
        );
        return reply.header('Cache-Control', 'no-store').header('Pragma', 'no-cache').send(answer);
      },
    );
  };
}
