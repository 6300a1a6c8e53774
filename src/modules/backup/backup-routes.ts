import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../app-context.ts';
import { actorOf } from '../../http/request-write.ts';
import type { App } from '../../http/routes.ts';
import { errorResponses } from '../../http/schemas.ts';
import { recordAudit } from '../audit/index.ts';
import { BackupTaker } from './backup-service.ts';

/** The operator's backup of the embedded database, taken while the server runs (`nativa backup FILE`). */
export function registerBackupRoutes(app: App, context: AppContext): void {
  const backups = new BackupTaker(context.database);
  app.post(
    '/api/admin/backup',
    {
      schema: {
        tags: ['Operator'],
        operationId: 'adminBackup',
        summary:
          'A consistent copy of the embedded PGlite database (gzipped data directory tarball, `application/gzip`), taken between two transactions; `nativa restore FILE` puts it back. One backup is taken at a time: a request that arrives while one is being taken gets that one, so concurrent requests cost one dump. With DATABASE_URL the answer is 409: back PostgreSQL up with pg_dump (docs/operating.md).',
        response: {
          200: {
            description: 'The backup: a gzipped tarball of the data directory.',
            content: { 'application/gzip': { schema: Type.Unsafe<Buffer>({ type: 'string', format: 'binary' }) } },
          },
          ...errorResponses(401, 403, 409),
        },
      },
    },
    async (request, reply) => {
      const archive = await backups.take();
      const change = { action: 'backup.take', objectType: 'database', objectId: 'embedded', after: { bytes: archive.length } };
      await recordAudit(context.db, actorOf(request), change, new Date(context.clock.now()));
      reply.header('Cache-Control', 'no-store');
      reply.header('Content-Disposition', 'attachment; filename="nativa-backup.tar.gz"');
      reply.type('application/gzip');
      return archive;
    },
  );
}
