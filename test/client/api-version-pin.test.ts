import { describe, expect, it } from 'vitest';
import { createPartnerClient } from '../../clients/typescript/src/index.js';

describe('the typed client’s version pin', () => {
  /** A fetch that records the request it is given and answers an empty carrier list, by the version pinned or 1.5.0. */
  const recordingFetch = () => {
    const seen: Request[] = [];
    const fetch = async (request: Request): Promise<Response> => {
      seen.push(request);
      const pin = request.headers.get('Api-Version');
      const answering =
        pin === '1.0.0' || pin === '1.1.0' || pin === '1.2.0' || pin === '1.3.0' || pin === '1.4.0' ? pin : '1.5.0';
      return Response.json({ success: true, data: { carriers: [] } }, { headers: { 'Api-Version': answering } });
    };
    return { seen, fetch };
  };

  it('when the client is given apiVersion, then every request carries Api-Version with the key', async () => {
    const { seen, fetch } = recordingFetch();
    const client = createPartnerClient({ baseUrl: 'https://fulfillment.example.com', apiKey: 'dev_x', apiVersion: '1', fetch });
    const { response } = await client.GET('/api/external/carriers');
    expect(seen[0]?.headers.get('Api-Version')).toBe('1');
    expect(seen[0]?.headers.get('x-api-key')).toBe('dev_x');
    expect(response.headers.get('Api-Version')).toBe('1.5.0');
  });

  it.each(['1.0.0', '1.1.0', '1.2.0', '1.3.0', '1.4.0'])(
    'when the client pins %s (an older supported version), then it sends it and reads the version that answered',
    async (apiVersion) => {
      const { seen, fetch } = recordingFetch();
      const client = createPartnerClient({ baseUrl: 'https://fulfillment.example.com', apiKey: 'dev_x', apiVersion, fetch });
      const { response } = await client.GET('/api/external/carriers');
      expect(seen[0]?.headers.get('Api-Version')).toBe(apiVersion);
      expect(response.headers.get('Api-Version')).toBe(apiVersion);
    },
  );

  it('when it is not, then no Api-Version is sent (the server’s newest answers)', async () => {
    const { seen, fetch } = recordingFetch();
    const client = createPartnerClient({ baseUrl: 'https://fulfillment.example.com', apiKey: 'dev_x', fetch });
    await client.GET('/api/external/carriers');
    expect(seen[0]?.headers.has('Api-Version')).toBe(false);
  });
});
