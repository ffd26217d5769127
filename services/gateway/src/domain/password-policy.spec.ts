import { passwordProblem, parseCommonPasswords } from './password-policy.js';

const common = parseCommonPasswords('# comment\npassword\niloveyou\nmonkey\nsunshine\nqwertyuiop\n\n  Dragon  \n');
const email = 'olga.smith@example.com';
const problem = (p: string) => passwordProblem(p, email, common);

describe('parseCommonPasswords', () => {
  it('reads one per line, skips comments and blanks, lower-cases', () => {
    expect([...common]).toEqual(['password', 'iloveyou', 'monkey', 'sunshine', 'qwertyuiop', 'dragon']);
  });
});

describe('passwordProblem', () => {
  it.each(['correct horse battery staple', 'a long password', 'another long password', 'Tr0ub4dor&3x', 'zq8#Lm2!wd'])('accepts %p', (p) => {
    expect(problem(p)).toBeNull();
  });

  it.each([
    ['short1!', 'must be at least 8 characters'],
    ['é'.repeat(37), 'must be at most 72 bytes (UTF-8); this one is 74'],
    ['x'.repeat(73), 'must be at most 72 bytes (UTF-8); this one is 73'],
    ['aaaaaaaaaaaa', 'is too simple: it uses fewer than 4 different characters'],
    ['abababab', 'is too simple: it uses fewer than 4 different characters'],
    ['12345678', 'is too simple: it is a run of consecutive characters'],
    ['abcdefghij', 'is too simple: it is a run of consecutive characters'],
    ['98765432', 'is too simple: it is a run of consecutive characters'],
    ['olga.smith@example.com', 'must not be the email address or its name part'],
    ['OLGA.SMITH', 'must not be the email address or its name part'],
    ['olga.smith2024!', 'must not be the email address or its name part'],
    ['iloveyou', 'is one of the most common passwords'],
    ['ILoveYou', 'is one of the most common passwords'],
    ['i love you', 'is one of the most common passwords'],
    ['Password123!', 'is one of the most common passwords'],
    ['!!monkey2024', 'is one of the most common passwords'],
    ['QwertyUIOP', 'is one of the most common passwords'],
    ['dragon1987', 'is one of the most common passwords'],
  ])('refuses %p: %s', (p, reason) => {
    expect(problem(p)).toBe(reason);
  });

  it('accepts exactly 72 bytes and counts characters, not UTF-16 units, for the minimum', () => {
    expect(problem('é'.repeat(36))).toBe('is too simple: it uses fewer than 4 different characters');
    expect(problem('éàüö'.repeat(9))).toBeNull();
    expect(problem('😀😁😂🤣😃😄😅')).toBe('must be at least 8 characters');
  });

  it('does not treat a short name part as the email', () => {
    expect(passwordProblem('jo-walks-the-dog', 'jo@example.com', common)).toBeNull();
  });
});
