import { asGiven, data } from './api.ts';
import { type Command, optionalId, pageQuery, required, UsageError } from './command.ts';
import { printRecords } from './output.ts';

const SITE_STATUS_CODES: Record<string, number> = { moderation: 0, active: 1, banned: 2, unconfirmed: 3 };
const SITE_COLUMNS = ['id', 'userId', 'status', 'url', 'category_id', 'blocks_count', 'views', 'clicks', 'income'];
const PAYOUT_COLUMNS = ['id', 'userId', 'date', 'amount', 'wallet', 'status'];

/** A site status by name (`active`) or code (`1`). */
function siteStatusCode(value: string): 0 | 1 | 2 | 3 {
  const code = SITE_STATUS_CODES[value] ?? (/^[0-3]$/.test(value) ? Number(value) : undefined);
  if (code !== 0 && code !== 1 && code !== 2 && code !== 3)
    throw new UsageError(`unknown site status '${value}' (moderation, active, banned, unconfirmed)`);
  return code;
}

/** Site moderation, payouts and publisher balances: each one call of the operator API. */
export const publisherCommands: Command[] = [
  {
    name: 'sites list',
    usage: 'sites list [--status moderation|active|banned|unconfirmed] [--user ID] [--page N]',
    summary: 'List sites (the moderation queue with --status moderation).',
    async run({ args, json, client }) {
      const query = {
        ...pageQuery(args.options.page),
        status: args.options.status ? siteStatusCode(args.options.status) : undefined,
        userId: optionalId(args.options.user),
      };
      printRecords(await data(client().GET('/api/admin/sites', { params: { query } })), json, SITE_COLUMNS);
    },
  },
  {
    name: 'sites moderate',
    usage: 'sites moderate ID --status active|banned|unconfirmed|moderation',
    summary: 'Approve, ban or otherwise set the status of a site.',
    async run({ args, json, client }) {
      const id = asGiven<number>(required(args.words[0], 'site ID'));
      const status = siteStatusCode(required(args.options.status, '--status'));
      printRecords(await data(client().PUT('/api/admin/sites/{id}', { params: { path: { id } }, body: { status } })), json);
    },
  },
  {
    name: 'payouts create',
    usage: 'payouts create --user ID --amount X --wallet W [--status pending|paid]',
    summary: "Record a payout to a publisher (debits the publisher's balance).",
    async run({ args, json, client }) {
      const body = {
        userId: Number(required(args.options.user, '--user')),
        amount: required(args.options.amount, '--amount'),
        wallet: required(args.options.wallet, '--wallet'),
        status: asGiven<'paid'>(args.options.status || undefined),
      };
      printRecords(await data(client().POST('/api/admin/payouts', { body })), json);
    },
  },
  {
    name: 'payouts list',
    usage: 'payouts list [--user ID] [--status pending|paid|cancelled] [--page N]',
    summary: 'List payouts, newest first.',
    async run({ args, json, client }) {
      const query = {
        ...pageQuery(args.options.page),
        userId: optionalId(args.options.user),
        status: asGiven<'paid'>(args.options.status || undefined),
      };
      printRecords(await data(client().GET('/api/admin/payouts', { params: { query } })), json, PAYOUT_COLUMNS);
    },
  },
  {
    name: 'payouts set',
    usage: 'payouts set ID --status paid|cancelled',
    summary: 'Mark a pending payout paid, or cancel it (the amount returns to the balance).',
    async run({ args, json, client }) {
      const id = asGiven<number>(required(args.words[0], 'payout ID'));
      const status = asGiven<'paid'>(required(args.options.status, '--status'));
      printRecords(await data(client().PUT('/api/admin/payouts/{id}', { params: { path: { id } }, body: { status } })), json);
    },
  },
  {
    name: 'balances',
    usage: 'balances [--page N]',
    summary: 'Outstanding publisher balances, largest first.',
    async run({ args, json, client }) {
      const query = pageQuery(args.options.page);
      printRecords(await data(client().GET('/api/admin/publishers/balances', { params: { query } })), json);
    },
  },
];
