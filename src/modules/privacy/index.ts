/**
 * What the configuration and the server use of privacy: the retention kinds and their defaults,
 * the retention job and the ads.txt check.
 */
export { AdsTxtChecker } from './ads-txt-checker.ts';
export { RetentionJob } from './retention-job.ts';
export {
  RETENTION_DEFAULT_DAYS,
  RETENTION_KINDS,
  type RetentionKind,
  type RetentionVariable,
  retentionVariable,
} from './retention-kinds.ts';
