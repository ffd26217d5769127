/**
 * Compiles a node condition once at validation time so that a plan with an
 * unparsable condition never reaches the orchestrator.
 */
import { compileCondition, ExprError } from '@af/expr';

export type ConditionDialect = 'playbook' | 'object' | 'jsonlogic' | 'dsl';

/** Parses the stored text of a condition into what `compileCondition` takes for its dialect. */
export function conditionSource(text: string, dialect: ConditionDialect | undefined): string | object {
  if (dialect === 'object' || dialect === 'jsonlogic') {
    const parsed: unknown = JSON.parse(text);
    // An executeIf string is stored JSON-quoted; it stays a string for the object dialect.
    return parsed as string | object;
  }
  return text;
}

/** Undefined when the condition compiles, else a message with the position and what was expected. */
export function conditionError(source: string | object, dialect: ConditionDialect | undefined): string | undefined {
  try {
    compileCondition(source as never, dialect ? { dialect } : {});
    return undefined;
  } catch (e) {
    if (e instanceof ExprError) {
      const where = e.position !== undefined ? ` at position ${e.position}` : '';
      const expected = e.expected ? ` (expected ${e.expected})` : '';
      return `${e.message.replace(/\.$/, '')}${e.message.includes(String(e.position)) ? '' : where}${e.message.includes(e.expected ?? '\u0000') ? '' : expected}`;
    }
    if (e instanceof SyntaxError) return `not valid JSON: ${e.message}`;
    throw e;
  }
}

/** Like {@link conditionError} for the stored (text) form of a node / route condition. */
export function storedConditionError(text: string, dialect: ConditionDialect | undefined): string | undefined {
  let source: string | object;
  try {
    source = conditionSource(text, dialect);
  } catch (e) {
    return `not valid JSON: ${(e as Error).message}`;
  }
  return conditionError(source, dialect);
}
