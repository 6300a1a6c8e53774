import type { Insertable, Selectable, Updateable } from 'kysely';
import type { Db } from '../../../db/database.ts';
import type { CampaignRulesTable, RuleChangesTable } from '../../../db/schema.ts';

export type RuleRow = Selectable<CampaignRulesTable>;
export type RuleChangeRow = Selectable<RuleChangesTable>;

export async function insertRule(db: Db, values: Insertable<CampaignRulesTable>): Promise<RuleRow> {
  return db.insertInto('campaign_rules').values(values).returningAll().executeTakeFirstOrThrow();
}

export async function updateRule(db: Db, id: number, values: Updateable<CampaignRulesTable>): Promise<RuleRow> {
  return db.updateTable('campaign_rules').set(values).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
}

export async function deleteRuleRow(db: Db, id: number): Promise<void> {
  await db.deleteFrom('campaign_rules').where('id', '=', id).execute();
}

export async function findRule(db: Db, campaignId: number, id: number): Promise<RuleRow | undefined> {
  return db
    .selectFrom('campaign_rules')
    .selectAll()
    .where('campaign_id', '=', campaignId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export async function listRules(db: Db, campaignId: number): Promise<RuleRow[]> {
  return db.selectFrom('campaign_rules').selectAll().where('campaign_id', '=', campaignId).orderBy('id').execute();
}

/**
 * Claims up to `limit` enabled rules due at `now` by moving their next run to `next`. One UPDATE
 * per claim: of two instances claiming at once, PostgreSQL re-checks the condition for the second
 * after the first commits, so it finds the rule no longer due; the embedded database has one
 * connection anyway.
 */
export async function claimDueRules(db: Db, now: Date, next: Date, limit: number): Promise<RuleRow[]> {
  return db
    .updateTable('campaign_rules')
    .set({ next_run_at: next })
    .where('id', 'in', (query) =>
      query
        .selectFrom('campaign_rules')
        .select('id')
        .where('enabled', '=', true)
        .where('next_run_at', '<=', now)
        // An archived campaign does not serve, so its rules have nothing to optimise; they stay
        // due and run at the first round after the campaign is restored.
        .where('campaign_id', 'not in', (campaigns) =>
          campaigns.selectFrom('campaigns').select('id').where('archived', '=', true),
        )
        .orderBy('next_run_at')
        .limit(limit),
    )
    .where('next_run_at', '<=', now)
    .where('enabled', '=', true)
    .returningAll()
    .execute();
}

export async function markRuleRun(db: Db, id: number, at: Date): Promise<void> {
  await db.updateTable('campaign_rules').set({ last_run_at: at }).where('id', '=', id).execute();
}

export async function insertRuleChanges(db: Db, rows: Insertable<RuleChangesTable>[]): Promise<void> {
  if (rows.length === 0) return;
  await db.insertInto('rule_changes').values(rows).execute();
}

export async function listRuleChanges(
  db: Db,
  filter: { campaignId: number; ruleId?: number },
  limit: number,
  offset: number,
): Promise<{ rows: RuleChangeRow[]; total: number }> {
  let query = db.selectFrom('rule_changes').where('campaign_id', '=', filter.campaignId);
  if (filter.ruleId !== undefined) query = query.where('rule_id', '=', filter.ruleId);
  const [rows, count] = await Promise.all([
    query.selectAll().orderBy('id', 'desc').limit(limit).offset(offset).execute(),
    query.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.total) };
}
