/**
 * XML extraction for `parser: xml` endpoints with @xmldom/xmldom and xpath.
 *
 * XPath semantics:
 * - `root_element` is evaluated from the document; its first match is the
 *   context node (`Return/ReturnData/IRS990`). No match: no records, with a
 *   warning (a filing without Schedule I has no grants, which is not an error).
 * - `list_element` and field XPaths are evaluated with that context, so
 *   relative paths (`PersonNm`) read below it, while `//EIN` keeps its XPath
 *   meaning — anywhere in the document — which the seed relies on: the EIN and
 *   the organisation name sit in `ReturnHeader`, outside `IRS990`.
 * - A field takes the first node its XPath selects (text trimmed; attributes
 *   by value); expressions such as `count(...)` or `sum(...)` give their value.
 *
 * Namespaces: IRS e-file documents put every element in the default namespace
 * `http://www.irs.gov/efile`. In plain XPath 1.0 an unprefixed name only
 * matches elements in no namespace, so `//EIN` would find nothing. We evaluate
 * with xpath's `allowAnyNamespaceForNoPrefix`: an unprefixed name test matches
 * an element of that local name in any namespace as long as the element is
 * itself unprefixed in the document (i.e. it got its namespace from a default
 * `xmlns="…"`). This keeps the document intact (unlike stripping `xmlns`
 * text) and keeps prefixed elements distinct; XPaths that need a prefixed
 * namespace declare it under the endpoint's `namespaces`.
 *
 * Safety: documents with a DOCTYPE are refused before parsing, so no entity
 * (internal "billion laughs" or external file/URL) is ever declared; xmldom
 * also never fetches external resources or expands DTD entities.
 */
import { DOMParser, onErrorStopParsing } from '@xmldom/xmldom';
// The default import is module.exports: under native ESM a namespace import lacks the result
// classes (XNodeSet, …) that xpath attaches with Object.assign, which Node cannot detect statically.
import xpathModule from 'xpath';
import type { XmlEndpoint } from './file-parser-schema.js';
import { TypeMisses, type RawValue } from './file-parser-values.js';
import { FileProblem } from './file-parser-format.js';

interface XPathResult {
  stringValue(): string;
  numberValue(): number;
  booleanValue(): boolean;
}

interface XNodeSet extends XPathResult {
  toArray(): XmlNode[];
}

interface XPathExpression {
  evaluate(options: {
    node: XmlNode;
    namespaces?: Record<string, string>;
    allowAnyNamespaceForNoPrefix?: boolean;
  }): XPathResult;
}

/** The node shapes we read (xmldom's DOM, structurally). */
export interface XmlNode {
  nodeType: number;
  textContent: string | null;
  nodeValue: string | null;
}

type ResultClass = abstract new (...args: never[]) => XPathResult;
const xpath = xpathModule as unknown as {
  parse(expression: string): XPathExpression;
  XNodeSet: ResultClass;
  XNumber: ResultClass;
  XBoolean: ResultClass;
  XString: ResultClass;
};

const ATTRIBUTE_NODE = 2;

export interface CompiledXPath {
  expression: string;
  compiled: XPathExpression;
}

/**
 * Compiles `expression` and tries it on an empty document, which catches
 * syntax errors, unknown functions, undeclared variables and prefixes not
 * in `namespaces`. With `nodes`, the result must be a node-set.
 */
export function compileXPath(
  expression: string,
  namespaces: Record<string, string> | undefined,
  nodes = false,
): CompiledXPath | { problem: string } {
  let compiled: XPathExpression;
  try {
    compiled = xpath.parse(expression);
  } catch {
    return { problem: 'is not a valid XPath expression' };
  }
  try {
    const probe = compiled.evaluate({
      node: emptyDocument() as unknown as XmlNode,
      namespaces: namespaces ?? {},
      allowAnyNamespaceForNoPrefix: true,
    });
    if (nodes && !isA(probe, xpath.XNodeSet)) {
      return { problem: 'must select elements (a path), not compute a value' };
    }
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    if (/resolve QName/.test(reason)) {
      return { problem: `uses a namespace prefix not declared in namespaces (${reason})` };
    }
    return { problem: `cannot be evaluated: ${reason}` };
  }
  return { expression, compiled };
}

let empty: unknown;
function emptyDocument(): unknown {
  empty ??= new DOMParser().parseFromString('<empty/>', 'text/xml');
  return empty;
}

