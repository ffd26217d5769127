/**
 * Chat with an agent: `@handle …` with autocomplete from the agents you may
 * mention, the answer streamed (the strategy chosen, the run and its steps,
 * a question when an input is missing, the journal entry, the answer), and
 * the conversation kept for the next message.
 */
import { useEffect, useId, useRef, useState, type FormEvent, type KeyboardEvent } from 'react';
import { api, ApiError } from '../api/client';
import { ErrorBanner, StatusBadge } from '../components/ui';
import { applyMention, matchAgents, mentionAt, type MentionAgent } from '../chat/mention';
import { postSse } from '../chat/sse-post';
import { Link } from '../router';

interface Turn {
  id: number;
  message: string;
  strategy?: { handle?: string; strategy?: string; playbook_id?: string | null; reason?: string };
  runId?: string;
  steps: Record<string, string>;
  clarify?: { message?: string; questions?: Array<{ input?: string; question?: string; description?: string }> };
  journal?: { summary?: string; task_status?: string };
  answer?: { text: string; error: boolean };
  error?: unknown;
  done: boolean;
}

const STEP_STATUS: Record<string, string> = { node_start: 'running', node_complete: 'completed', node_failed: 'failed', node_skipped: 'skipped', hitl_request: 'waiting' };

export default function ChatPage() {
  const [agents, setAgents] = useState<MentionAgent[]>([]);
  const [agentsError, setAgentsError] = useState<unknown>(null);
  const [text, setText] = useState('');
  const [caret, setCaret] = useState(0);
  const [active, setActive] = useState(0);
  const [dismissed, setDismissed] = useState(false);
  const [turns, setTurns] = useState<Turn[]>([]);
  const [conversationId, setConversationId] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [fieldError, setFieldError] = useState<string | undefined>();
  const box = useRef<HTMLTextAreaElement>(null);
  const listId = useId();
  const inputId = useId();

  useEffect(() => {
    api<{ agents: MentionAgent[] }>('GET', '/api/agent-factory/available-agents').then(
      (r) => setAgents(r.agents),
      (err) => setAgentsError(err),
    );
  }, []);

  const mention = mentionAt(text, caret);
  const options = mention && !dismissed ? matchAgents(agents, mention.query) : [];
  const open = options.length > 0;

  const pick = (a: MentionAgent) => {
    if (!mention) return;
    const next = applyMention(text, mention.start, caret, a.handle);
    setText(next.text);
    setCaret(next.caret);
    setActive(0);
    requestAnimationFrame(() => {
      box.current?.focus();
      box.current?.setSelectionRange(next.caret, next.caret);
    });
  };

  const onKey = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (open) {
      if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
        e.preventDefault();
        setActive((i) => (i + (e.key === 'ArrowDown' ? 1 : options.length - 1)) % options.length);
        return;
      }
      if (e.key === 'Enter' || e.key === 'Tab') {
        e.preventDefault();
        pick(options[Math.min(active, options.length - 1)]!);
        return;
      }
      if (e.key === 'Escape') {
        e.preventDefault();
        setDismissed(true);
        return;
      }
    }
    if (e.key === 'Enter' && !e.shiftKey) {
      e.preventDefault();
      void send();
    }
  };

  const update = (t: Turn['id'], change: (turn: Turn) => Turn) => setTurns((all) => all.map((x) => (x.id === t ? change(x) : x)));

  const send = async (e?: FormEvent) => {
    e?.preventDefault();
    const message = text.trim();
    if (!message || busy) return;
    setFieldError(undefined);
    setBusy(true);
    const id = Date.now();
    setTurns((all) => [...all, { id, message, steps: {}, done: false }]);
    setText('');
    setCaret(0);
    try {
      await postSse('/api/async/orchestrator/stream', { message, ...(conversationId ? { conversation_id: conversationId } : {}) }, (m) => {
        let frame: { type: string; payload: Record<string, any>; nodeId?: string; runId?: string };
        try {
          frame = JSON.parse(m.data);
        } catch {
          return;
        }
        const p = frame.payload ?? {};
        update(id, (turn) => {
          switch (frame.type) {
            case 'strategy':
              return { ...turn, strategy: p };
            case 'run':
              return { ...turn, runId: String(p.run_id) };
            case 'clarify':
              return { ...turn, clarify: p };
            case 'journal':
              return { ...turn, journal: p };
            case 'answer':
              return { ...turn, answer: { text: String(p.text ?? ''), error: p.error === true } };
            case 'done':
              return { ...turn, done: true };
            default: {
              const s = STEP_STATUS[frame.type];
              return s && frame.nodeId ? { ...turn, steps: { ...turn.steps, [frame.nodeId]: s } } : turn;
            }
          }
        });
        if (frame.type === 'done' && p.conversation_id) setConversationId(String(p.conversation_id));
      });
    } catch (err) {
      // The message itself was refused (no @mention, unknown handle): shown under the message box, the text kept.
      setTurns((all) => all.filter((x) => x.id !== id));
      setText(message);
      if (err instanceof ApiError && err.violations.some((v) => v.field === 'message' || v.field === 'handle')) {
        setFieldError(err.violations.find((v) => v.field === 'message' || v.field === 'handle')!.reason);
      } else setFieldError(err instanceof Error ? err.message : String(err));
    } finally {
      update(id, (turn) => ({ ...turn, done: true }));
      setBusy(false);
    }
  };

  return (
    <section aria-labelledby="chat-title" className="chat">
      <h1 id="chat-title">Chat</h1>
      <p className="hint">
        Start a message with <code>@handle</code> to ask one of your agents (or one shared with your teams).{' '}
        {conversationId ? (
          <button type="button" className="link" onClick={() => { setConversationId(null); setTurns([]); }}>
            New conversation
          </button>
        ) : null}
      </p>
      <ErrorBanner error={agentsError} />
      <ol className="chat-log" aria-live="polite" aria-label="Conversation">
        {turns.map((t) => (
          <li key={t.id} className="turn">
            <p className="you">
              <span className="sr-only">You: </span>
              {t.message}
            </p>
            <article className="agent-reply" aria-label={`Reply from @${t.strategy?.handle ?? 'agent'}`} aria-busy={!t.done}>
              {t.strategy ? (
                <p className="meta" data-strategy={t.strategy.strategy}>
                  @{t.strategy.handle} · {t.strategy.strategy}
                  {t.strategy.playbook_id ? ` · playbook ${t.strategy.playbook_id}` : ''}
                  {t.strategy.reason ? ` · ${t.strategy.reason}` : ''}
                </p>
              ) : null}
              {t.runId ? (
                <p className="meta">
                  Run <Link href={`/runs/${t.runId}`}>{t.runId.slice(0, 8)}</Link>{' '}
                  {Object.entries(t.steps).map(([node, s]) => (
                    <span key={node} className="step-chip">
                      {node} <StatusBadge status={s} />{' '}
                    </span>
                  ))}
                </p>
              ) : null}
              {t.clarify ? (
                <div className="clarify">
                  <p>{t.clarify.message ?? 'The agent needs more to go on:'}</p>
                  <ul>
                    {(t.clarify.questions ?? []).map((q, i) => (
                      <li key={i}>{q.question ?? q.description ?? q.input}</li>
                    ))}
                  </ul>
                </div>
              ) : null}
              {t.answer ? <p className={t.answer.error ? 'field-error answer' : 'answer'}>{t.answer.text}</p> : !t.done ? <p role="status">Working…</p> : null}
              {t.journal?.summary ? <p className="hint">Journal: {t.journal.summary}</p> : null}
            </article>
          </li>
        ))}
      </ol>
      <form onSubmit={send} noValidate aria-label="Message" className="chat-form">
        <div className="field mention">
          <label htmlFor={inputId}>Message</label>
          <textarea
            id={inputId}
            ref={box}
            rows={3}
            value={text}
            role="combobox"
            aria-autocomplete="list"
            aria-expanded={open}
            aria-controls={listId}
            aria-activedescendant={open ? `${listId}-${Math.min(active, options.length - 1)}` : undefined}
            aria-invalid={fieldError ? true : undefined}
            aria-describedby={fieldError ? `${inputId}-err` : undefined}
            placeholder="@agent what would you like?"
            onChange={(e) => {
              setText(e.target.value);
              setCaret(e.target.selectionStart ?? e.target.value.length);
              setDismissed(false);
              setActive(0);
            }}
            onSelect={(e) => setCaret(e.currentTarget.selectionStart ?? 0)}
            onKeyDown={onKey}
          />
          <ul id={listId} role="listbox" aria-label="Agents" className="mention-list" hidden={!open}>
            {options.map((a, i) => (
              <li
                key={a.agent_profile_id}
                id={`${listId}-${i}`}
                role="option"
                aria-selected={i === active}
                onMouseDown={(e) => {
                  e.preventDefault();
                  pick(a);
                }}
              >
                <strong>@{a.handle}</strong> {a.name}
                {a.source === 'team' ? <span className="hint"> · shared by {a.team_name ?? 'a team'}</span> : null}
              </li>
            ))}
          </ul>
          {fieldError ? (
            <p className="field-error" id={`${inputId}-err`} role="alert">
              {fieldError}
            </p>
          ) : null}
        </div>
        <button type="submit" disabled={busy || !text.trim()}>
          {busy ? 'Sending…' : 'Send'}
        </button>
      </form>
    </section>
  );
}
