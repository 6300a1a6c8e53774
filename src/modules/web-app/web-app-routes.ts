import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../app-context.ts';
import { notFound } from '../../errors.ts';
import type { App } from '../../http/routes.ts';
import { errorResponses } from '../../http/schemas.ts';
import { readSessionCookie, signedInMarker } from '../../http/session-cookie.ts';
import { microsToAmount } from '../../money.ts';
import { projectFile } from '../../project-files.ts';

/** The repository's documentation (docs/*.md), which the app's pages link to for help (docs/adr/0038). */
export const DOCS_DIR = projectFile('docs');

/** The documents served at `/docs/<name>.md`: the top level of docs/, read once at start. */
function readDocs(directory: string): Map<string, Buffer> {
  const docs = new Map<string, Buffer>();
  if (!existsSync(directory)) return docs;
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    if (entry.isFile() && /^[a-z0-9-]+\.md$/.test(entry.name))
      docs.set(entry.name, readFileSync(path.join(directory, entry.name)));
  }
  return docs;
}

/** Where `vite build` puts the web app (web/dist), next to the server's sources. */
export const WEB_DIST = projectFile('web', 'dist');

/**
 * The app's pages: each answers index.html and the app picks the page from the address. Listed
 * rather than a catch-all, so that every other path keeps the API's 404 and 405 answers.
 */
export const APP_PATHS = [
  '/',
  '/sign-in',
  '/password',
  '/tokens',
  '/account',
  '/notifications',
  '/advertiser',
  '/advertiser/*',
  '/publisher',
  '/publisher/*',
  '/operator',
  '/operator/*',
];

const CONTENT_TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.json': 'application/json; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
};

interface StaticFile {
  body: Buffer;
  type: string;
}

/** Every file of the build, read once: the whole app is a few hundred kilobytes. */
function readBuild(directory: string): Map<string, StaticFile> {
  const files = new Map<string, StaticFile>();
  if (!existsSync(directory)) return files;
  for (const entry of readdirSync(directory, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const full = path.join(entry.parentPath, entry.name);
    const url = `/${path.relative(directory, full).split(path.sep).join('/')}`;
    files.set(url, { body: readFileSync(full), type: CONTENT_TYPES[path.extname(entry.name)] ?? 'application/octet-stream' });
  }
  return files;
}

const NOT_BUILT = `<!doctype html><html lang="en"><meta charset="utf-8"><title>Nativa</title>
<h1>The web app is not built</h1><p>Run <code>npm start</code> (it builds the app when needed) or <code>npm run build:web</code>, then reload.</p></html>`;

/** Serves the web app at `/` (not under /api): hashed assets cached for a year, pages never cached. */
export function registerWebAppRoutes(app: App, context: AppContext): void {
  const files = readBuild(WEB_DIST);
  const index = files.get('/index.html');
  const hidden = { schema: { hide: true }, config: { access: 'public' as const, page: true } };
  app.browserNotFoundPage = index?.body.toString('utf8');

  for (const appPath of APP_PATHS) {
    app.get(appPath, hidden, async (request, reply) => {
      reply.header('Cache-Control', 'no-cache');
      // A session made before the app's signed-in marker existed (or one a test made) gets the
      // marker with its page, so the app asks who is signed in; the cookie's session is checked
      // by that request, not here.
      if (readSessionCookie(request.headers.cookie) !== undefined) reply.header('Set-Cookie', signedInMarker());
      reply.type('text/html; charset=utf-8');
      if (index === undefined) reply.code(503);
      return index?.body ?? NOT_BUILT;
    });
  }

  app.get('/assets/*', hidden, async (request, reply) => {
    const file = files.get(request.url.split('?', 1)[0] ?? '');
    if (file === undefined) throw notFound('File');
    // Vite puts the content's hash in every asset's name: a changed file is a new URL.
    reply.header('Cache-Control', 'public, max-age=31536000, immutable');
    reply.type(file.type);
    return file.body;
  });

  // Help in place: each page links to its part of the guide. Markdown goes out as plain text,
  // readable as it is, with no renderer to keep safe (docs/adr/0038).
  const docs = readDocs(DOCS_DIR);
  app.get('/docs/:name', hidden, async (request, reply) => {
    const { name } = request.params as { name: string };
    const doc = docs.get(name);
    if (doc === undefined) throw notFound('Document');
    reply.header('Cache-Control', 'no-cache');
    reply.type('text/plain; charset=utf-8');
    return doc;
  });

  app.get('/favicon.svg', hidden, async (_request, reply) => {
    const file = files.get('/favicon.svg');
    if (file === undefined) throw notFound('File');
    reply.header('Cache-Control', 'public, max-age=86400');
    reply.type(file.type);
    return file.body;
  });

  app.get(
    '/api/platform',
    {
      config: { access: 'public', duringEnrolment: true },
      schema: {
        tags: ['Service'],
        operationId: 'getPlatform',
        summary: 'How this platform writes money and days.',
        description:
          'The currency of every amount (`CURRENCY`), the time zone days are counted in (`TZ`), the minimum payout (`MIN_PAYOUT`), and whether e-mail leaves the server (`SMTP_URL`), so that pages say what happened to a message.',
        security: [],
        response: {
          200: Type.Object({
            currency: Type.String({ description: 'ISO 4217 code of the money every amount is in.' }),
            timeZone: Type.String({ description: 'IANA time zone of the platform’s calendar days.' }),
            emailDelivery: Type.Boolean({
              description:
                'Whether messages are delivered (`SMTP_URL` is set); when false they wait in the outbox, where operators read and resend them.',
            }),
            minPayout: Type.Number({
              description:
                'The network’s minimum payout, currency units: a publisher is paid once the balance reaches it; 0 means no minimum (extension).',
            }),
          }),
          ...errorResponses(403),
        },
      },
    },
    async () => ({
      currency: context.config.currency,
      timeZone: context.config.timeZone,
      emailDelivery: context.config.smtpUrl !== undefined,
      minPayout: microsToAmount(context.config.minPayoutMicros),
    }),
  );
}
