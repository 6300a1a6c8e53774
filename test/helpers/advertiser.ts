import assert from 'node:assert/strict';
import https from 'node:https';
import sharp from 'sharp';
import type { Db } from '../../src/db/database.ts';
import type { TestClient } from './http-client.ts';
import type { TestServer } from './server.ts';

/** A real image made with sharp: a colour gradient so the encoders have something to encode. */
export async function imageBytes(format: 'png' | 'jpeg' | 'gif', width: number, height: number): Promise<Buffer> {
  const pixels = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      const offset = (y * width + x) * 3;
      pixels[offset] = (x * 255) / width;
      pixels[offset + 1] = (y * 255) / height;
      pixels[offset + 2] = 128;
    }
  }
  const image = sharp(pixels, { raw: { width, height, channels: 3 } });
  if (format === 'png') return image.png().toBuffer();
  if (format === 'gif') return image.gif().toBuffer();
  return image.jpeg().toBuffer();
}

export function dataUri(declared: string, bytes: Buffer): string {
  return `data:image/${declared};base64,${bytes.toString('base64')}`;
}

export async function pngUri(width = 600, height = 400): Promise<string> {
  return dataUri('png', await imageBytes('png', width, height));
}

export async function jpegUri(width = 400, height = 400): Promise<string> {
  return dataUri('jpeg', await imageBytes('jpeg', width, height));
}

/** Creates a campaign through the API (status 0) and returns its id. */
export async function createCampaign(client: TestClient, fields: Record<string, unknown> = {}): Promise<number> {
  const response = await client.post('/api/advertiser/campaigns', { title: 'Spring sale', category_id: 2, ...fields });
  assert.equal(response.status, 201, response.text);
  return response.json<{ id: number }>().id;
}

/** Moderation is another module's route: tests approve by writing the decision directly. */
export async function approveCampaign(db: Db, id: number): Promise<void> {
  await db.updateTable('campaigns').set({ moderation_status: 1 }).where('id', '=', id).execute();
}

let images: { rectangle: string; square: string } | undefined;

/** Valid parameters of POST /advertiser/offers for a campaign (category 2 Electronics). */
export async function offerFields(campaignId: number, fields: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
  images ??= { rectangle: await pngUri(600, 400), square: await jpegUri(400, 400) };
  return {
    campaignId,
    description: 'Noise-cancelling headphones',
    url: 'https://shop.example.test/headphones',
    price: 1990,
    oldPrice: 2990,
    discount: 1,
    discountType: 'percent',
    subCategory: 203,
    clickPrice: 0.25,
    ...images,
    ...fields,
  };
}

export async function createOffer(client: TestClient, campaignId: number, fields: Record<string, unknown> = {}): Promise<number> {
  const response = await client.post('/api/advertiser/offers', await offerFields(campaignId, fields));
  assert.equal(response.status, 201, response.text);
  return response.json<{ id: number }>().id;
}

/** Fetches a URL of the test server as bytes (images), trusting its certificate. */
export function fetchBytes(
  server: TestServer,
  url: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const request = https.request(url, { ca: server.tls.cert, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }),
      );
    });
    request.on('error', reject);
    request.end();
  });
}

export function fieldsOf(response: { json(): { errors?: { field: string }[] } }): string[] {
  return (response.json().errors ?? []).map((error) => error.field);
}
