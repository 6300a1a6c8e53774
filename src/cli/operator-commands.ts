import { type Command, required } from './command.ts';
import { printRecords } from './output.ts';

const USER_COLUMNS = ['id', 'type', 'username', 'email', 'balance', 'parentId', 'date'];

/** Account, token and balance commands: each one call of the operator API. */
export const operatorCommands: Command[] = [
  {
    name: 'users create',
    usage: 'users create --type advertiser|publisher --username NAME --email ADDRESS [--url URL] [--name NAME] [--phone PHONE]',
    summary: 'Create an advertiser or publisher account.',
    async run({ args, json, client }) {
      const body: Record<string, string> = {
        type: required(args.options.type, '--type'),
        username: required(args.options.username, '--username'),
        email: required(args.options.email, '--email'),
      };
      for (const key of ['url', 'name', 'phone', 'telegram', 'skype', 'whatsapp', 'maxmoney']) {
        const value = args.options[key];
        if (value !== undefined) body[key] = value;
      }
      const response = await client().request('POST', '/api/admin/users', body);
      printRecords(response.body, json);
    },
  },
  {
    name: 'users list',
    usage: 'users list [--type advertiser|publisher|operator] [--page N]',
    summary: 'List accounts.',
    async run({ args, json, client }) {
      const query = new URLSearchParams({ 'per-page': '100', page: args.options.page ?? '1' });
      if (args.options.type) query.set('type', args.options.type);
      const response = await client().request('GET', `/api/admin/users?${query}`);
      printRecords(response.body, json, USER_COLUMNS);
    },
  },
  {
    name: 'users show',
    usage: 'users show ID',
    summary: 'Show one account.',
    async run({ args, json, client }) {
      const id = required(args.words[0], 'account ID');
      printRecords((await client().request('GET', `/api/admin/users/${encodeURIComponent(id)}`)).body, json);
    },
  },
  {
    name: 'tokens create',
    usage: 'tokens create USER_ID [--name LABEL]',
    summary: 'Issue an API token for an account (shown once).',
    async run({ args, json, client }) {
      const id = required(args.words[0], 'account ID');
      const response = await client().request('POST', `/api/admin/users/${encodeURIComponent(id)}/tokens`, {
        name: args.options.name ?? 'cli',
      });
      const issued = response.body as { id: number; token: string };
      if (json) printRecords(issued, true);
      else process.stdout.write(`token id ${issued.id}\n${issued.token}\n(store it now: it is not shown again)\n`);
    },
  },
  {
    name: 'tokens list',
    usage: 'tokens list USER_ID',
    summary: "List an account's tokens (not their values).",
    async run({ args, json, client }) {
      const id = required(args.words[0], 'account ID');
      printRecords((await client().request('GET', `/api/admin/users/${encodeURIComponent(id)}/tokens`)).body, json);
    },
  },
  {
    name: 'tokens revoke',
    usage: 'tokens revoke TOKEN_ID',
    summary: 'Revoke a token.',
    async run({ args, json, client }) {
      const id = required(args.words[0], 'token ID');
      await client().request('DELETE', `/api/admin/tokens/${encodeURIComponent(id)}`);
      if (json) printRecords({ revoked: Number(id) }, true);
      else process.stdout.write(`token ${id} revoked\n`);
    },
  },
  {
    name: 'balance',
    usage: 'balance USER_ID AMOUNT --comment TEXT',
    summary: 'Credit (positive) or debit (negative) a balance.',
    async run({ args, json, client }) {
      const id = required(args.words[0], 'account ID');
      const amount = required(args.words[1], 'AMOUNT');
      const response = await client().request('POST', `/api/admin/users/${encodeURIComponent(id)}/balance`, {
        amount,
        comment: args.options.comment ?? 'cli',
      });
      printRecords(response.body, json);
    },
  },
];
