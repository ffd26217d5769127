import { extractCsvRecords } from './file-parser-csv.js';
import { FileProblem } from './file-parser-format.js';
import { csvEndpointSchema, type CsvEndpoint } from './file-parser-schema.js';
import { TypeMisses } from './file-parser-values.js';

const endpoint = (e: Record<string, unknown> = {}): CsvEndpoint =>
  csvEndpointSchema.parse({ parser: 'csv', ...e });

const GRANTS = `Recipient,EIN,Amount,Date,Renewal
"Eastside Food Bank, Inc.",930987654,"250,000",2022-03-01,yes
Free Clinic,931112223,185000.50,2022-06-15,no
Youth Alliance,930445566,lots,someday,maybe
`;

function problem(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    if (err instanceof FileProblem) return err.message;
    throw err;
  }
  throw new Error('expected a FileProblem');
}

describe('extractCsvRecords', () => {
  it('keys records by header without fields', () => {
    const out = extractCsvRecords(GRANTS, endpoint(), 100, new TypeMisses());
    expect(out.records[0]).toEqual({
      Recipient: 'Eastside Food Bank, Inc.',
      EIN: '930987654',
      Amount: '250,000',
      Date: '2022-03-01',
      Renewal: 'yes',
    });
    expect(out.records).toHaveLength(3);
    expect(out).toMatchObject({ truncated: false, warnings: [] });
  });

  it('maps columns by name (case-insensitively as a fallback) and number, and types them', () => {
    const misses = new TypeMisses();
    const out = extractCsvRecords(
      GRANTS,
      endpoint({
        fields: [
          { column: 'Recipient', field: 'name' },
          { column: 'ein', field: 'ein' },
          { column: 3, field: 'amount', type: 'number' },
          { column: 'Date', field: 'date', type: 'date' },
          { column: 'Renewal', field: 'renewal', type: 'boolean' },
        ],
      }),
      100,
      misses,
    );
    expect(out.records).toEqual([
      {
        name: 'Eastside Food Bank, Inc.',
        ein: '930987654',
        amount: 250000,
        date: '2022-03-01',
        renewal: true,
      },
      { name: 'Free Clinic', ein: '931112223', amount: 185000.5, date: '2022-06-15', renewal: false },
      { name: 'Youth Alliance', ein: '930445566', amount: null, date: null, renewal: null },
    ]);
    expect(misses.warnings()).toEqual([
      'field "amount": 1 value is not a number (first: "lots" in line 4); returned as null',
      'field "date": 1 value is not an ISO 8601 date (first: "someday" in line 4); returned as null',
      'field "renewal": 1 value is not a boolean (first: "maybe" in line 4); returned as null',
    ]);
  });

  it('honours delimiter, skip_rows and has_header: false', () => {
    const text = 'Grants report 2022\n\nann\t10\nbob\t20\n';
    const out = extractCsvRecords(
      text,
      endpoint({
        delimiter: '\t',
        skip_rows: 1,
        has_header: false,
        fields: [
          { column: 1, field: 'name' },
          { column: 2, field: 'n', type: 'integer' },
        ],
      }),
      100,
      new TypeMisses(),
    );
    expect(out.records).toEqual([
      { name: 'ann', n: 10 },
      { name: 'bob', n: 20 },
    ]);
    expect(
      extractCsvRecords('a;b\n1;2\n', endpoint({ delimiter: ';', has_header: false }), 10, new TypeMisses())
        .records,
    ).toEqual([
      { column_1: 'a', column_2: 'b' },
      { column_1: '1', column_2: '2' },
    ]);
  });

  it('stops at max records and says so', () => {
    const out = extractCsvRecords(GRANTS, endpoint(), 2, new TypeMisses());
    expect(out.records).toHaveLength(2);
    expect(out.truncated).toBe(true);
  });

  it('warns about ragged rows and renames blank or repeated headers', () => {
    const out = extractCsvRecords('a,a,\n1,2,3\n4\n5,6,7,8\n', endpoint(), 10, new TypeMisses());
    expect(out.records).toEqual([
      { a: '1', a_2: '2', column_3: '3' },
      { a: '4', a_2: null, column_3: null },
      { a: '5', a_2: '6', column_3: '7' },
    ]);
    expect(out.warnings).toEqual([
      'repeated header names were renamed: a → a_2',
      '2 rows have a different number of columns than the header (first at line 3); missing cells are null and extra cells are dropped',
    ]);
  });

  it('refuses unknown columns, listing the real ones', () => {
    expect(
      problem(() =>
        extractCsvRecords(
          GRANTS,
          endpoint({ fields: [{ column: 'Amt', field: 'x' }] }),
          10,
          new TypeMisses(),
        ),
      ),
    ).toBe('has no column "Amt" (columns: Recipient, EIN, Amount, Date, Renewal)');
    expect(
      problem(() =>
        extractCsvRecords(GRANTS, endpoint({ fields: [{ column: 9, field: 'x' }] }), 10, new TypeMisses()),
      ),
    ).toBe('has no column 9 (it has 5)');
  });

  it('refuses malformed CSV with the line', () => {
    expect(problem(() => extractCsvRecords('a,b\n"open,1\n', endpoint(), 10, new TypeMisses()))).toMatch(
      /^is not valid CSV: Quote Not Closed: the parsing is finished with an opening quote at line 2/,
    );
  });

  it('gives no records for an empty body', () => {
    expect(extractCsvRecords('\n\n', endpoint(), 10, new TypeMisses())).toEqual({
      records: [],
      truncated: false,
      warnings: ['the file has no rows'],
    });
  });
});
