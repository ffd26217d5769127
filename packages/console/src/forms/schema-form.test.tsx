// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { buildValue, errorsByField, fieldsOf } from './schema';
import { SchemaForm } from './SchemaForm';

const schema = {
  type: 'object',
  required: ['go', 'score'],
  properties: {
    go: { type: 'boolean', title: 'Go ahead' },
    score: { type: 'integer', minimum: 1, maximum: 5 },
    channel: { type: 'string', enum: ['email', 'chat'] },
    note: { type: 'string', description: 'Why' },
    tags: { type: 'array', items: { type: 'string' } },
    extra: { type: 'object' },
  },
};

afterEach(cleanup);

describe('fieldsOf / buildValue', () => {
  it('makes one field per property with its kind, label and required flag', () => {
    expect(fieldsOf(schema).map((f) => [f.name, f.kind, f.label, f.required])).toEqual([
      ['go', 'boolean', 'Go ahead', true],
      ['score', 'integer', 'Score', true],
      ['channel', 'select', 'Channel', false],
      ['note', 'text', 'Note', false],
      ['tags', 'list', 'Tags', false],
      ['extra', 'json', 'Extra', false],
    ]);
  });

  it('converts values: numbers parsed, lists split, JSON parsed, empty optional fields left out', () => {
    const r = buildValue(schema, { go: true, score: '4', channel: '', note: 'ok', tags: 'a\n\n b ', extra: '{"k":1}' });
    expect(r).toEqual({ value: { go: true, score: 4, note: 'ok', tags: ['a', 'b'], extra: { k: 1 } }, errors: {} });
  });

  it('sends a non-numeric number as typed (the API names it) and reports JSON that does not parse', () => {
    const r = buildValue(schema, { go: false, score: 'lots', extra: '{bad' });
    expect(r.value).toEqual({ go: false, score: 'lots' });
    expect(r.errors).toEqual({ extra: 'is not valid JSON' });
  });

  it('maps API violations to fields: paths, JSON pointers, missing required properties; others to the form', () => {
    expect(
      errorsByField([
        { field: 'output.score', reason: 'must be <= 5' },
        { field: '/output/note', reason: 'must be string' },
        { field: 'output', reason: "must have required property 'go'" },
        { field: 'runId', reason: 'unknown run' },
      ]),
    ).toEqual({ score: 'must be <= 5', note: 'must be string', go: 'is required', '': 'runId: unknown run' });
  });
});

describe('SchemaForm', () => {
  it('renders labelled controls and submits the built value', () => {
    const onSubmit = vi.fn();
    render(<SchemaForm schema={schema} onSubmit={onSubmit} />);
    fireEvent.click(screen.getByLabelText(/Go ahead/));
    fireEvent.change(screen.getByLabelText(/Score/), { target: { value: '3' } });
    fireEvent.change(screen.getByLabelText(/Channel/), { target: { value: 'chat' } });
    fireEvent.click(screen.getByRole('button', { name: 'Submit' }));
    expect(onSubmit).toHaveBeenCalledWith({ go: true, score: 3, channel: 'chat' });
  });

  it('shows an API error under the field it names, tied to the control for screen readers', () => {
    render(<SchemaForm schema={schema} errors={{ score: 'must be <= 5' }} onSubmit={() => undefined} />);
    const input = screen.getByLabelText(/Score/);
    expect(input.getAttribute('aria-invalid')).toBe('true');
    const alert = screen.getByRole('alert');
    expect(alert.textContent).toBe('must be <= 5');
    expect(input.getAttribute('aria-describedby')).toContain(alert.id);
  });

  it('does not submit when a JSON field does not parse, and says so under the field', () => {
    const onSubmit = vi.fn();
    render(<SchemaForm schema={schema} onSubmit={onSubmit} />);
    fireEvent.change(screen.getByLabelText(/Extra/), { target: { value: '{nope' } });
    fireEvent.click(screen.getByRole('button', { name: 'Submit' }));
    expect(onSubmit).not.toHaveBeenCalled();
    expect(screen.getByRole('alert').textContent).toBe('is not valid JSON');
  });

  it('falls back to one JSON field for a schema that is not an object', () => {
    const onSubmit = vi.fn();
    render(<SchemaForm schema={{ type: 'array' }} onSubmit={onSubmit} />);
    fireEvent.change(screen.getByLabelText(/Value/), { target: { value: '[1,2]' } });
    fireEvent.click(screen.getByRole('button', { name: 'Submit' }));
    expect(onSubmit).toHaveBeenCalledWith([1, 2]);
  });
});
