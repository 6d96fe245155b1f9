import type { SwaggerOptions } from '@fastify/swagger';
import type { Config } from './config.js';

/** The OpenAPI 3.1 document, generated from the route schemas by @fastify/swagger. */
export function openApiDocument(config: Config): SwaggerOptions {
  return {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Partner Healthcare Fulfillment API',
        version: '1.0.0',
        description: [
          'Register practitioners and patients, order compounded medications, request refills, price shipping',
          'and receive webhooks as orders move.',
          '',
          `This server is the **${config.env}** environment: it accepts only \`${config.env === 'production' ? 'prod_' : 'dev_'}\` keys.`,
          '',
          'Every partner request carries `x-api-key`. Responses are `{success: true, data, message}`; errors are',
          '`{success: false, error: {message, code, details?, request_id}}`. Every response carries `X-Request-Id` and',
          'the `X-RateLimit-Limit`, `X-RateLimit-Remaining` and `X-RateLimit-Reset` headers.',
        ].join('\n'),
      },
      servers: [{ url: '/', description: config.env }],
      tags: [
        { name: 'Practitioners' },
        { name: 'Patients' },
        { name: 'Shipping' },
        { name: 'Orders' },
        { name: 'Refills' },
        { name: 'Webhooks' },
        { name: 'Sandbox', description: 'Development environment only.' },
        { name: 'Operator', description: 'The pharmacy\u2019s own API, behind the operator token.' },
        { name: 'Health' },
      ],
      components: {
        securitySchemes: {
          apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key', description: '`dev_…` or `prod_…` partner key.' },
          operatorToken: { type: 'http', scheme: 'bearer', description: 'The operator\u2019s ADMIN_TOKEN.' },
        },
      },
    },
    refResolver: {
      // Shared schemas keep their $id as their component name (ErrorEnvelope).
      buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`),
    },
  };
}
