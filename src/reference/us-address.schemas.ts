/** Schema pieces of US postal addresses and phone numbers, shared by every body that carries them. */
import { Type } from '@sinclair/typebox';
import { TEXT_RULES_DOC } from '../shared/text.js';
import { US_PHONE_MESSAGE, US_PHONE_PATTERN } from './us-phone.js';
import { STATE_CODE_PATTERN, ZIP_CODE_PATTERN } from './us-states.js';

export const StateCode = (description: string) =>
  Type.String({
    pattern: STATE_CODE_PATTERN,
    description: `${description}: a two-letter US state code in any letter case, stored upper case. The 50 states, DC, the territories (AS, GU, MP, PR, VI) and the armed forces codes (AA, AE, AP).`,
    'x-message': 'must be a two-letter US state code, such as CA, DC or PR',
    examples: ['TX'],
  });

export const ZipCode = (description: string) =>
  Type.String({
    pattern: ZIP_CODE_PATTERN,
    description: `${description}: 5 digits, or ZIP+4 written 12345-6789.`,
    'x-message': 'must be a ZIP code of 5 digits or ZIP+4 (12345 or 12345-6789)',
    examples: ['78701'],
  });

export const UsPhone = (description: string) =>
  Type.String({
    pattern: US_PHONE_PATTERN,
    description: `${description}: a US phone number, e.g. 555-555-0100, (555) 555-0100, 555.555.0100, 5555550100 or +1 555 555 0100; stored as 555-555-0100.`,
    'x-message': US_PHONE_MESSAGE,
  });

/** An optional second address line: an empty string means none. */
export const AddressLine2 = (description: string) =>
  Type.String({
    maxLength: 200,
    description: `${description} (optional; an empty string means none). ${TEXT_RULES_DOC.address}`,
    'x-text': 'address',
  });
