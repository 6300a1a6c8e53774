import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { insertCampaign, insertOffer } from '../../helpers/fixtures.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';

describe('product categories', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());
  const db = () => server.server.context.db;

  it('lists the seeded root categories to advertisers, in JSON and XML', async () => {
    const advertiser = await server.createAccount('advertiser');
    const response = await advertiser.client.get('/api/advertiser/categories');
    assert.equal(response.status, 200);
    const roots = response.json();
    assert.equal(roots.length, 12);
    assert.deepEqual(roots[0], { id: 1, parent_id: null, title: 'Clothing & Shoes' });
    assert.ok(roots.every((category: { parent_id: number | null }) => category.parent_id === null));
    assert.equal(response.header('x-pagination-total-count'), '12');
    const xml = await advertiser.client.get('/api/advertiser/categories?per-page=2', { accept: 'application/xml' });
    assert.equal(xml.status, 200);
    assert.deepEqual(xml.xml().item[1], { id: '2', parent_id: '', title: 'Electronics' });
    const publisher = await server.createAccount('publisher');
    assert.equal((await publisher.client.get('/api/advertiser/categories')).status, 403);
  });

  it("lists the subcategories of the caller's campaign's category", async () => {
    const advertiser = await server.createAccount('advertiser');
    const stranger = await server.createAccount('advertiser');
    const campaign = await insertCampaign(db(), { advertiserId: advertiser.id, categoryId: 2 });
    const response = await advertiser.client.get(`/api/advertiser/subCategories?id=${campaign.id}`);
    assert.equal(response.status, 200);
    assert.deepEqual(
      response.json().map((category: { id: number }) => category.id),
      [201, 202, 203, 204, 205, 206],
    );
    assert.deepEqual(response.json()[0], { id: 201, parent_id: 2, title: 'Smartphones' });
    const xml = await advertiser.client.get(`/api/advertiser/subCategories?id=${campaign.id}`, { accept: 'application/xml' });
    assert.equal(xml.xml().item[0].parent_id, '2');

    assert.equal((await stranger.client.get(`/api/advertiser/subCategories?id=${campaign.id}`)).status, 404);
    assert.equal((await advertiser.client.get('/api/advertiser/subCategories?id=999999')).status, 404);
    for (const query of ['', '?id=', '?id=abc', '?id=0']) {
      const invalid = await advertiser.client.get(`/api/advertiser/subCategories${query}`);
      assert.equal(invalid.status, 422, query);
      assert.equal(invalid.json().errors[0].field, 'id');
    }
  });

  it('lets operators add, rename, move and delete categories', async () => {
    const created = await server.operator.post('/api/admin/categories', { title: 'Pets' });
    assert.equal(created.status, 201, created.text);
    const pets = created.json();
    assert.equal(pets.parent_id, null);
    assert.ok(pets.id > 10000);
    assert.equal(created.header('location'), `${server.url}/api/admin/categories/${pets.id}`);
    const child = (await server.operator.post('/api/admin/categories', { title: 'Dog food', parentId: pets.id })).json();
    assert.equal(child.parent_id, pets.id);

    const advertiser = await server.createAccount('advertiser');
    const roots = await advertiser.client.get('/api/advertiser/categories');
    assert.ok(roots.json().some((category: { id: number }) => category.id === pets.id));

    const renamed = await server.operator.put(
      `/api/admin/categories/${child.id}`,
      { title: 'Pet food' },
      { accept: 'application/xml' },
    );
    assert.equal(renamed.status, 200);
    assert.deepEqual(renamed.xml(), { id: String(child.id), parent_id: String(pets.id), title: 'Pet food' });
    const moved = await server.operator.put(`/api/admin/categories/${child.id}`, { parentId: 8 });
    assert.equal(moved.json().parent_id, 8);
    const toRoot = await server.operator.put(`/api/admin/categories/${child.id}`, { parentId: 0 });
    assert.equal(toRoot.json().parent_id, null);
    const children = await server.operator.get('/api/admin/categories?parentId=2');
    assert.equal(children.json().length, 6);
    assert.equal((await server.operator.get(`/api/admin/categories/${pets.id}`)).json().title, 'Pets');

    assert.equal((await server.operator.delete(`/api/admin/categories/${child.id}`)).status, 204);
    assert.equal((await server.operator.get(`/api/admin/categories/${child.id}`)).status, 404);
    assert.equal((await server.operator.delete(`/api/admin/categories/${child.id}`)).status, 404);
  });

  it('refuses bad edits with 422 naming the field', async () => {
    const parent = (await server.operator.post('/api/admin/categories', { title: 'Garden tools' })).json();
    const child = (await server.operator.post('/api/admin/categories', { title: 'Rakes', parentId: parent.id })).json();
    const cycle = await server.operator.put(`/api/admin/categories/${parent.id}`, { parentId: child.id });
    assert.equal(cycle.status, 422);
    assert.equal(cycle.json().errors[0].field, 'parentId');
    const self = await server.operator.put(`/api/admin/categories/${parent.id}`, { parentId: parent.id });
    assert.equal(self.status, 422);
    const noParent = await server.operator.post('/api/admin/categories', { title: 'Orphan', parentId: 999999 });
    assert.equal(noParent.status, 422);
    assert.equal(noParent.json().errors[0].field, 'parentId');
    const noTitle = await server.operator.post('/api/admin/categories', { title: '' });
    assert.equal(noTitle.status, 422);
    assert.equal(noTitle.json().errors[0].field, 'title');
    const unknown = await server.operator.post('/api/admin/categories', { title: 'X', color: 'red' });
    assert.equal(unknown.status, 422);
    assert.equal(unknown.json().errors[0].field, 'color');
    assert.equal((await server.operator.put('/api/admin/categories/999999', { title: 'Y' })).status, 404);
    const unchanged = await server.operator.put(`/api/admin/categories/${child.id}`, {});
    assert.equal(unchanged.status, 200);
    assert.equal(unchanged.json().title, 'Rakes');
  });

  it('refuses to delete a category used by a campaign, an ad or subcategories', async () => {
    const advertiser = await server.createAccount('advertiser');
    const withChildren = await server.operator.delete('/api/admin/categories/2');
    assert.equal(withChildren.status, 422);
    assert.equal(withChildren.json().errors[0].field, 'id');
    assert.match(withChildren.json().message, /subcategories/);

    const used = (await server.operator.post('/api/admin/categories', { title: 'Used by a campaign' })).json();
    await insertCampaign(db(), { advertiserId: advertiser.id, categoryId: used.id });
    const byCampaign = await server.operator.delete(`/api/admin/categories/${used.id}`);
    assert.equal(byCampaign.status, 422);
    assert.match(byCampaign.json().message, /1 campaign/);

    const sub = (await server.operator.post('/api/admin/categories', { title: 'Used by an ad', parentId: 3 })).json();
    const campaign = await insertCampaign(db(), { advertiserId: advertiser.id, categoryId: 3 });
    const offer = await insertOffer(db(), { campaignId: campaign.id });
    await db().updateTable('offers').set({ sub_category_id: sub.id }).where('id', '=', offer.id).execute();
    const byOffer = await server.operator.delete(`/api/admin/categories/${sub.id}`);
    assert.equal(byOffer.status, 422);
    assert.match(byOffer.json().message, /1 ad/);
  });

  it('keeps category editing to operators', async () => {
    const advertiser = await server.createAccount('advertiser');
    assert.equal((await advertiser.client.post('/api/admin/categories', { title: 'Nope' })).status, 403);
    assert.equal((await advertiser.client.get('/api/admin/categories')).status, 403);
    assert.equal((await advertiser.client.delete('/api/admin/categories/1')).status, 403);
  });
});