/** Parses XML text, refusing DTDs and anything not well-formed. */
export function parseXml(text: string): XmlNode {
  if (declaresDoctype(text)) {
    throw new FileProblem('declares a DOCTYPE; DTDs and entities are not allowed in XML files');
  }
  try {
    const doc = new DOMParser({ onError: onErrorStopParsing }).parseFromString(text, 'text/xml');
    if (!doc.documentElement) throw new FileProblem('is not XML: it has no root element');
    return doc as unknown as XmlNode;
  } catch (err) {
    if (err instanceof FileProblem) throw err;
    const e = err as { message?: string; locator?: { lineNumber?: number; columnNumber?: number } };
    const where = e.locator?.lineNumber
      ? ` (line ${e.locator.lineNumber}, column ${e.locator.columnNumber ?? 0})`
      : '';
    const reason = (e.message ?? String(err)).split('\n')[0];
    throw new FileProblem(`is not well-formed XML: ${reason}${where}`);
  }
}

/**
 * Whether a `<!DOCTYPE` comes before the root element. Skips the XML
 * declaration, processing instructions, comments and whitespace, so text
 * inside the document that mentions DOCTYPE is not mistaken for one.
 */
export function declaresDoctype(text: string): boolean {
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  for (;;) {
    while (i < text.length && /\s/.test(text[i] as string)) i++;
    if (text.startsWith('<?', i)) {
      const end = text.indexOf('?>', i + 2);
      if (end < 0) return false;
      i = end + 2;
    } else if (text.startsWith('<!--', i)) {
      const end = text.indexOf('-->', i + 4);
      if (end < 0) return false;
      i = end + 3;
    } else {
      return /^<!DOCTYPE/i.test(text.slice(i, i + 9));
    }
  }
}

export interface XmlExtraction {
  records: Record<string, unknown>[];
  /** More records matched than `maxRecords`. */
  truncated: boolean;
  warnings: string[];
}

/** Records from one parsed document per the endpoint's root_element, list_element and fields. */
export function extractXmlRecords(
  doc: XmlNode,
  endpoint: XmlEndpoint,
  maxRecords: number,
  misses: TypeMisses,
): XmlExtraction {
  const namespaces = endpoint.namespaces ?? {};
  const compile = (expression: string, field: string, nodes = false): XPathExpression => {
    const c = compileXPath(expression, namespaces, nodes);
    if ('problem' in c) throw new FileProblem(`${field} "${expression}" ${c.problem}`);
    return c.compiled;
  };
  const run = (expr: XPathExpression, node: XmlNode, label: string): XPathResult => {
    try {
      return expr.evaluate({ node, namespaces, allowAnyNamespaceForNoPrefix: true });
    } catch (err) {
      throw new FileProblem(`${label} failed: ${err instanceof Error ? err.message : String(err)}`);
    }
  };

  let context = doc;
  if (endpoint.root_element !== undefined) {
    const roots = nodesOf(run(compile(endpoint.root_element, 'root_element', true), doc, 'root_element'));
    if (roots.length === 0) {
      return {
        records: [],
        truncated: false,
        warnings: [`root_element "${endpoint.root_element}" is not in the document; no records`],
      };
    }
    context = roots[0] as XmlNode;
  }
  const fields = endpoint.fields.map((f) => ({
    ...f,
    compiled: compile(f.xpath, `field "${f.field}" xpath`),
  }));
  const items =
    endpoint.list_element !== undefined
      ? nodesOf(run(compile(endpoint.list_element, 'list_element', true), context, 'list_element'))
      : [context];
  const warnings: string[] = [];
  if (endpoint.list_element !== undefined && items.length === 0) {
    warnings.push(`list_element "${endpoint.list_element}" matched nothing; no records`);
  }
  const records = items.slice(0, maxRecords).map((item, index) => {
    const record: Record<string, unknown> = {};
    for (const f of fields) {
      const raw = rawValue(run(f.compiled, item, `field "${f.field}" xpath`));
      record[f.field] = misses.value(raw, f.type, f.field, `record ${index + 1}`);
    }
    return record;
  });
  return { records, truncated: items.length > maxRecords, warnings };
}

function nodesOf(result: XPathResult): XmlNode[] {
  return isA(result, xpath.XNodeSet) ? (result as XNodeSet).toArray() : [];
}

/** The first selected node's text (undefined when nothing matched), or a computed value. */
function rawValue(result: XPathResult): RawValue {
  if (isA(result, xpath.XNumber)) return result.numberValue();
  if (isA(result, xpath.XBoolean)) return result.booleanValue();
  if (isA(result, xpath.XString)) return result.stringValue();
  const node = nodesOf(result)[0];
  if (!node) return undefined;
  return (node.nodeType === ATTRIBUTE_NODE ? node.nodeValue : node.textContent) ?? '';
}

/** Which XPath result class (XNodeSet, XNumber, …) `result` is. */
function isA(result: XPathResult, cls: ResultClass): boolean {
  return result instanceof cls;
}
