import {
  checkFormat,
  decodeText,
  extensionOf,
  FileProblem,
  sizeProblem,
  sniffContent,
} from './file-parser-format.js';

const b = (text: string) => Buffer.from(text, 'utf8');
const PDF = Buffer.from('%PDF-1.7\n%âãÏÓ\n1 0 obj', 'latin1');

function problem(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    if (err instanceof FileProblem) return err.message;
    throw err;
  }
  throw new Error('expected a FileProblem');
}

describe('sniffContent', () => {
  it('recognises XML, JSON, other text and binary files', () => {
    expect(sniffContent(b('\uFEFF  <?xml version="1.0"?><a/>'))).toBe('xml');
    expect(sniffContent(b('\n [1, 2]'))).toBe('json');
    expect(sniffContent(b('{"a": 1}'))).toBe('json');
    expect(sniffContent(b('name,amount\nann,1\n'))).toBe('csv');
    expect(sniffContent(PDF)).toEqual({ binary: 'a PDF' });
    expect(sniffContent(Buffer.from([0x50, 0x4b, 0x03, 0x04, 1, 2]))).toEqual({
      binary: 'a ZIP archive (or an Office document)',
    });
    expect(sniffContent(Buffer.from([0x41, 0x00, 0x42]))).toEqual({ binary: 'a binary file' });
    // UTF-16 without a BOM is full of NUL bytes: not taken for text.
    expect(sniffContent(Buffer.from('<a/>', 'utf16le'))).toEqual({ binary: 'a binary file' });
  });

  it('reads UTF-16 with a BOM as text', () => {
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('<a/>', 'utf16le')]);
    expect(sniffContent(utf16)).toBe('xml');
  });
});

describe('extensionOf', () => {
  it('takes the last extension of the base name, lower-cased', () => {
    expect(extensionOf('dir.v2/990.XML')).toBe('.xml');
    expect(extensionOf('archive.tar.gz')).toBe('.gz');
    expect(extensionOf('.hidden')).toBe('');
    expect(extensionOf('README')).toBe('');
  });
});

describe('checkFormat', () => {
  it('accepts a file whose name and content agree with the parser and accepted formats', () => {
    expect(checkFormat('990.xml', b('<Return/>'), 'xml', ['xml'])).toBe('xml');
    expect(checkFormat('', b('<Return/>'), 'xml', undefined)).toBe('xml');
    expect(checkFormat('data.tsv', b('a\tb'), 'csv', ['csv', 'json'])).toBe('csv');
  });

  it.each([
    ['990.pdf', PDF, 'is a .pdf file; accepted formats are xml'],
    ['990.xml', PDF, 'is a PDF, not xml'],
    ['', PDF, 'is a PDF, not xml'],
    ['990.xml', b('{"a":1}'), 'is named .xml but its content looks like JSON'],
    ['data.csv', b('<a/>'), 'is a .csv file; accepted formats are xml'],
    ['', b('a,b\n1,2'), 'looks like CSV (delimited text); accepted formats are xml'],
    ['990.xml', b(''), 'is empty'],
  ])('refuses %j (%s)', (name, bytes, message) => {
    expect(problem(() => checkFormat(name, bytes, 'xml', ['xml']))).toBe(message);
  });

  it('refuses an accepted format that the endpoint does not parse', () => {
    expect(problem(() => checkFormat('a.json', b('[]'), 'xml', ['xml', 'json']))).toBe(
      'looks like JSON, but this endpoint parses XML',
    );
  });
});

describe('decodeText', () => {
  it('strips a UTF-8 BOM and decodes UTF-16 by its BOM', () => {
    expect(decodeText(b('\uFEFFname'), 'csv')).toBe('name');
    const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('<é/>', 'utf16le')]);
    expect(decodeText(le, 'xml')).toBe('<é/>');
  });

  it('honours an XML encoding declaration', () => {
    const latin1 = Buffer.from('<?xml version="1.0" encoding="ISO-8859-1"?><n>Müller</n>', 'latin1');
    expect(decodeText(latin1, 'xml')).toContain('<n>Müller</n>');
  });

  it('refuses invalid UTF-8 and unknown encodings instead of guessing', () => {
    expect(problem(() => decodeText(Buffer.from([0x61, 0xff, 0x62]), 'csv'))).toBe('is not valid UTF-8 text');
    expect(problem(() => decodeText(b('<?xml version="1.0" encoding="EBCDIC-XYZ"?><a/>'), 'xml'))).toBe(
      'declares the encoding "ebcdic-xyz", which is not supported',
    );
  });
});

describe('sizeProblem', () => {
  it('uses KB or MB, and bytes when both would print the same', () => {
    expect(sizeProblem(3 * 1024 * 1024, 1024 * 1024)).toBe(
      'is 3 MB; files may be at most 1 MB (max_file_size_mb)',
    );
    expect(sizeProblem(2048, 1024)).toBe('is 2 KB; files may be at most 1 KB (max_file_size_mb)');
    expect(sizeProblem(1024 * 1024 + 5, 1024 * 1024)).toBe(
      'is 1048581 bytes; files may be at most 1048576 bytes (max_file_size_mb)',
    );
    expect(sizeProblem(undefined, 50 * 1024 * 1024)).toBe(
      'is larger than that; files may be at most 50 MB (max_file_size_mb)',
    );
  });
});
