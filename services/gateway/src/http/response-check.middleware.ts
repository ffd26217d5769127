/**
 * OPENAPI_CHECK_RESPONSES=1 (the test stacks set it): every JSON answer is
 * checked against the OpenAPI document before it leaves, so each e2e test
 * also checks the documented schemas against real answers. A mismatch is
 * logged and answered 500 RESPONSE_SCHEMA_MISMATCH naming the operation and
 * the body paths, so the test that provoked it fails where it happened.
 * Off in production: the check costs a parse of every answer.
 */
import type { NextFunction, Request, Response } from 'express';
import type { Logger } from '@af/service-kit';
import { checkAnswer, routeMatcher } from './responses/conformance.js';
import type { RouteDoc } from './responses/document.js';

export const CHECKED_HEADER = 'X-OpenAPI-Checked';

export function responseCheck(routes: readonly RouteDoc[], log: Logger) {
  const match = routeMatcher(routes);
  return (req: Request, res: Response, next: NextFunction): void => {
    const path = (req.originalUrl || req.url).split('?')[0]!;
    const matched = match(req.method, path);
    const json = res.json.bind(res);
    res.json = (body: unknown) => {
      const status = res.statusCode;
      const problems = checkAnswer(matched, status, body);
      if (!res.headersSent) res.setHeader(CHECKED_HEADER, matched?.operationId ?? 'unmatched');
      if (!problems.length) return json(body);
      const operation = `${req.method} ${matched?.route.path ?? path}`;
      log.error({ operation, status, problems }, 'response does not match the OpenAPI document');
      res.status(500);
      return json({
        error: {
          code: 'RESPONSE_SCHEMA_MISMATCH',
          message: `${operation} answered ${problems.map((p) => `${p.field}: ${p.reason}`).join('; ')} (status ${status})`,
          violations: problems,
        },
      });
    };
    next();
  };
}
