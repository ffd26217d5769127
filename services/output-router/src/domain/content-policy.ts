/**
 * What a document may hold: a known content type and at most the configured
 * size. Text types must be valid UTF-8 (they are read back as text by actions).
 */
export const ALLOWED_CONTENT_TYPES = [
  'text/markdown',
  'text/plain',
  'text/csv',
  'application/json',
  'application/pdf',
  'image/png',
  'image/jpeg',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
] as const;

export const isTextType = (contentType: string): boolean =>
  contentType.startsWith('text/') || contentType === 'application/json';

/** Why `content` of `contentType` cannot be stored, or undefined. */
export function contentProblem(
  contentType: string,
  content: Uint8Array,
  maxBytes: number,
): { field: string; reason: string } | undefined {
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  if (!(ALLOWED_CONTENT_TYPES as readonly string[]).includes(type)) {
    return {
      field: 'content_type',
      reason: `${JSON.stringify(contentType)} is not accepted (accepted: ${ALLOWED_CONTENT_TYPES.join(', ')})`,
    };
  }
  if (content.byteLength > maxBytes)
    return { field: 'content', reason: `is ${content.byteLength} bytes; the limit is ${maxBytes}` };
  if (isTextType(type)) {
    try {
      new TextDecoder('utf-8', { fatal: true }).decode(content);
    } catch {
      return { field: 'content', reason: `is not valid UTF-8 text (content type ${type})` };
    }
  }
  return undefined;
}

/** The content type without parameters, lower-cased. */
export const normalContentType = (contentType: string): string =>
  contentType.split(';')[0]!.trim().toLowerCase();
