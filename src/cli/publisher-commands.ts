import { type Command, required, UsageError } from './command.ts';
import { printRecords } from './output.ts';

const SITE_STATUS_CODES: Record<string, number> = { moderation: 0, active: 1, banned: 2, unconfirmed: 3 };
const SITE_COLUMNS = ['id', 'userId', 'status', 'url', 'category_id', 'blocks_count', 'views', 'clicks', 'income'];
const PAYOUT_COLUMNS = ['id', 'userId', 'date', 'amount', 'wallet', 'status'];

/** A site status by name (`active`) or code (`1`). */
function siteStatusCode(value: string): number {
  const code = SITE_STATUS_CODES[value] ?? (/^[0-3]$/.test(value) ? Number(value) : undefined);
  if (code === undefined) throw new UsageError(`unknown site status '${value}' (moderation, active, banned, unconfirmed)`);
  return code;
}

/** Site moderation, payouts and publisher balances: each one call of the operator API. */
export const publisherCommands: Command[] = [
  {
    name: 'sites list',
    usage: 'sites list [--status moderation|active|banned|unconfirmed] [--user ID] [--page N]',
    summary: 'List sites (the moderation queue with --status moderation).',
    async run({ args, json, client }) {
      const query = new URLSearchParams({ 'per-page': '100', page: args.options.page ?? '1' });
      if (args.options.status) query.set('status', String(siteStatusCode(args.options.status)));
      if (args.options.user) query.set('userId', args.options.user);
      printRecords((await client().request('GET', `/api/admin/sites?${query}`)).body, json, SITE_COLUMNS);
    },
  },
  {
    name: 'sites moderate',
    usage: 'sites moderate ID --status active|banned|unconfirmed|moderation',
    summary: 'Approve, ban or otherwise set the status of a site.',
    async run({ args, json, client }) {
      const id = required(args.words[0], 'site ID');
      const status = siteStatusCode(required(args.options.status, '--status'));
      printRecords((await client().request('PUT', `/api/admin/sites/${encodeURIComponent(id)}`, { status })).body, json);
    },
  },
  {
    name: 'payouts create',
    usage: 'payouts create --user ID --amount X --wallet W [--status pending|paid]',
    summary: "Record a payout to a publisher (debits the publisher's balance).",
    async run({ args, json, client }) {
      const body: Record<string, unknown> = {
        userId: Number(required(args.options.user, '--user')),
        amount: required(args.options.amount, '--amount'),
        wallet: required(args.options.wallet, '--wallet'),
      };
      if (args.options.status) body.status = args.options.status;
      printRecords((await client().request('POST', '/api/admin/payouts', body)).body, json);
    },
  },
  {
    name: 'payouts list',
    usage: 'payouts list [--user ID] [--status pending|paid|cancelled] [--page N]',
    summary: 'List payouts, newest first.',
    async run({ args, json, client }) {
      const query = new URLSearchParams({ 'per-page': '100', page: args.options.page ?? '1' });
      if (args.options.user) query.set('userId', args.options.user);
      if (args.options.status) query.set('status', args.options.status);
      printRecords((await client().request('GET', `/api/admin/payouts?${query}`)).body, json, PAYOUT_COLUMNS);
    },
  },
  {
    name: 'payouts set',
    usage: 'payouts set ID --status paid|cancelled',
    summary: 'Mark a pending payout paid, or cancel it (the amount returns to the balance).',
    async run({ args, json, client }) {
      const id = required(args.words[0], 'payout ID');
      const status = required(args.options.status, '--status');
      printRecords((await client().request('PUT', `/api/admin/payouts/${encodeURIComponent(id)}`, { status })).body, json);
    },
  },
  {
    name: 'balances',
    usage: 'balances [--page N]',
    summary: 'Outstanding publisher balances, largest first.',
    async run({ args, json, client }) {
      const query = new URLSearchParams({ 'per-page': '100', page: args.options.page ?? '1' });
      printRecords((await client().request('GET', `/api/admin/publishers/balances?${query}`)).body, json);
    },
  },
];
