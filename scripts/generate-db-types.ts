import { writeFileSync } from 'node:fs';
import { migratedDatabase, SCHEMA_PATH, schemaTypes } from './db-types.ts';

/** `npm run db:generate-types`: writes src/db/schema.ts from a fresh database with every migration applied. */
const database = await migratedDatabase();
try {
  const types = await schemaTypes(database);
  writeFileSync(SCHEMA_PATH, types);
  console.log(`wrote ${SCHEMA_PATH} (${types.length} characters)`);
} finally {
  await database.close();
}
