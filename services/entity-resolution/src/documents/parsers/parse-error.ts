/** A file that cannot be read, with a machine-readable code for the document's status. */
export type ParseErrorCode = 'encrypted' | 'corrupt' | 'unsupported_type' | 'empty' | 'too_large';

export class ParseError extends Error {
  constructor(
    readonly code: ParseErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'ParseError';
  }
}
