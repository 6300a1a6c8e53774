import { asGiven, data } from './api.ts';
import { type Command, pageQuery, required } from './command.ts';
import { printRecords } from './output.ts';

const USER_COLUMNS = ['id', 'type', 'username', 'email', 'balance', 'parentId', 'date'];

/** Account, token and balance commands: each one call of the operator API. */
export const operatorCommands: Command[] = [
  {
    name: 'users create',
    usage: 'users create --type advertiser|publisher --username NAME --email ADDRESS [--url URL] [--name NAME] [--phone PHONE]',
    summary: 'Create an advertiser or publisher account.',
    async run({ args, json, client }) {
      const { url, name, phone, telegram, skype, whatsapp, maxmoney } = args.options;
      const body = {
        type: asGiven<'advertiser'>(required(args.options.type, '--type')),
        username: required(args.options.username, '--username'),
        email: required(args.options.email, '--email'),
        ...{ url, name, phone, telegram, skype, whatsapp, maxmoney },
      };
      printRecords(await data(client().POST('/api/admin/users', { body })), json);
    },
  },
  {
    name: 'users list',
    usage: 'users list [--type advertiser|publisher|operator] [--page N]',
    summary: 'List accounts.',
    async run({ args, json, client }) {
      const query = { ...pageQuery(args.options.page), type: asGiven<'advertiser'>(args.options.type || undefined) };
      printRecords(await data(client().GET('/api/admin/users', { params: { query } })), json, USER_COLUMNS);
    },
  },
  {
    name: 'users show',
    usage: 'users show ID',
    summary: 'Show one account.',
    async run({ args, json, client }) {
      const id = asGiven<number>(required(args.words[0], 'account ID'));
      printRecords(await data(client().GET('/api/admin/users/{id}', { params: { path: { id } } })), json);
    },
  },
  {
    name: 'tokens create',
    usage: 'tokens create USER_ID [--name LABEL]',
    summary: 'Issue an API token for an account (shown once).',
    async run({ args, json, client }) {
      const id = asGiven<number>(required(args.words[0], 'account ID'));
      const issued = await data(
        client().POST('/api/admin/users/{id}/tokens', { params: { path: { id } }, body: { name: args.options.name ?? 'cli' } }),
      );
      if (json) printRecords(issued, true);
      else process.stdout.write(`token id ${issued.id}\n${issued.token}\n(store it now: it is not shown again)\n`);
    },
  },
  {
    name: 'tokens list',
    usage: 'tokens list USER_ID',
    summary: "List an account's tokens (not their values).",
    async run({ args, json, client }) {
      const id = asGiven<number>(required(args.words[0], 'account ID'));
      printRecords(await data(client().GET('/api/admin/users/{id}/tokens', { params: { path: { id } } })), json);
    },
  },
  {
    name: 'tokens revoke',
    usage: 'tokens revoke TOKEN_ID',
    summary: 'Revoke a token.',
    async run({ args, json, client }) {
      const id = required(args.words[0], 'token ID');
      await client().DELETE('/api/admin/tokens/{id}', { params: { path: { id: asGiven<number>(id) } } });
      if (json) printRecords({ revoked: Number(id) }, true);
      else process.stdout.write(`token ${id} revoked\n`);
    },
  },
  {
    name: 'balance',
    usage: 'balance USER_ID AMOUNT --comment TEXT',
    summary: 'Credit (positive) or debit (negative) a balance.',
    async run({ args, json, client }) {
      const id = asGiven<number>(required(args.words[0], 'account ID'));
      const amount = required(args.words[1], 'AMOUNT');
      const body = { amount, comment: args.options.comment ?? 'cli' };
      printRecords(await data(client().POST('/api/admin/users/{id}/balance', { params: { path: { id } }, body })), json);
    },
  },
];
