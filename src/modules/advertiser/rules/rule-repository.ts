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

/**
 * Deletes a rule and keeps its title for the history of the changes it applied (deleted_rules).
 * The title is the one the DELETE removed: of two deletions at once, the second finds no row and
 * writes nothing, as a second DELETE did before titles were kept.
 */
export async function deleteRuleRow(db: Db, id: number, at: Date): Promise<void> {
  const gone = await db
    .deleteFrom('campaign_rules')
    .where('id', '=', id)
    .returning(['id', 'campaign_id', 'title'])
    .executeTakeFirst();
  if (gone === undefined) return;
  await db
    .insertInto('deleted_rules')
    .values({ ...gone, deleted_at: at })
    .execute();
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

export interface HistoryRuleRow {
  rule_id: number;
  /** The rule's title, or the one it had when deleted; null when deleted before titles were kept. */
  title: string | null;
  deleted: boolean;
}

/**
 * The rules with changes in a campaign's history, by id, deleted ones too. The distinct ids come
 * from the history (rule_changes_campaign_idx), since a rule deleted before deleted_rules existed
 * is known only there.
 */
export async function listHistoryRules(db: Db, campaignId: number): Promise<HistoryRuleRow[]> {
  return db
    .selectFrom((history) =>
      history.selectFrom('rule_changes').select('rule_id').distinct().where('campaign_id', '=', campaignId).as('history'),
    )
    .leftJoin('campaign_rules as rule', 'rule.id', 'history.rule_id')
    .leftJoin('deleted_rules as gone', 'gone.id', 'history.rule_id')
    .select((eb) => [
      'history.rule_id',
      eb.fn.coalesce('rule.title', 'gone.title').as('title'),
      eb('rule.id', 'is', null).$castTo<boolean>().as('deleted'),
    ])
    .orderBy('history.rule_id')
    .execute();
}
