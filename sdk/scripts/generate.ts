import { writeFileSync } from 'node:fs';
import {
  currentDocument,
  ERROR_CODES_PATH,
  errorCodesOf,
  FIELD_LIMITS_PATH,
  fieldLimitsOf,
  SCHEMA_PATH,
  typesOf,
} from './openapi-document.ts';

/** `npm run sdk:generate`: writes sdk/src/schema.d.ts, sdk/src/error-codes.ts and sdk/src/field-limits.ts from the document the current code serves. */
const document = await currentDocument();
const types = await typesOf(document);
writeFileSync(SCHEMA_PATH, types);
console.log(`wrote ${SCHEMA_PATH} (${types.length} characters)`);
const codes = errorCodesOf(document);
writeFileSync(ERROR_CODES_PATH, codes);
console.log(`wrote ${ERROR_CODES_PATH} (${codes.length} characters)`);
const limits = fieldLimitsOf(document);
writeFileSync(FIELD_LIMITS_PATH, limits);
console.log(`wrote ${FIELD_LIMITS_PATH} (${limits.length} characters)`);
