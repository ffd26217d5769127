import { FileProblem } from './file-parser-format.js';
import { xmlEndpointSchema, type XmlEndpoint } from './file-parser-schema.js';
import { TypeMisses } from './file-parser-values.js';
import { compileXPath, declaresDoctype, extractXmlRecords, parseXml } from './file-parser-xml.js';

const endpoint = (e: Record<string, unknown>): XmlEndpoint =>
  xmlEndpointSchema.parse({ parser: 'xml', ...e });

const FILING = `<?xml version="1.0" encoding="utf-8"?>
<Return xmlns="http://www.irs.gov/efile" returnVersion="2022v5.0">
  <ReturnHeader><Filer><EIN>931234567</EIN></Filer><TaxYr>2022</TaxYr></ReturnHeader>
  <ReturnData>
    <IRS990>
      <GrossReceiptsAmt> 18734562 </GrossReceiptsAmt>
      <Form990PartVIISectionAGrp><PersonNm>ANN</PersonNm><ReportableCompFromOrgAmt>100</ReportableCompFromOrgAmt></Form990PartVIISectionAGrp>
      <Form990PartVIISectionAGrp><PersonNm>BOB</PersonNm><ReportableCompFromOrgAmt>n/a</ReportableCompFromOrgAmt></Form990PartVIISectionAGrp>
      <Form990PartVIISectionAGrp><PersonNm>CY</PersonNm><ReportableCompFromOrgAmt>300</ReportableCompFromOrgAmt></Form990PartVIISectionAGrp>
    </IRS990>
  </ReturnData>
</Return>`;

function problem(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    if (err instanceof FileProblem) return err.message;
    throw err;
  }
  throw new Error('expected a FileProblem');
}

describe('extractXmlRecords', () => {
  it('matches unprefixed XPaths against elements in the default namespace', () => {
    const misses = new TypeMisses();
    const out = extractXmlRecords(
      parseXml(FILING),
      endpoint({
        root_element: 'Return/ReturnData/IRS990',
        fields: [
          { xpath: '//EIN', field: 'ein' },
          { xpath: 'GrossReceiptsAmt', field: 'gross', type: 'number' },
          { xpath: '//TaxYr', field: 'year', type: 'integer' },
          { xpath: '/Return/@returnVersion', field: 'version' },
          { xpath: 'count(Form990PartVIISectionAGrp)', field: 'people', type: 'integer' },
          { xpath: 'NoSuchElement', field: 'missing', type: 'number' },
        ],
      }),
      100,
      misses,
    );
    expect(out).toEqual({
      records: [
        { ein: '931234567', gross: 18734562, year: 2022, version: '2022v5.0', people: 3, missing: null },
      ],
      truncated: false,
      warnings: [],
    });
    expect(misses.warnings()).toEqual([]);
  });

  it('makes one record per list_element with fields relative to it, typing each value', () => {
    const misses = new TypeMisses();
    const out = extractXmlRecords(
      parseXml(FILING),
      endpoint({
        root_element: 'Return/ReturnData/IRS990',
        list_element: 'Form990PartVIISectionAGrp',
        fields: [
          { xpath: 'PersonNm', field: 'name' },
          { xpath: 'ReportableCompFromOrgAmt', field: 'pay', type: 'number' },
        ],
      }),
      2,
      misses,
    );
    expect(out.records).toEqual([
      { name: 'ANN', pay: 100 },
      { name: 'BOB', pay: null },
    ]);
    expect(out.truncated).toBe(true);
    expect(misses.warnings()).toEqual([
      'field "pay": 1 value is not a number (first: "n/a" in record 2); returned as null',
    ]);
  });

  it('gives no records and a warning when root_element or list_element is absent', () => {
    const fields = [{ xpath: 'PersonNm', field: 'name' }];
    expect(
      extractXmlRecords(
        parseXml(FILING),
        endpoint({ root_element: 'Return/ReturnData/IRS990ScheduleI', fields }),
        10,
        new TypeMisses(),
      ),
    ).toEqual({
      records: [],
      truncated: false,
      warnings: ['root_element "Return/ReturnData/IRS990ScheduleI" is not in the document; no records'],
    });
    expect(
      extractXmlRecords(
        parseXml(FILING),
        endpoint({ list_element: '//RecipientTable', fields }),
        10,
        new TypeMisses(),
      ).warnings,
    ).toEqual(['list_element "//RecipientTable" matched nothing; no records']);
  });

  it('needs declared prefixes for elements that carry a namespace prefix in the document', () => {
    const doc = parseXml('<e:Return xmlns:e="urn:efile"><e:EIN>123</e:EIN><Plain>p</Plain></e:Return>');
    const plain = extractXmlRecords(
      doc,
      endpoint({
        fields: [
          { xpath: '//EIN', field: 'ein' },
          { xpath: '//Plain', field: 'plain' },
        ],
      }),
      10,
      new TypeMisses(),
    );
    expect(plain.records).toEqual([{ ein: null, plain: 'p' }]);
    const prefixed = extractXmlRecords(
      doc,
      endpoint({ namespaces: { x: 'urn:efile' }, fields: [{ xpath: '//x:EIN', field: 'ein' }] }),
      10,
      new TypeMisses(),
    );
    expect(prefixed.records).toEqual([{ ein: '123' }]);
  });
});

