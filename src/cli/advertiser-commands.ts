import { MODERATION_STATUSES, type ModerationStatus, moderationStatusOf } from '../modules/moderation/index.ts';
import { asGiven, data } from './api.ts';
import { type Command, optionalId, pageQuery, required, UsageError } from './command.ts';
import { printRecords } from './output.ts';

function moderationStatus(value: string | undefined): ModerationStatus {
  const word = required(value, '--status');
  const status = moderationStatusOf(word);
  if (status === undefined)
    throw new UsageError(`--status must be ${MODERATION_STATUSES.join(', ')} or its code (not '${word}')`);
  return status;
}

const moderate = (kind: 'campaigns' | 'offers', what: string): Command => ({
  name: `${kind} moderate`,
  usage: `${kind} moderate ID --status approved|rejected|moderation`,
  summary: `Approve or reject ${what} (or send it back to moderation).`,
  async run({ args, json, client }) {
    const id = asGiven<number>(required(args.words[0], `${what} ID`));
    const status = moderationStatus(args.options.status);
    const options = { params: { path: { id } }, body: { status } };
    const moderated =
      kind === 'campaigns'
        ? await data(client().PUT('/api/admin/campaigns/{id}', options))
        : await data(client().PUT('/api/admin/offers/{id}', options));
    printRecords(moderated, json);
  },
});

const queue = (kind: 'campaigns' | 'offers', what: string): Command => ({
  name: `${kind} queue`,
  usage: `${kind} queue [--status approved|rejected|moderation] [--page N]`,
  summary: `List ${what} waiting for moderation (or in another status).`,
  async run({ args, json, client }) {
    const status = args.options.status === undefined ? 0 : moderationStatus(args.options.status);
    const options = { params: { query: { ...pageQuery(args.options.page), status } } };
    const waiting =
      kind === 'campaigns'
        ? await data(client().GET('/api/admin/campaigns', options))
        : await data(client().GET('/api/admin/offers', options));
    printRecords(waiting, json);
  },
});

/** Operator commands for the advertiser side: categories, moderation, the mail outbox. */
export const advertiserCommands: Command[] = [
  {
    name: 'categories list',
    usage: 'categories list [--parent ID] [--page N]',
    summary: 'List product categories (all, or the children of one; --parent 0 for the roots).',
    async run({ args, json, client }) {
      const parentId = optionalId(args.options.parent);
      const query = { ...pageQuery(args.options.page), parentId };
      printRecords(await data(client().GET('/api/admin/categories', { params: { query } })), json, ['id', 'parent_id', 'title']);
    },
  },
  {
    name: 'categories add',
    usage: 'categories add TITLE [--parent ID]',
    summary: 'Add a product category.',
    async run({ args, json, client }) {
      const parentId = optionalId(args.options.parent);
      const body = { title: required(args.words.join(' '), 'TITLE'), parentId };
      printRecords(await data(client().POST('/api/admin/categories', { body })), json);
    },
  },
  {
    name: 'categories delete',
    usage: 'categories delete ID',
    summary: 'Delete a product category no campaign, ad or subcategory uses.',
    async run({ args, json, client }) {
      const id = required(args.words[0], 'category ID');
      await client().DELETE('/api/admin/categories/{id}', { params: { path: { id: asGiven<number>(id) } } });
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
      const query = {
        ...pageQuery(args.options.page),
        status: asGiven<'queued'>(args.options.status || undefined),
        userId: optionalId(args.options.user),
      };
      const messages = await data(client().GET('/api/admin/outbox', { params: { query } }));
      printRecords(messages, json, ['id', 'date', 'status', 'attempts', 'to', 'subject', 'error']);
    },
  },
  {
    name: 'outbox send',
    usage: 'outbox send ID',
    summary: 'Try to deliver a queued or failed e-mail again.',
    async run({ args, json, client }) {
      const id = asGiven<number>(required(args.words[0], 'message ID'));
      const message = await data(client().POST('/api/admin/outbox/{id}/send', { params: { path: { id } } }));
      printRecords(message, json, ['id', 'status', 'attempts', 'to', 'error']);
    },
  },
];
