import { createServer } from 'node:http';
import { createPartnerClient, verifyWebhook } from '@pharmacy/partner-fulfillment-client';

const client = createPartnerClient({ baseUrl: process.env.BASE ?? 'http://127.0.0.1:3000', apiKey: process.env.KEY ?? '' });
const { data, error } = await client.POST('/api/external/patient', {
  body: {
    first_name: 'Grace',
    last_name: 'Hopper',
    gender: 'female',
    dob: '1980-12-09',
    assigned_clinic: process.env.CLINIC ?? '',
    addresses: [{ addressLine1: '2 Elm St', city: 'Sacramento', state: 'CA', postalCode: '95814' }],
  },
});
if (error)
  console.error(error.error.code, error.error.details); // the typed error envelope
else console.log(data.data.patient_id);

// Your receiver: verify the raw body, exactly as received, with the endpoint's signing secret.
const secret = process.env.WEBHOOK_SECRET ?? '';
createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    try {
      const event = verifyWebhook(secret, Buffer.concat(chunks), request.headers); // throws if forged
      if (event.type === 'order.fulfilled') console.log(event.data.tracking_number);
      response.writeHead(204).end();
    } catch {
      response.writeHead(400).end();
    }
  });
}).listen(4000);
