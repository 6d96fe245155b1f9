import { Readable } from 'node:stream';
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../context.js';
import { operatorAudit } from '../http/audit-context.js';
import { preferredType } from '../http/content-negotiation.js';
import { Envelope, operatorErrors, operatorSecurity, Page } from '../contracts/schemas.js';
import { decodeCursor } from '../db/keyset-page.js';
import { LotParams, RecallItem, RecallQuery } from './recall.schemas.js';
import { CSV_PAGE_ROWS, listLotOrders, RECALL_CSV_COLUMNS, recallCsv } from './recall.service.js';

const CSV = 'text/csv';
const JSON_TYPE = 'application/json';

/** The recall (docs/compounding.md#recall): every order that received a lot, across clinics. */
export function recallOperatorRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/api/admin/lots/:lot_number/orders',
      {
        config: { alsoProduces: [CSV] },
        schema: {
          tags: ['Operator'],
          security: operatorSecurity,
          operationId: 'listOperatorLotOrders',
          summary: 'Recall a lot: the orders that received it',
          description: [
            'Every item of every order, in every clinic, that received the lot (compared whatever its case: `lot-a` finds',
            '`LOT-A`): as the preparation\u2019s own lot (`match:',
            'preparation`) or as an ingredient lot its fill names (`match: ingredient`), newest order first; pass',
            '`next_cursor` back as `cursor` for the next page. Each item names its order, clinic, patient, status and',
            `shipping date. With \`Accept: text/csv\` the answer is the whole list from \`cursor\` (or the start) as CSV`,
            `(RFC 4180, a header line of ${RECALL_CSV_COLUMNS.length} columns, the JSON item\u2019s then the patient\u2019s phone and the`,
            'address the order shipped to (`patient_phone`, `address_line_1`, `address_line_2`, `city`, `state`, `postal_code`),',
            `cells starting with = + - @ prefixed with`,
            `\`'\`), streamed ${CSV_PAGE_ROWS} rows at a time; \`limit\` is the JSON page's only. Every order and patient`,
            'listed is recorded as read in the audit trail.',
          ].join(' '),
          params: LotParams,
          querystring: RecallQuery,
          response: {
            200: {
              description: 'The orders that received the lot.',
              content: {
                [JSON_TYPE]: { schema: Envelope(Page(RecallItem)) },
                [CSV]: { schema: Type.String({ description: 'The whole list as CSV, a header line first.' }) },
              },
            },
            ...operatorErrors,
          },
        },
      },
      async (request, reply) => {
        const lot = request.params.lot_number;
        const audit = operatorAudit(request);
        if (preferredType(request.headers.accept, [JSON_TYPE, CSV]) === CSV) {
          // The cursor is checked before the first line: a bad one is a 400, not a cut stream.
          const from = request.query.cursor === undefined ? undefined : decodeCursor(request.query.cursor);
          return reply
            .type('text/csv; charset=utf-8; header=present')
            .header('Content-Disposition', `attachment; filename="recall-${fileSafe(lot)}.csv"`)
            .send(Readable.from(recallCsv(ctx, lot, from, audit)));
        }
        return {
          success: true as const,
          data: await listLotOrders(ctx, lot, request.query, audit),
          message: 'Orders that received the lot',
        };
      },
    );
  };
}

/** The lot as a file name: letters, digits, `.`, `_` and `-` kept, anything else `_`. */
const fileSafe = (lot: string): string => lot.replace(/[^A-Za-z0-9._-]/g, '_');