describe('parseXml', () => {
  it.each([
    [
      'internal entity expansion ("billion laughs")',
      '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;">]><lolz>&lol2;</lolz>',
    ],
    [
      'an external entity',
      '<?xml version="1.0"?><!DOCTYPE r [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><r>&xxe;</r>',
    ],
    ['a DOCTYPE after a comment', '<!-- c --><!doctype r SYSTEM "http://example.com/r.dtd"><r/>'],
  ])('refuses %s', (_label, xml) => {
    expect(problem(() => parseXml(xml))).toBe(
      'declares a DOCTYPE; DTDs and entities are not allowed in XML files',
    );
  });

  it('allows the word DOCTYPE in content', () => {
    expect(() => parseXml('<r><![CDATA[<!DOCTYPE html>]]></r>')).not.toThrow();
    expect(declaresDoctype('<?xml version="1.0"?>\n<r>&lt;!DOCTYPE</r>')).toBe(false);
  });

  it('reports malformed XML with the line and column', () => {
    expect(problem(() => parseXml('<r>\n<a></r>'))).toBe(
      'is not well-formed XML: Opening and ending tag mismatch: "a" != "r" (line 2, column 1)',
    );
    expect(problem(() => parseXml('<r>&undefined;</r>'))).toMatch(
      /^is not well-formed XML: .*entity not found:&undefined;/,
    );
  });
});

describe('compileXPath', () => {
  it('accepts paths and expressions', () => {
    expect(compileXPath('//BusinessName/BusinessNameLine1Txt', undefined)).toMatchObject({
      expression: '//BusinessName/BusinessNameLine1Txt',
    });
    expect(compileXPath('sum(//CashGrantAmt)', undefined)).toHaveProperty('compiled');
    expect(compileXPath('//x:EIN', { x: 'urn:x' }, true)).toHaveProperty('compiled');
  });

  it.each([
    ['//[', undefined, false, 'is not a valid XPath expression'],
    [
      '//irs:EIN',
      undefined,
      false,
      'uses a namespace prefix not declared in namespaces (Cannot resolve QName irs)',
    ],
    ['frobnicate(1)', undefined, false, 'cannot be evaluated: Unknown function frobnicate'],
    ['count(//a)', undefined, true, 'must select elements (a path), not compute a value'],
  ])('refuses %s', (expression, ns, nodes, reason) => {
    expect(compileXPath(expression, ns, nodes)).toEqual({ problem: reason });
  });
});
