/**
 * What other modules use of the audit trail: the system's own entries, written inside the caller's
 * transaction (serving's settlement batches). Other modules never import this module's repository
 * (docs/tables.md, test/source/imports.test.ts), and this file imports no other module's service.
 */
export { findLastRejections, systemAuditWrite } from './audit-repository.ts';
export { recordAudit, SYSTEM_ACTOR } from './audit-service.ts';
