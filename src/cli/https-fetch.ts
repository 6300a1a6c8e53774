import https from 'node:https';

/**
 * A `fetch` over node:https with the certificate authorities given: the global fetch trusts only
 * the system's, and a local server's generated certificate is in none of them.
 */
export function httpsFetch(ca: string[] | string | undefined): {
  fetch: (request: Request) => Promise<Response>;
  close: () => void;
} {
  const agent = new https.Agent({ ca, keepAlive: true });
  const fetch = async (request: Request): Promise<Response> => {
    const body = request.body ? Buffer.from(await request.arrayBuffer()) : undefined;
    return new Promise((resolve, reject) => {
      const outgoing = https.request(
        request.url,
        { method: request.method, headers: Object.fromEntries(request.headers), agent },
        (incoming) => {
          const chunks: Buffer[] = [];
          incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
          incoming.on('end', () => {
            const headers = new Headers();
            for (const [name, value] of Object.entries(incoming.headers)) {
              for (const one of [value ?? []].flat()) headers.append(name, one);
            }
            const status = incoming.statusCode ?? 0;
            const noBody = status === 204 || status === 304;
            resolve(new Response(noBody ? null : Buffer.concat(chunks), { status, headers }));
          });
          incoming.on('error', reject);
        },
      );
      outgoing.on('error', reject);
      outgoing.end(body);
    });
  };
  return { fetch, close: () => agent.destroy() };
}
