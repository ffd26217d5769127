/**
 * robots.txt (RFC 9309): parse the groups, pick ours by product token (else
 * `*`), and decide a path by the longest matching rule, `Allow` winning a
 * tie. `Crawl-delay` (not in the RFC, widely used) is read too. Pure.
 */

export interface RobotsRule {
  allow: boolean;
  pattern: string;
}

export interface RobotsPolicy {
  /** Rules that apply to us (our group(s), else `*`); empty allows everything. */
  rules: RobotsRule[];
  /** Seconds, from the applying group. */
  crawlDelaySeconds?: number;
  /** The user-agent line that selected the rules, `*`, or undefined when none applies. */
  group?: string;
}

export type RobotsDecision = { allowed: true } | { allowed: false; rule: RobotsRule };

/** The product token robots.txt groups are matched against: "AgentFactory" of "AgentFactory/1.0 (…)". */
export function robotsProductToken(userAgent: string): string {
  return /^[A-Za-z_-]+/.exec(userAgent.trim())?.[0] ?? userAgent.trim();
}

/** Parses robots.txt text for the crawler whose product token is `token`. */
export function parseRobots(text: string, token: string): RobotsPolicy {
  interface Group {
    agents: string[];
    rules: RobotsRule[];
    crawlDelay?: number;
  }
  const groups: Group[] = [];
  let current: Group | undefined;
  let lastWasAgent = false;
  for (const rawLine of text.split(/\r\n|\r|\n/)) {
    const line = rawLine.replace(/#.*$/, '').trim();
    const m = /^([A-Za-z-]+)\s*:\s*(.*)$/.exec(line);
    if (!m) continue;
    const key = (m[1] as string).toLowerCase();
    const value = (m[2] as string).trim();
    if (key === 'user-agent') {
      if (!current || !lastWasAgent) {
        current = { agents: [], rules: [] };
        groups.push(current);
      }
      current.agents.push(value.toLowerCase());
      lastWasAgent = true;
      continue;
    }
    lastWasAgent = false;
    if (!current) continue; // rules before any user-agent line belong to no group
    if (key === 'allow' || key === 'disallow') {
      // An empty pattern matches nothing (an empty Disallow allows everything).
      if (value !== '') current.rules.push({ allow: key === 'allow', pattern: value });
    } else if (key === 'crawl-delay') {
      const seconds = Number(value);
      if (Number.isFinite(seconds) && seconds >= 0) current.crawlDelay = seconds;
    }
  }
  const ours = token.toLowerCase();
  const mine = groups.filter((g) => g.agents.some((a) => agentToken(a) === ours));
  const chosen = mine.length > 0 ? mine : groups.filter((g) => g.agents.includes('*'));
  if (chosen.length === 0) return { rules: [] };
  const delays = chosen.map((g) => g.crawlDelay).filter((d): d is number => d !== undefined);
  return {
    // Groups for the same agent are combined (RFC 9309 §2.2.1).
    rules: chosen.flatMap((g) => g.rules),
    group: mine.length > 0 ? token : '*',
    ...(delays.length > 0 ? { crawlDelaySeconds: Math.max(...delays) } : {}),
  };
}

/** Whether `pathAndQuery` (e.g. `/search?q=x`) may be fetched. `/robots.txt` always may. */
export function robotsAllows(policy: RobotsPolicy, pathAndQuery: string): RobotsDecision {
  const target = normalisePercent(pathAndQuery);
  if (target === '/robots.txt') return { allowed: true };
  let best: RobotsRule | undefined;
  let bestLength = -1;
  for (const rule of policy.rules) {
    if (!patternMatches(rule.pattern, target)) continue;
    const length = rule.pattern.length;
    if (length > bestLength || (length === bestLength && rule.allow && !best?.allow)) {
      best = rule;
      bestLength = length;
    }
  }
  return !best || best.allow ? { allowed: true } : { allowed: false, rule: best };
}

/** `*` matches any run of characters, a trailing `$` anchors the end; otherwise a prefix match. */
export function patternMatches(pattern: string, pathAndQuery: string): boolean {
  const anchored = pattern.endsWith('$');
  const body = normalisePercent(anchored ? pattern.slice(0, -1) : pattern);
  const source = body
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${source}${anchored ? '$' : ''}`, 's').test(pathAndQuery);
}

/** Upper-case percent escapes and encode raw non-ASCII, so `/caf%c3%a9`, `/caf%C3%A9` and `/café` compare equal. */
function normalisePercent(value: string): string {
  const encoded = value.replace(/[^\x00-\x7f]+/g, (s) => encodeURIComponent(s));
  return encoded.replace(/%[0-9a-fA-F]{2}/g, (s) => s.toUpperCase());
}

function agentToken(agentLine: string): string {
  return agentLine.split(/[\s/]/)[0] ?? agentLine;
}
