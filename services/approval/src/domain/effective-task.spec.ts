import { effectiveTask, OVERRIDE_MARKER } from './effective-task.js';

describe('effectiveTask', () => {
  it('is the original task without instructions', () => {
    expect(effectiveTask('Search AI trends', '', 'override')).toBe('Search AI trends');
    expect(effectiveTask('Search AI trends', '   ', 'enhance')).toBe('Search AI trends');
  });

  it('asks for both on enhance (seed text)', () => {
    expect(effectiveTask('Search for AI trends in 2025', 'also include GPU market growth data', 'enhance')).toBe(
      'Complete BOTH the original task AND the additional user instructions below.\n\n### Original Task\nSearch for AI trends in 2025\n\n### User Enhanced Instructions\nalso include GPU market growth data',
    );
  });

  it('puts the instructions first on override, with the marker the composer detects', () => {
    const text = effectiveTask('Search for AI trends in 2025', ' search about cricket world cup instead ', 'override');
    expect(text.startsWith(OVERRIDE_MARKER)).toBe(true);
    expect(text).toBe(
      'IMPORTANT — The user wants you to follow these override instructions\nINSTEAD of the original task.\n\n### User Override Instructions\nsearch about cricket world cup instead\n\n### Original Task (for reference only)\nSearch for AI trends in 2025',
    );
  });
});
