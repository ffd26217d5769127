import { summarizeThread } from './thread-summary.js';

const at = (d: string) => new Date(`${d}T10:00:00Z`);
const posts = [
  { author: 'bob', content: 'Second thoughts on the budget. We agreed to cap travel at 2k.\n- [ ] Bob to send the revised sheet', createdAt: at('2026-11-02') },
  { author: 'ann', content: 'Kick-off for the grant report! Draft is in the folder.\nTODO: check the 990 figures', createdAt: at('2026-11-01') },
  { author: 'ann', content: 'Decision: submit on Friday.\n@carl will review section 2', createdAt: at('2026-11-03') },
];

describe('summarizeThread', () => {
  it('lists participants, key points, action items and decisions in time order', () => {
    const s = summarizeThread(posts);
    expect(s.participants).toEqual(['ann', 'bob']);
    expect(s.key_points).toEqual(['Kick-off for the grant report!', 'Second thoughts on the budget.', 'Decision: submit on Friday.']);
    expect(s.action_items).toEqual(['check the 990 figures', 'Bob to send the revised sheet', '@carl will review section 2']);
    expect(s.decisions).toEqual(['cap travel at 2k.', 'submit on Friday.']);
    expect(s.summary.startsWith('3 posts by ann, bob (2026-11-01 to 2026-11-03). Key points:')).toBe(true);
    expect(s).toMatchObject({ post_count: 3, method: 'extractive' });
  });

  it('puts the focus first and cuts to max_length', () => {
    const s = summarizeThread(posts, { focus: 'action_items', maxLength: 80 });
    expect(s.summary).toMatch(/^3 posts by ann, bob \(2026-11-01 to 2026-11-03\)\. Action items: check/);
    expect(s.summary.length).toBe(80);
    expect(s.summary.endsWith('…')).toBe(true);
  });

  it('says an empty thread has no posts', () => {
    expect(summarizeThread([])).toMatchObject({ summary: 'The thread has no posts.', participants: [], post_count: 0 });
  });
});
