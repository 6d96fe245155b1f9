import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../context.js';
import { publicBaseUrl } from '../http/request-host.js';
import { SMART_CONFIGURATION_PATHS, SmartConfiguration, smartConfiguration } from './smart-configuration.js';

/** A client reads the document once per connection setup at most; an hour lets a configuration change reach it soon. */
const CACHE_SECONDS = 3600;

/** GET /.well-known/smart-configuration (and below the FHIR base): SMART discovery, public, no credential. */
export function smartConfigurationRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.addSchema(SmartConfiguration);
    SMART_CONFIGURATION_PATHS.forEach((url, index) => {
      app.get(
        url,
        {
          schema: {
            tags: ['OAuth'],
            operationId: index === 0 ? 'getSmartConfiguration' : 'getFhirSmartConfiguration',
            summary: 'SMART on FHIR discovery (backend services)',
            description: [
              'SMART App Launch 2\u2019s configuration for backend services: the token endpoint, how a client',
              'authenticates there (private_key_jwt with RS384 or ES384 among others, or a client secret) and the',
              '`system/<type>.rs` scopes it may ask for (docs/oauth.md). No credential; served at the root and below',
              'the FHIR base `/fhir/R4`.',
            ].join(' '),
            response: { 200: Type.Ref('SmartConfiguration', { description: 'The discovery document.' }) },
          },
        },
        async (request, reply) =>
          reply
            .header('Cache-Control', `public, max-age=${CACHE_SECONDS}`)
            .send(smartConfiguration(publicBaseUrl(request, ctx.config))),
      );
    });
  };
}
