/**
 * The API reference: GET /api/docs is the OpenAPI document for API clients
 * and, for a browser (Accept prefers text/html), a Swagger UI page whose
 * files are served from the swagger-ui-dist package — nothing is loaded from
 * outside the gateway. GET /api/docs/openapi.json is always the document.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Controller, Get, NotFoundException, Param, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { openApiDocument } from './openapi.js';

const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'index.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui-standalone-preset.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
  'favicon-16x16.png': 'image/png',
};

const INIT_JS = `window.onload = function () {
  // validatorUrl null: no badge fetched from an outside validator.
  window.ui = SwaggerUIBundle({ url: '/api/docs/openapi.json', dom_id: '#swagger-ui', deepLinking: true, validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset], layout: 'StandaloneLayout' });
};
`;

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Agent Factory API</title>
<link rel="stylesheet" href="/api/docs/swagger-ui.css">
<link rel="stylesheet" href="/api/docs/index.css">
<link rel="icon" type="image/png" href="/api/docs/favicon-32x32.png" sizes="32x32">
</head>
<body>
<div id="swagger-ui"></div>
<script src="/api/docs/swagger-ui-bundle.js"></script>
<script src="/api/docs/swagger-ui-standalone-preset.js"></script>
<script src="/api/docs/init.js"></script>
</body>
</html>
`;

/** Scripts only from this server; Swagger UI sets inline styles and shows data: images. */
const CSP = "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; object-src 'none'; frame-ancestors 'none'";

const assetDir = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
const assetCache = new Map<string, Buffer>();

@Controller('api/docs')
export class DocsController {
  private readonly doc = openApiDocument();

  @Get()
  docs(@Req() req: Request, @Res({ passthrough: true }) res: Response) {
    res.vary('Accept');
    if (req.accepts(['application/json', 'text/html']) !== 'text/html') return this.doc;
    res.type('html').setHeader('Content-Security-Policy', CSP);
    return PAGE;
  }

  @Get('openapi.json')
  json() {
    return this.doc;
  }

  @Get('init.js')
  init(@Res({ passthrough: true }) res: Response) {
    res.type('text/javascript; charset=utf-8');
    return INIT_JS;
  }

  /** Only the listed files of swagger-ui-dist: the name is never used as a path otherwise. */
  @Get(':asset')
  asset(@Param('asset') name: string, @Res() res: Response): void {
    const type = Object.hasOwn(ASSETS, name) ? ASSETS[name] : undefined;
    if (!type) throw new NotFoundException(`no such file: ${name}`);
    let body = assetCache.get(name);
    if (!body) assetCache.set(name, (body = readFileSync(join(assetDir, name))));
    res.setHeader('Content-Type', type);
    res.setHeader('Cache-Control', 'public, max-age=3600');
    res.send(body);
  }
}
