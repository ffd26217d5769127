/**
 * The playbook YAML textarea with completion from the playbook JSON Schema:
 * while typing a key (or after `key: `) the keys or values that fit are
 * listed; Ctrl+Space lists them anywhere. Arrow keys move, Enter or Tab
 * insert, Escape closes. The list is an ARIA listbox tied to the textarea.
 */
import { useEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import { api } from '../api/client';
import { completeAt, type Completion, type JsonSchema } from './complete';
import schema from './playbook.schema.json';

let actionNames: Promise<string[]> | null = null;
function loadActions(): Promise<string[]> {
  actionNames ??= api<{ actions: Array<{ name: string }> }>('GET', '/api/agent-factory/actions').then(
    (r) => r.actions.map((a) => a.name).sort(),
    () => [],
  );
  return actionNames;
}

export function YamlEditor({ value, onChange, invalid, describedBy }: { value: string; onChange(v: string): void; invalid: boolean; describedBy: string }) {
  const box = useRef<HTMLTextAreaElement>(null);
  const [actions, setActions] = useState<string[]>([]);
  const [completion, setCompletion] = useState<Completion | null>(null);
  const [active, setActive] = useState(0);
  useEffect(() => void loadActions().then(setActions), []);
  const root = useMemo(() => schema as JsonSchema, []);

  const suggest = (text: string, caret: number, forced: boolean) => {
    const c = completeAt(text, caret, root, actions);
    // While typing, only once something is typed (an empty new line does not pop a list up).
    if (c && (forced || c.kind === 'value' || c.to > c.from)) {
      setCompletion(c);
      setActive(0);
    } else setCompletion(null);
  };

  const accept = (i: number) => {
    if (!completion) return;
    const opt = completion.options[i]!;
    const next = value.slice(0, completion.from) + opt.insert + value.slice(completion.to);
    const caret = completion.from + opt.insert.length;
    onChange(next);
    setCompletion(null);
    requestAnimationFrame(() => {
      box.current?.focus();
      box.current?.setSelectionRange(caret, caret);
    });
  };

  const onKey = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key === ' ' && e.ctrlKey) {
      e.preventDefault();
      suggest(value, e.currentTarget.selectionStart, true);
      return;
    }
    if (!completion) return;
    const n = completion.options.length;
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      setActive((i) => (i + (e.key === 'ArrowDown' ? 1 : n - 1)) % n);
    } else if (e.key === 'Enter' || e.key === 'Tab') {
      e.preventDefault();
      accept(Math.min(active, n - 1));
    } else if (e.key === 'Escape') {
      e.preventDefault();
      setCompletion(null);
    }
  };

  const open = !!completion?.options.length;
  return (
    <div className="field mention">
      <label htmlFor="yaml">Playbook YAML</label>
      <textarea
        id="yaml"
        ref={box}
        className="code"
        spellCheck={false}
        rows={24}
        value={value}
        role="combobox"
        aria-autocomplete="list"
        aria-expanded={open}
        aria-controls="yaml-completions"
        aria-activedescendant={open ? `yaml-completion-${Math.min(active, completion!.options.length - 1)}` : undefined}
        aria-describedby={`${describedBy} yaml-completion-hint`}
        aria-invalid={invalid ? true : undefined}
        onChange={(e) => {
          onChange(e.target.value);
          suggest(e.target.value, e.target.selectionStart, false);
        }}
        onKeyDown={onKey}
        onBlur={() => setCompletion(null)}
      />
      <p id="yaml-completion-hint" className="hint">
        Ctrl+Space lists the keys and values that fit here.
      </p>
      <ul id="yaml-completions" role="listbox" aria-label="Completions" className="mention-list completions" hidden={!open}>
        {completion?.options.map((o, i) => (
          <li
            key={o.label}
            id={`yaml-completion-${i}`}
            role="option"
            aria-selected={i === active}
            onMouseDown={(e) => {
              e.preventDefault();
              accept(i);
            }}
          >
            <code>{o.label}</code>
            {o.detail ? <span className="hint"> {o.detail}</span> : null}
          </li>
        ))}
      </ul>
    </div>
  );
}
