import { writeFileSync } from 'node:fs';
import { currentDocument, SCHEMA_PATH, typesOf } from './openapi-document.ts';

/** `npm run sdk:generate`: writes sdk/src/schema.d.ts from the document the current code serves. */
const types = await typesOf(await currentDocument());
writeFileSync(SCHEMA_PATH, types);
console.log(`wrote ${SCHEMA_PATH} (${types.length} characters)`);
