import { type Command, required, UsageError } from './command.ts';
import { printRecords } from './output.ts';

const MODERATION_STATUSES: Record<string, number> = { moderation: 0, approved: 1, rejected: 2 };

function moderationStatus(value: string | undefined): number {
  const word = required(value, '--status');
  const status = MODERATION_STATUSES[word] ?? (/^[012]$/.test(word) ? Number(word) : undefined);
  if (status === undefined) throw new UsageError(`--status must be approved, rejected or moderation (not '${word}')`);
  return status;
}

const moderate = (kind: 'campaigns' | 'offers', what: string): Command => ({
  name: `${kind} moderate`,
  usage: `${kind} moderate ID --status approved|rejected|moderation`,
  summary: `Approve or reject ${what} (or send it back to moderation).`,
  async run({ args, json, client }) {
    const id = required(args.words[0], `${what} ID`);
    const status = moderationStatus(args.options.status);
    const response = await client().request('PUT', `/api/admin/${kind}/${encodeURIComponent(id)}`, { status });
    printRecords(response.body, json);
  },
});

const queue = (kind: 'campaigns' | 'offers', what: string): Command => ({
  name: `${kind} queue`,
  usage: `${kind} queue [--status approved|rejected|moderation] [--page N]`,
  summary: `List ${what} waiting for moderation (or in another status).`,
  async run({ args, json, client }) {
    const status = args.options.status === undefined ? 0 : moderationStatus(args.options.status);
    const query = new URLSearchParams({ status: String(status), 'per-page': '100', page: args.options.page ?? '1' });
    printRecords((await client().request('GET', `/api/admin/${kind}?${query}`)).body, json);
  },
});

/** Operator commands for the advertiser side: categories, moderation, the mail outbox. */
export const advertiserCommands: Command[] = [
  {
    name: 'categories list',
    usage: 'categories list [--parent ID] [--page N]',
    summary: 'List product categories (all, or the children of one; --parent 0 for the roots).',
    async run({ args, json, client }) {
      const query = new URLSearchParams({ 'per-page': '100', page: args.options.page ?? '1' });
      if (args.options.parent !== undefined) query.set('parentId', args.options.parent);
      printRecords((await client().request('GET', `/api/admin/categories?${query}`)).body, json, ['id', 'parent_id', 'title']);
    },
  },
  {
    name: 'categories add',
    usage: 'categories add TITLE [--parent ID]',
    summary: 'Add a product category.',
    async run({ args, json, client }) {
      const body: Record<string, unknown> = { title: required(args.words.join(' '), 'TITLE') };
      if (args.options.parent !== undefined) body.parentId = Number(args.options.parent);
      printRecords((await client().request('POST', '/api/admin/categories', body)).body, json);
    },
  },
  {
    name: 'categories delete',
    usage: 'categories delete ID',
    summary: 'Delete a product category no campaign, ad or subcategory uses.',
    async run({ args, json, client }) {
      const id = required(args.words[0], 'category ID');
      await client().request('DELETE', `/api/admin/categories/${encodeURIComponent(id)}`);
      if (json) printRecords({ deleted: Number(id) }, true);
      else process.stdout.write(`category ${id} deleted\n`);
    },
  },
  queue('campaigns', 'campaigns'),
  moderate('campaigns', 'a campaign'),
  queue('offers', 'ads'),
  moderate('offers', 'an ad'),
  {
    name: 'outbox list',
    usage: 'outbox list [--status queued|sent|failed] [--user ID] [--page N]',
    summary: 'List e-mails the platform sent or tried to send, newest first.',
    async run({ args, json, client }) {
      const query = new URLSearchParams({ 'per-page': '100', page: args.options.page ?? '1' });
      if (args.options.status) query.set('status', args.options.status);
      if (args.options.user) query.set('userId', args.options.user);
      const response = await client().request('GET', `/api/admin/outbox?${query}`);
      printRecords(response.body, json, ['id', 'date', 'status', 'attempts', 'to', 'subject', 'error']);
    },
  },
  {
    name: 'outbox send',
    usage: 'outbox send ID',
    summary: 'Try to deliver a queued or failed e-mail again.',
    async run({ args, json, client }) {
      const id = required(args.words[0], 'message ID');
      const response = await client().request('POST', `/api/admin/outbox/${encodeURIComponent(id)}/send`);
      printRecords(response.body, json, ['id', 'status', 'attempts', 'to', 'error']);
    },
  },
];
