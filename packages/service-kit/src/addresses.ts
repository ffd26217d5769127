/**
 * Internal addresses out of error text: transport errors of grpc-js read
 * `No connection established. Last error: connect ECONNREFUSED
 * 127.0.0.1:50051`, and nothing outside the system should learn where its
 * services listen.
 */

const ADDRESS_PATTERNS: readonly RegExp[] = [
  /\bunix:[^\s,;)'"]+/gi,
  /\[[0-9a-f:.]*:[0-9a-f:.]*\](?::\d{1,5})?/gi,
  /\b(?:\d{1,3}\.){3}\d{1,3}(?::\d{1,5})?\b/g,
  /\b(?:localhost|[a-z][a-z0-9-]*(?:\.[a-z0-9-]+)*):\d{2,5}\b/gi,
];

/** `text` with IP addresses, `host:port` pairs and `unix:` socket paths replaced by `[internal address]`. */
export function scrubAddresses(text: string): string {
  let out = text;
  for (const re of ADDRESS_PATTERNS) out = out.replace(re, '[internal address]');
  return out;
}
