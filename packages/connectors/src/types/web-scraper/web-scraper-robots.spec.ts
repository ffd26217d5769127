import { parseRobots, patternMatches, robotsAllows, robotsProductToken } from './web-scraper-robots.js';

const ROBOTS = `
# comment line
User-agent: Googlebot
Disallow: /

User-agent: AgentFactory
User-agent: OtherBot
Disallow: /private/        # trailing comment
Allow: /private/open
Disallow: /*.pdf$
Crawl-delay: 2

User-agent: *
Disallow: /search
Allow: /search/about
Sitemap: https://x.test/sitemap.xml
`;

const allowed = (text: string, token: string, path: string) =>
  robotsAllows(parseRobots(text, token), path).allowed;

describe('robotsProductToken', () => {
  it.each([
    ['AgentFactory/1.0 (+connector-runtime; web_scraper)', 'AgentFactory'],
    ['My-Crawler', 'My-Crawler'],
    ['Mozilla/5.0 (X11)', 'Mozilla'],
  ])('%s → %s', (ua, token) => {
    expect(robotsProductToken(ua)).toBe(token);
  });
});

describe('parseRobots / robotsAllows', () => {
  it('uses our group (matched case-insensitively, shared with other agents) and ignores the others', () => {
    const policy = parseRobots(ROBOTS, 'agentfactory');

    expect(policy.group).toBe('agentfactory');
    expect(policy.crawlDelaySeconds).toBe(2);
    expect(robotsAllows(policy, '/')).toEqual({ allowed: true });
    expect(robotsAllows(policy, '/search?q=x')).toEqual({ allowed: true });
    expect(robotsAllows(policy, '/private/x')).toEqual({
      allowed: false,
      rule: { allow: false, pattern: '/private/' },
    });
  });

  it('falls back to the * group', () => {
    expect(parseRobots(ROBOTS, 'SomeBot').group).toBe('*');
    expect(allowed(ROBOTS, 'SomeBot', '/search?q=1')).toBe(false);
    expect(allowed(ROBOTS, 'SomeBot', '/private/x')).toBe(true);
  });

  it('the longest matching rule wins; Allow wins a tie', () => {
    expect(allowed(ROBOTS, 'AgentFactory', '/private/open/file')).toBe(true);
    expect(allowed(ROBOTS, 'SomeBot', '/search/about')).toBe(true);
    expect(allowed('User-agent: *\nDisallow: /a\nAllow: /a', 'x', '/a')).toBe(true);
  });

  it('supports * wildcards and the $ end anchor', () => {
    expect(allowed(ROBOTS, 'AgentFactory', '/docs/report.pdf')).toBe(false);
    expect(allowed(ROBOTS, 'AgentFactory', '/docs/report.pdf?download=1')).toBe(true);
    expect(patternMatches('/a*/c', '/a/b/c/d')).toBe(true);
    expect(patternMatches('/a*/c$', '/a/b/c/d')).toBe(false);
    expect(patternMatches('/a.b', '/aXb')).toBe(false);
  });

  it('an empty Disallow allows everything; no applicable group allows everything', () => {
    expect(allowed('User-agent: *\nDisallow:', 'x', '/anything')).toBe(true);
    expect(allowed('User-agent: Googlebot\nDisallow: /', 'AgentFactory', '/anything')).toBe(true);
    expect(allowed('', 'AgentFactory', '/anything')).toBe(true);
    expect(allowed('Disallow: /\n', 'AgentFactory', '/anything')).toBe(true);
  });

  it('combines several groups for the same agent', () => {
    const text = 'User-agent: a\nDisallow: /x\n\nUser-agent: b\nDisallow: /\n\nUser-agent: A\nDisallow: /y\n';

    expect(allowed(text, 'a', '/x')).toBe(false);
    expect(allowed(text, 'a', '/y')).toBe(false);
    expect(allowed(text, 'a', '/z')).toBe(true);
  });

  it('always allows /robots.txt and compares percent-encodings case-insensitively', () => {
    expect(allowed('User-agent: *\nDisallow: /', 'x', '/robots.txt')).toBe(true);
    expect(allowed('User-agent: *\nDisallow: /caf%c3%a9', 'x', '/caf%C3%A9/menu')).toBe(false);
    expect(allowed('User-agent: *\nDisallow: /café', 'x', '/caf%C3%A9')).toBe(false);
  });

  it('handles CRLF line ends and ignores malformed lines and bad crawl delays', () => {
    const policy = parseRobots('User-agent: *\r\nnonsense\r\nCrawl-delay: soon\r\nDisallow: /a\r\n', 'x');

    expect(policy.crawlDelaySeconds).toBeUndefined();
    expect(robotsAllows(policy, '/a').allowed).toBe(false);
  });
});
